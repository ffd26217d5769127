/**
 * `rss_feed` connectors over real HTTP: the seed federal-register definition
 * (parsed from its YAML) against the shared fixture server standing in for
 * www.federalregister.gov, through real undici. Real: HTTP server, sockets,
 * timers, XML parsing. Mocked: nothing. Feed fixtures carry `{{rfc822:N}}` /
 * `{{iso:N}}` placeholders (N hours ago) so `since_hours` is tested against
 * the real clock.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFixtureServer, type FixtureResponse, type FixtureServer } from '@af/testing';
import { request } from 'undici';
import {
  executeEndpoint,
  parseConnectorYaml,
  type ConnectorDefinition,
  type ExecutionContext,
} from '@af/connectors';
import { failure } from '@af/connectors/testing';

const SEED = readFileSync(join(__dirname, '../../../../packages/connectors/src/fixtures/seed-rss-feed.connector.yaml'), 'utf8');
const HOUR = 3_600_000;

/** A fixture feed with its date placeholders filled relative to now (bytes kept in the file's encoding). */
function feedFixture(name: string, encoding: BufferEncoding = 'utf8'): Buffer {
  const text = readFileSync(join(__dirname, '../fixtures/rss', name)).toString(encoding);
  // One clock reading for the whole feed: dates a test compares must not straddle a millisecond.
  const now = Date.now();
  const filled = text
    .replace(/\{\{rfc822:(\d+)\}\}/g, (_, h: string) => new Date(now - Number(h) * HOUR).toUTCString())
    .replace(/\{\{iso:(\d+)\}\}/g, (_, h: string) => new Date(now - Number(h) * HOUR).toISOString());
  return Buffer.from(filled, encoding);
}

const rss = (name: string, extra: Partial<FixtureResponse> = {}): FixtureResponse => ({
  body: feedFixture(name),
  headers: { 'content-type': 'application/rss+xml; charset=utf-8' },
  ...extra,
});

let server: FixtureServer;

beforeEach(async () => {
  server = await startFixtureServer();
});

afterEach(async () => {
  await server.close();
});

function parse(yaml: string): ConnectorDefinition {
  const result = parseConnectorYaml(yaml);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.definition;
}

/** The seed, pointed at the fixture server. */
const seed = () => parse(SEED.replaceAll('https://www.federalregister.gov', server.url));

/** Routes the seed's two feeds (same path, told apart by the type condition in the query). */
function serveSeed(rules: FixtureResponse, notices: FixtureResponse) {
  server.route('GET', '/documents/search.rss', (req) =>
    req.query['conditions[type][]'] === 'RULE' ? rules : notices,
  );
}

function ctx(extra: Partial<ExecutionContext> = {}): ExecutionContext {
  return { http: request, ...extra };
}


describe('the seed federal-register connector', () => {
  it('get_recent: both feeds, last 24 h, de-duplicated, newest first, mapped as the seed says', async () => {
    serveSeed(rss('rules.rss.xml'), rss('notices.rss.xml'));
    const warned: string[] = [];

    const result = await executeEndpoint(seed(), 'get_recent', {}, {}, ctx({ warn: (m) => warned.push(m) }));

    expect(result.results.map((r) => r.title)).toEqual([
      'Meeting of the Advisory Committee', // 1 h
      'Energy Conservation Program: Test Procedures for Pumps', // 2 h
      'Joint Rule and Notice on Reporting', // 5 h, in both feeds: kept once (from the first feed)
      'Undated Correction', // no date: kept, last
    ]);
    expect(result.results[1]).toEqual({
      title: 'Energy Conservation Program: Test Procedures for Pumps',
      // The seed maps the raw <description>: the feed's (escaped) HTML, decoded once by XML.
      summary: '<p>The Department of Energy (&quot;DOE&quot;) amends test procedures.</p>',
      published: expect.stringMatching(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/),
      link: 'https://www.federalregister.gov/documents/2024/05/01/2024-0001/energy-conservation',
      category: 'Rule',
    });
    expect(result.results[2]?.category).toBe('Rule');
    expect(result).toMatchObject({ count: 4, has_more: false });
    expect(result.warnings).toEqual([
      '1 item(s) carry no usable date, so since_hours could not filter them; they are included',
    ]);
    expect(warned).toEqual(result.warnings);

    const requests = server.requestsTo('GET', '/documents/search.rss');
    expect(requests.map((r) => r.query['conditions[type][]']).sort()).toEqual(['NOTICE', 'RULE']);
    expect(requests[0]?.headers['user-agent']).toMatch(/^AgentFactory\//);
    expect(requests[0]?.headers.accept).toContain('application/rss+xml');
  });

  it('feed_name picks one feed; since_hours widens the window', async () => {
    serveSeed(rss('rules.rss.xml'), rss('notices.rss.xml'));

    const result = await executeEndpoint(
      seed(),
      'get_recent',
      { feed_name: 'rules', since_hours: 48 },
      {},
      ctx(),
    );

    expect(result.results.map((r) => r.title)).toEqual([
      'Energy Conservation Program: Test Procedures for Pumps',
      'Joint Rule and Notice on Reporting',
      'Airworthiness Directives; Example Aircraft',
      'Undated Correction',
    ]);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.query['conditions[type][]']).toBe('RULE');
  });

  it.each([
    [
      { feed_name: 'proposed' },
      'inputs.feed_name',
      'has no feed "proposed"; endpoint "get_recent" has all, rules, notices',
    ],
    [{ since_hours: 0 }, 'inputs.since_hours', 'must be greater than 0'],
    [{ since_hours: 'a day' }, 'inputs.since_hours', 'expected an integer'],
  ])('refuses %j before fetching', async (inputs, field, reason) => {
    const err = await failure(executeEndpoint(seed(), 'get_recent', inputs, {}, ctx()));

    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations).toEqual([{ field, reason: expect.stringContaining(reason) }]);
    expect(server.requests).toHaveLength(0);
  });
});

