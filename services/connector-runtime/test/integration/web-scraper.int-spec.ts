/**
 * `web_scraper` connectors over real HTTP: a state corporation registry
 * (seed §7 Tier 4) served by the shared fixture server, through real undici:
 * robots.txt, pagination, delays and failures. Real: HTTP server, sockets,
 * timers, HTML parsing. Mocked: nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFixtureServer, type FixtureResponse, type FixtureServer } from '@af/testing';
import { request } from 'undici';
import {
  ConnectorError,
  executeEndpoint,
  parseConnectorYaml,
  type ConnectorDefinition,
  type ExecutionContext,
} from '@af/connectors';
import { failure } from '@af/connectors/testing';

const fixture = (name: string) => readFileSync(join(__dirname, '../fixtures/web', name), 'utf8');
const html = (name: string, extra: Partial<FixtureResponse> = {}): FixtureResponse => ({
  body: fixture(name),
  headers: { 'content-type': 'text/html; charset=utf-8' },
  ...extra,
});

const YAML = `
id: state-corps
name: State corporations
type: web_scraper
connection:
  base_url: SERVER
  delay_ms: 0
endpoints:
  search:
    path: /corp/search
    parameters:
      - {name: name, type: string, required: true}
    extraction:
      item_selector: table.results tr
      fields:
        name: {selector: td.name, required: true}
        url: {selector: td.name a, attr: href}
        filed: {selector: td.date, type: date}
        active: {selector: td.status, type: boolean}
        capital: {selector: td.capital, type: number}
    pagination:
      next_selector: a.next
      max_pages: 5
  private:
    path: /corp/private/{id}
    parameters:
      - {name: id, type: string, required: true}
    extraction:
      fields: {title: title}
  admin:
    path: /admin/stats
    extraction:
      fields: {title: title}
`;

let server: FixtureServer;

beforeEach(async () => {
  server = await startFixtureServer();
  server.route('GET', '/robots.txt', {
    body: fixture('robots.txt'),
    headers: { 'content-type': 'text/plain' },
  });
});

afterEach(async () => {
  await server.close();
});

function definition(patch: (yaml: string) => string = (y) => y): ConnectorDefinition {
  const result = parseConnectorYaml(patch(YAML.replace('SERVER', server.url)));
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.definition;
}

/** Serves the three result pages by their `page` query value; records when each arrived. */
function servePages(override: Record<string, FixtureResponse> = {}): number[] {
  const arrivals: number[] = [];
  server.route('GET', '/corp/search', (req) => {
    arrivals.push(Date.now());
    const page = String(req.query.page ?? '1');
    return override[page] ?? html(`corps-page${page}.html`);
  });
  return arrivals;
}

function ctx(extra: Partial<ExecutionContext> = {}): ExecutionContext {
  return { http: request, ...extra };
}


const ALL_RECORDS = (url: string) => [
  {
    name: 'ACME HOLDINGS, INC.',
    url: `${url}/corp/detail/1001`,
    filed: '2021-03-15',
    active: true,
    capital: 1250000,
  },
  {
    name: 'Acme Labs LLC',
    url: `${url}/corp/detail/1002`,
    filed: '2020-01-02',
    active: false,
    capital: null,
  },
  {
    name: 'Acme Widgets Co.',
    url: `${url}/corp/detail/1003`,
    filed: '2019-07-04',
    active: true,
    capital: 500,
  },
  { name: 'Acme Trust', url: `${url}/corp/detail/1004`, filed: null, active: true, capital: -12 },
  { name: 'Acme Foundation', url: `${url}/corp/detail/1005`, filed: '2018-11-30', active: true, capital: 0 },
];