describe('failing feeds', () => {
  it('one failing feed is a warning; the other feed is still returned', async () => {
    serveSeed({ status: 503, body: 'maintenance' }, rss('notices.rss.xml'));

    const result = await executeEndpoint(seed(), 'get_recent', {}, {}, ctx());

    expect(result.results.map((r) => r.title)).toEqual([
      'Meeting of the Advisory Committee',
      'Joint Rule and Notice on Reporting',
    ]);
    expect(result.warnings).toEqual([
      expect.stringMatching(/^feed "rules" failed: .*HTTP 503 .*maintenance/),
    ]);
  });

  it('every feed failing fails the call, naming each feed', async () => {
    serveSeed({ status: 503, body: 'down' }, { status: 502, body: 'bad gateway' });

    const err = await failure(executeEndpoint(seed(), 'get_recent', {}, {}, ctx()));

    expect(err).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect(err.message).toMatch(/every feed failed: feed "rules": .*HTTP 503.*; feed "notices": .*HTTP 502/);
  });

  it('mixed failures that are not retryable give UPSTREAM_ERROR', async () => {
    serveSeed({ status: 404, body: 'gone' }, { status: 401, body: 'who?' });

    const err = await failure(executeEndpoint(seed(), 'get_recent', {}, {}, ctx()));

    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', retryable: false });
  });

  it('a single selected feed failing gives its own error', async () => {
    serveSeed({ status: 404, body: 'gone' }, rss('notices.rss.xml'));

    const err = await failure(executeEndpoint(seed(), 'get_recent', { feed_name: 'rules' }, {}, ctx()));

    expect(err).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it.each([
    [
      'malformed XML',
      'malformed.xml',
      /feed "rules" .* is not well-formed XML: .*\(line \d+, column \d+\); it gave no items/,
    ],
    [
      'an HTML page',
      'not-a-feed.html',
      /feed "rules" .* is an HTML page, not an RSS or Atom feed; it gave no items/,
    ],
  ])('%s gives no items and a warning; the other feed is returned', async (_, file, warning) => {
    serveSeed({ body: feedFixture(file), headers: { 'content-type': 'text/html' } }, rss('notices.rss.xml'));

    const result = await executeEndpoint(seed(), 'get_recent', {}, {}, ctx());

    expect(result.count).toBe(2);
    expect(result.warnings).toEqual([expect.stringMatching(warning)]);
  });

  it('a feed slower than the deadline is a warning when another feed answered', async () => {
    serveSeed(rss('rules.rss.xml', { delayMs: 3000 }), rss('notices.rss.xml'));
    const started = Date.now();

    const result = await executeEndpoint(seed(), 'get_recent', {}, {}, ctx({ timeoutMs: 400 }));

    expect(Date.now() - started).toBeLessThan(2000);
    expect(result.count).toBe(2);
    expect(result.warnings).toEqual([
      expect.stringMatching(/^feed "rules" failed: .*no complete answer .* within 400 ms/),
    ]);
  });

  it('TIMEOUT when no feed answers in time', async () => {
    serveSeed(rss('rules.rss.xml', { delayMs: 3000 }), rss('notices.rss.xml', { delayMs: 3000 }));

    const err = await failure(executeEndpoint(seed(), 'get_recent', {}, {}, ctx({ timeoutMs: 300 })));

    expect(err).toMatchObject({ code: 'TIMEOUT', retryable: true });
  });

  it('CANCELLED when the caller aborts, even if another feed already answered', async () => {
    server.route('GET', '/documents/search.rss', (req) =>
      req.query['conditions[type][]'] === 'RULE' ? rss('rules.rss.xml') : { delayMs: 5000, body: '' },
    );
    const controller = new AbortController();

    const call = failure(executeEndpoint(seed(), 'get_recent', {}, {}, ctx({ signal: controller.signal })));
    setTimeout(() => controller.abort(), 200);

    expect((await call).code).toBe('CANCELLED');
  });
});

describe('formats and limits', () => {
  const CUSTOM = `
id: agency-news
name: Agency news
type: rss_feed
connection:
  feeds:
    - SERVER/agency.atom
    - {url: SERVER/latin1.rss, name: cafe}
  max_items_per_poll: 2
endpoints:
  latest:
    parameters:
      - {name: max_items, type: integer}
`;
  const custom = () => parse(CUSTOM.replaceAll('SERVER', server.url));

  beforeEach(() => {
    server.route('GET', '/agency.atom', {
      body: feedFixture('agency.atom.xml'),
      headers: { 'content-type': 'application/atom+xml' },
    });
    // No charset header: the XML declaration says ISO-8859-1.
    server.route('GET', '/latin1.rss', {
      body: feedFixture('latin1.rss.xml', 'latin1'),
      headers: { 'content-type': 'application/rss+xml' },
    });
  });

  it('normalises Atom and RSS into the same record; decodes the declared charset; max_items_per_poll caps', async () => {
    const result = await executeEndpoint(custom(), 'latest', {}, {}, ctx());

    expect(result).toMatchObject({ count: 2, has_more: true });
    expect(result.results).toEqual([
      {
        title: 'Grant program opens',
        link: `${server.url}/announcements/grants`,
        published_at: expect.any(String),
        updated_at: expect.any(String),
        summary: 'Applications are open.',
        author: 'Press Office',
        guid: 'urn:uuid:grants',
        categories: [],
        feed: '127.0.0.1:' + server.port + '/agency.atom',
      },
      expect.objectContaining({ title: 'Crème brûlée recall', feed: 'cafe', guid: 'recall-1' }),
    ]);
    const first = result.results[0] as Record<string, string>;
    expect(Date.parse(first.updated_at as string) - Date.parse(first.published_at as string)).toBe(2 * HOUR);
  });

  it('the max_items input overrides the cap', async () => {
    const result = await executeEndpoint(custom(), 'latest', { max_items: 5 }, {}, ctx());

    expect(result.results.map((r) => r.title)).toEqual([
      'Grant program opens',
      'Crème brûlée recall',
      'Quarterly report',
    ]);
    expect(result.results[2]?.summary).toBe('Revenue rose 4%.');
    expect(result.has_more).toBe(false);
  });

  it('refuses a feed larger than the cap (as a feed failure)', async () => {
    server.route('GET', '/latin1.rss', { body: Buffer.alloc(6 * 1024 * 1024, 0x20) });

    const result = await executeEndpoint(custom(), 'latest', {}, {}, ctx());

    expect(result.warnings).toEqual([expect.stringMatching(/^feed "cafe" failed: .*larger than/)]);
  });
});

describe('definitions', () => {
  it('a broken definition is refused with field paths and lines', () => {
    const result = parseConnectorYaml(
      SEED.replace('  max_items_per_poll: 50', '  max_items_per_poll: lots').replace(
        '      - name: since_hours\n        type: integer',
        '      - name: since_hours\n        type: date',
      ),
    );

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      { field: 'connection.max_items_per_poll', reason: 'must be a number', line: 17, column: 23 },
    ]);
    const rules = parseConnectorYaml(
      SEED.replace(
        '      - name: since_hours\n        type: integer',
        '      - name: since_hours\n        type: date',
      ),
    );
    expect(rules).toEqual({
      ok: false,
      errors: [
        {
          field: 'endpoints.get_recent.parameters[1].type',
          reason: 'must be integer or number for "since_hours"',
          line: 28,
          column: 15,
        },
        {
          field: 'endpoints.get_recent.parameters[1].default',
          reason: expect.stringContaining('does not fit type date'),
          line: 30,
          column: 18,
        },
      ],
    });
  });
});