describe('scraping with pagination', () => {
  it('extracts every page, following relative next links, and reads robots.txt once', async () => {
    servePages();
    const warned: string[] = [];

    const result = await executeEndpoint(
      definition(),
      'search',
      { name: 'acme' },
      {},
      ctx({ warn: (m) => warned.push(m) }),
    );

    expect(result.results).toEqual(ALL_RECORDS(server.url));
    expect(result).toMatchObject({ count: 5, has_more: false });
    expect(result.warnings).toEqual([
      '3 item(s) skipped because the required field "name" had no value',
      '1 value(s) of field "capital" did not fit its type and were set to null',
    ]);
    expect(warned).toEqual(result.warnings);
    expect(server.count('GET', '/robots.txt')).toBe(1);
    expect(server.requestsTo('GET', '/corp/search').map((r) => r.url)).toEqual([
      '/corp/search?name=acme',
      '/corp/search?name=acme&page=2',
      '/corp/search?name=acme&page=3',
    ]);
    for (const r of server.requests) expect(r.headers['user-agent']).toMatch(/^AgentFactory\/1\.0 /);
  });

  it('stops at max_pages and reports has_more', async () => {
    servePages();

    const result = await executeEndpoint(
      definition((y) => y.replace('max_pages: 5', 'max_pages: 2')),
      'search',
      { name: 'acme' },
      {},
      ctx(),
    );

    expect(result).toMatchObject({ count: 4, has_more: true });
    expect(server.count('GET', '/corp/search')).toBe(2);
  });

  it('waits delay_ms between pages', async () => {
    const arrivals = servePages();

    await executeEndpoint(
      definition((y) => y.replace('delay_ms: 0', 'delay_ms: 150')),
      'search',
      { name: 'acme' },
      {},
      ctx(),
    );

    expect(arrivals).toHaveLength(3);
    expect((arrivals[1] as number) - (arrivals[0] as number)).toBeGreaterThanOrEqual(140);
    expect((arrivals[2] as number) - (arrivals[1] as number)).toBeGreaterThanOrEqual(140);
  });

  it('keeps a robots.txt Crawl-delay longer than delay_ms', async () => {
    server.route('GET', '/robots.txt', { body: 'User-agent: AgentFactory\nCrawl-delay: 0.3\nAllow: /\n' });
    const arrivals = servePages();

    await executeEndpoint(definition(), 'search', { name: 'acme' }, {}, ctx());

    expect((arrivals[1] as number) - (arrivals[0] as number)).toBeGreaterThanOrEqual(290);
  });

  it('does not follow a next link to another origin', async () => {
    const elsewhere = server.url.replace('127.0.0.1', 'localhost');
    servePages({
      '2': {
        body: `<table class="results"></table><a class="next" href="${elsewhere}/corp/search?page=3">Next</a>`,
      },
    });

    const result = await executeEndpoint(definition(), 'search', { name: 'acme' }, {}, ctx());

    expect(result).toMatchObject({ count: 2, has_more: false });
    expect(result.warnings).toContain(
      `page 2: the next-page link leads to another origin (${elsewhere}); not followed`,
    );
    expect(server.count('GET', '/corp/search')).toBe(2);
  });

  it('stops when the next link leads back to a page already read', async () => {
    servePages({ '2': { body: '<a class="next" href="/corp/search?name=acme">Next</a>' } });

    const result = await executeEndpoint(definition(), 'search', { name: 'acme' }, {}, ctx());

    expect(result.warnings).toContain(
      'page 2: the next-page link leads back to a page already read; stopped paging',
    );
    expect(server.count('GET', '/corp/search')).toBe(2);
  });

  it('a later page failing keeps the pages read, with a warning', async () => {
    servePages({ '2': { status: 500, body: 'oops' } });

    const result = await executeEndpoint(definition(), 'search', { name: 'acme' }, {}, ctx());

    expect(result).toMatchObject({ count: 2, has_more: true });
    expect(result.warnings).toContainEqual(
      expect.stringMatching(/^page 2 failed, returning the first 1: .*HTTP 500/),
    );
  });

  it('extracts from malformed HTML as a browser would recover it', async () => {
    servePages({ '1': html('malformed.html') });

    const result = await executeEndpoint(definition(), 'search', { name: 'acme' }, {}, ctx());

    expect(result.results).toEqual([
      {
        name: 'Unclosed Corp',
        url: `${server.url}/corp/detail/2001`,
        filed: '2021-01-01',
        active: true,
        capital: null,
      },
      {
        name: 'Second Corp',
        url: `${server.url}/corp/detail/2002`,
        filed: '2021-02-02',
        active: null,
        capital: null,
      },
    ]);
  });

  it('decodes the charset the page declares', async () => {
    const page =
      '<html><head><meta charset="iso-8859-1"></head><body><table class="results"><tr><td class="name">Caf\u00e9 Corp</td></tr></table></body></html>';
    servePages({ '1': { body: Buffer.from(page, 'latin1'), headers: { 'content-type': 'text/html' } } });

    const result = await executeEndpoint(definition(), 'search', { name: 'acme' }, {}, ctx());

    expect(result.results[0]?.name).toBe('Café Corp');
  });

  it('a page that is not HTML gives no records and a warning', async () => {
    servePages({ '1': { json: { results: [] } } });

    const result = await executeEndpoint(definition(), 'search', { name: 'acme' }, {}, ctx());

    expect(result).toEqual({
      results: [],
      count: 0,
      has_more: false,
      warnings: [
        `page 1 (${server.url}/corp/search) is application/json, not HTML; no records taken from it`,
      ],
    });
  });
});

describe('robots.txt', () => {
  it('refuses a disallowed path with a clear error and does not fetch it', async () => {
    server.route('GET', '/corp/private/:id', html('corps-page1.html'));

    const err = await failure(executeEndpoint(definition(), 'private', { id: '7' }, {}, ctx()));

    expect(err).toMatchObject({ code: 'FAILED_PRECONDITION', retryable: false });
    expect(err.message).toBe(
      `state-corps/private: ${server.url}/robots.txt disallows /corp/private/7 for user agent "AgentFactory" ` +
        '(rule "Disallow: /corp/private/" in the "AgentFactory" group); the page was not fetched',
    );
    expect(server.count('GET', '/corp/private/:id')).toBe(0);
  });

  it('our group replaces the * group (which disallows /corp/ but not for us)', async () => {
    servePages();
    server.route('GET', '/admin/stats', html('corps-page1.html'));

    await expect(executeEndpoint(definition(), 'search', { name: 'acme' }, {}, ctx())).resolves.toMatchObject(
      { count: 5 },
    );
    // /admin/ is only disallowed for "*": our own group has no rule for it.
    await expect(executeEndpoint(definition(), 'admin', {}, {}, ctx())).resolves.toMatchObject({ count: 1 });
  });

  it('matches the group of a custom user_agent and sends that user agent', async () => {
    servePages();

    const err = await failure(
      executeEndpoint(
        definition((y) =>
          y.replace('  delay_ms: 0', '  delay_ms: 0\n  user_agent: "SpecialBot/2.0 (+https://x.test/bot)"'),
        ),
        'search',
        { name: 'acme' },
        {},
        ctx(),
      ),
    );

    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).toContain('for user agent "SpecialBot"');
    expect(server.requests[0]?.headers['user-agent']).toBe('SpecialBot/2.0 (+https://x.test/bot)');
  });

  it('respect_robots: false skips robots.txt entirely', async () => {
    server.route('GET', '/corp/private/:id', html('corps-page1.html'));

    const result = await executeEndpoint(
      definition((y) => y.replace('  delay_ms: 0', '  delay_ms: 0\n  respect_robots: false')),
      'private',
      { id: '7' },
      {},
      ctx(),
    );

    expect(result.results).toEqual([{ title: 'Corporation search — page 1' }]);
    expect(server.count('GET', '/robots.txt')).toBe(0);
  });

  it('no robots.txt (404) means no restrictions', async () => {
    server.route('GET', '/robots.txt', { status: 404, body: 'not found' });
    server.route('GET', '/corp/private/:id', html('corps-page1.html'));

    await expect(executeEndpoint(definition(), 'private', { id: '7' }, {}, ctx())).resolves.toMatchObject({
      count: 1,
    });
  });

  it('an unreachable robots.txt (5xx) refuses to crawl, retryably', async () => {
    server.route('GET', '/robots.txt', { status: 503, body: 'busy' });
    servePages();

    const err = await failure(executeEndpoint(definition(), 'search', { name: 'acme' }, {}, ctx()));

    expect(err).toMatchObject({ code: 'UNAVAILABLE', retryable: true, status: 503 });
    expect(err.message).toContain(
      `${server.url}/robots.txt could not be read, so nothing is crawled while respect_robots is on`,
    );
    expect(server.count('GET', '/corp/search')).toBe(0);
  });
  it('a host the egress guard refuses is FAILED_PRECONDITION (as for every connector type), not an unreachable robots.txt', async () => {
    const refused = new ConnectorError('FAILED_PRECONDITION', 'egress to 10.0.0.5 refused: private address; an operator can allow it with CONNECTOR_EGRESS_ALLOW');
    const http = (async () => {
      throw refused;
    }) as unknown as ExecutionContext['http'];

    const err = await failure(executeEndpoint(definition(), 'search', { name: 'acme' }, {}, ctx({ http })));

    expect(err).toMatchObject({ code: 'FAILED_PRECONDITION', retryable: false });
    expect(err.message).toContain('egress to 10.0.0.5 refused');
    expect(err.message).not.toContain('robots.txt could not be read');
  });
});

describe('failures', () => {
  it('the first page answering 404 is NOT_FOUND', async () => {
    servePages({ '1': { status: 404, body: 'no such search' } });

    const err = await failure(executeEndpoint(definition(), 'search', { name: 'acme' }, {}, ctx()));

    expect(err).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('refuses inputs before fetching anything', async () => {
    const err = await failure(executeEndpoint(definition(), 'search', { nme: 'acme' }, {}, ctx()));

    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations.map((v) => v.field)).toEqual(['inputs.nme', 'inputs.name']);
    expect(server.requests).toHaveLength(0);
  });

  it('TIMEOUT when a page does not arrive in time', async () => {
    servePages({ '1': { ...html('corps-page1.html'), delayMs: 3000 } });
    const started = Date.now();

    const err = await failure(
      executeEndpoint(definition(), 'search', { name: 'acme' }, {}, ctx({ timeoutMs: 300 })),
    );

    expect(err).toMatchObject({ code: 'TIMEOUT', retryable: true });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('CANCELLED when the caller aborts during the delay between pages', async () => {
    servePages();
    const controller = new AbortController();

    const call = failure(
      executeEndpoint(
        definition((y) => y.replace('delay_ms: 0', 'delay_ms: 5000')),
        'search',
        { name: 'acme' },
        {},
        ctx({ signal: controller.signal }),
      ),
    );
    setTimeout(() => controller.abort(), 300);

    expect((await call).code).toBe('CANCELLED');
    expect(server.count('GET', '/corp/search')).toBe(1);
  });
});

describe('definitions', () => {
  it('a broken definition is refused with field paths and lines', () => {
    const result = parseConnectorYaml(
      YAML.replace('SERVER', 'https://sos.example.gov')
        .replace('next_selector: a.next', 'next_selector: "a.next[href"')
        .replace('type: number}', 'type: money}'),
    );

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      {
        field: 'endpoints.search.extraction.fields.capital.type',
        reason: expect.stringContaining('must be one of string, number'),
        line: 20,
        column: 47,
      },
      {
        field: 'endpoints.search.pagination.next_selector',
        reason: expect.stringContaining('is not a CSS selector cheerio supports'),
        line: 22,
        column: 22,
      },
    ]);
  });
});
