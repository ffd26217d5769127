/**
 * connector-runtime serves the built-in `search_web` and `crawl_url` actions
 * over ActionService, across processes. Real: connector-runtime
 * (`dist/main.js`), PostgreSQL, NATS, gRPC, and two HTTP servers: a
 * Tavily-shaped search API (POST /search, Bearer key) and a small web site
 * with a robots.txt that disallows /private. Loopback is opened with
 * CONNECTOR_EGRESS_ALLOW=127.0.0.1 so the fixtures are reachable; every other
 * private address stays refused by the egress guard.
 *
 * Needs `pnpm --filter @af/connector-runtime build`.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { action, connector } from '@af/contracts';
import { AppError, call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { createTestDatabase, freePort, ServiceProcess, startFixtureServer, TEST_NATS_URL, type FixtureServer, type TestDatabase } from '@af/testing';

const SERVICE_AUTH_SECRET = randomBytes(32).toString('hex');
const auth = new ServiceAuth({ secret: SERVICE_AUTH_SECRET, service: 'e2e' });
const KEY = 'tvly-test-key-0123456789';
const TEMPLATE = readFileSync(join(__dirname, '../../templates/tavily-web-search.yaml'), 'utf8');

let db: TestDatabase;
let runtime: ServiceProcess;
let tavily: FixtureServer;
let site: FixtureServer;
let actions: action.ActionServiceClient;
let connectors: connector.ConnectorServiceClient;

const PAGE = `<!doctype html><html lang="en"><head><title>Acme widgets</title>
<meta name="description" content="All about Acme widgets."><script>var secret = "not text";</script></head>
<body><h1>Widgets</h1><p>Acme makes <b>blue</b> widgets.</p><ul><li>Fast</li><li>Cheap</li></ul>
<a href="/about">About</a> <a href="https://example.org/x">Elsewhere</a> <a href="mailto:a@b.c">Mail</a></body></html>`;

beforeAll(async () => {
  db = await createTestDatabase();
  tavily = await startFixtureServer();
  tavily.route('POST', '/search', (req) => {
    if (req.headers.authorization !== `Bearer ${KEY}`) return { status: 401, json: { detail: { error: 'Unauthorized: missing or invalid API key.' } } };
    const body = JSON.parse(req.body) as { query: string; max_results: number; topic?: string };
    const results = Array.from({ length: body.max_results }, (_, i) => ({
      title: `${body.query} result ${i + 1}${body.topic ? ` (${body.topic})` : ''}`,
      url: `https://example.org/${i + 1}`,
      content: `snippet ${i + 1}`,
      score: 1 - i / 100,
    }));
    return { json: { query: body.query, results, response_time: 0.01 } };
  });
  site = await startFixtureServer();
  site.route('GET', '/robots.txt', { body: 'User-agent: *\nDisallow: /private\n', headers: { 'content-type': 'text/plain' } });
  site.route('GET', '/widgets', { body: PAGE, headers: { 'content-type': 'text/html; charset=utf-8' } });
  site.route('GET', '/private/report', { body: '<html><title>secret</title></html>', headers: { 'content-type': 'text/html' } });
  const grpcPort = await freePort();
  runtime = new ServiceProcess('connector-runtime', {
    DATABASE_URL: db.url,
    NATS_URL: TEST_NATS_URL,
    NATS_PREFIX: `t${randomBytes(4).toString('hex')}`,
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: String(grpcPort),
    METRICS_PORT: '0',
    LOG_LEVEL: 'debug',
    CREDENTIALS_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    CONNECTOR_EGRESS_ALLOW: '127.0.0.1',
    SERVICE_AUTH_SECRET,
  });
  await runtime.start();
  const address = `127.0.0.1:${grpcPort}`;
  actions = createGrpcClient<action.ActionServiceClient>('action', action.ACTION_SERVICE_NAME, address, { auth });
  connectors = createGrpcClient<connector.ConnectorServiceClient>('connector', 'ConnectorService', address, { auth });
}, 90_000);

afterAll(async () => {
  await runtime?.stop();
  await tavily?.close();
  await site?.close();
  await db?.drop();
});

const principal = (userId: string) => ({ userId, teamIds: [] });

async function searchConnector(userId: string, id: string): Promise<void> {
  const yaml = TEMPLATE.replace('https://api.tavily.com', tavily.url).replace(/^id: tavily-web-search$/m, `id: ${id}`);
  await call(connectors.createConnector({ principal: principal(userId), yaml, definition: undefined, credentials: { token: KEY }, idempotencyKey: '' }));
}

const run = (userId: string, name: string, inputs: Record<string, unknown>, params: Record<string, unknown> = {}) =>
  call(
    actions.execute({
      action: name,
      inputs,
      params,
      idempotencyKey: `r-${randomBytes(4).toString('hex')}:${name}:1`,
      principal: principal(userId),
      timeoutMs: 20_000,
      runId: 'r',
      nodeId: name,
      attempt: 1,
    }),
    30_000,
  );

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected the call to fail');
}

it('lists search_web and crawl_url beside the plugin tools', async () => {
  const listed = await call(actions.listActions({}));
  expect(listed.actions.map((a) => a.name)).toEqual(expect.arrayContaining(['search_web', 'crawl_url']));
  expect(listed.actions.find((a) => a.name === 'search_web')).toMatchObject({ sideEffects: false });
});

describe('search_web', () => {
  it('refuses a user without a web-search connector, naming params.connector_id and the template', async () => {
    const err = await rejection(run('nobody', 'search_web', { query: 'acme' }));
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).toContain('no web-search connector');
    expect(err.message).toContain('tavily-web-search');
    expect(err.message).toContain('params.connector_id');
  });

  it("runs through the caller's only web-search connector: POST /search with the key, results mapped", async () => {
    await searchConnector('alice', 'tavily-web-search');
    const before = tavily.count('POST', '/search');
    const done = await run('alice', 'search_web', { query: 'acme widgets' }, { max_results: 3, categories: ['news'] });
    expect(done.replayed).toBe(false);
    expect(done.outputs).toEqual({
      count: 3,
      results: [1, 2, 3].map((i) => ({
        title: `acme widgets result ${i} (news)`,
        url: `https://example.org/${i}`,
        snippet: `snippet ${i}`,
        source: 'tavily-web-search',
        score: 1 - (i - 1) / 100,
      })),
    });
    expect(tavily.count('POST', '/search') - before).toBe(1);
    const sent = tavily.requestsTo('POST', '/search').at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(sent.body)).toEqual({ query: 'acme widgets', max_results: 3, topic: 'news' });
  });

  it('uses max_results 10 by default', async () => {
    const done = await run('alice', 'search_web', { query: 'defaults' });
    expect(done.outputs?.count).toBe(10);
    expect(JSON.parse(tavily.requestsTo('POST', '/search').at(-1)!.body)).toMatchObject({ max_results: 10 });
  });

  it('with two web-search connectors needs params.connector_id, and uses the one named', async () => {
    await searchConnector('bob', 'search-a');
    await searchConnector('bob', 'search-b');
    const ambiguous = await rejection(run('bob', 'search_web', { query: 'x' }));
    expect(ambiguous.code).toBe('INVALID_ARGUMENT');
    expect(ambiguous.message).toBe('params.connector_id: you have 2 web-search connectors (search-a, search-b); name one in params.connector_id');
    const done = await run('bob', 'search_web', { query: 'x' }, { connector_id: 'search-b', max_results: 1 });
    expect(done.outputs).toMatchObject({ count: 1, results: [{ source: 'search-b' }] });
    const unknown = await rejection(run('bob', 'search_web', { query: 'x' }, { connector_id: 'nope' }));
    expect([unknown.code, unknown.message]).toEqual(['INVALID_ARGUMENT', "params.connector_id: you have no connector 'nope'"]);
  });

  it('refuses bad inputs before calling the search API', async () => {
    const before = tavily.count('POST', '/search');
    const cases: [Record<string, unknown>, Record<string, unknown>, string][] = [
      [{}, {}, 'inputs.query: is required: a non-empty search query'],
      [{ query: '   ' }, {}, 'inputs.query: is required: a non-empty search query'],
      [{ query: 'x' }, { max_results: 0 }, 'params.max_results: must be a whole number from 1 to 20 (got 0)'],
      [{ query: 'x' }, { max_results: 21 }, 'params.max_results: must be a whole number from 1 to 20 (got 21)'],
      [{ query: 'x' }, { max_results: 2.5 }, 'params.max_results: must be a whole number from 1 to 20 (got 2.5)'],
      [{ query: 'x' }, { categories: ['images'] }, 'params.categories: "images" is not a category web search knows; use one of general, news, finance'],
    ];
    for (const [inputs, params, message] of cases) {
      const err = await rejection(run('alice', 'search_web', inputs, params));
      expect([err.code, err.message]).toEqual(['INVALID_ARGUMENT', message]);
    }
    expect(tavily.count('POST', '/search')).toBe(before);
  });

  it('a key the search API refuses is a clear failure, the key never shown', async () => {
    await call(connectors.createConnector({ principal: principal('carol'), yaml: TEMPLATE.replace('https://api.tavily.com', tavily.url), definition: undefined, credentials: { token: 'tvly-wrong' }, idempotencyKey: '' }));
    const err = await rejection(run('carol', 'search_web', { query: 'x' }));
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).toContain('the upstream refused the stored credentials');
    expect(err.message).toContain('HTTP 401');
    expect(err.message).not.toContain('tvly-wrong');
  });
});

describe('crawl_url', () => {
  it("returns the page's title, text, links and metadata", async () => {
    const done = await run('alice', 'crawl_url', { url: `${site.url}/widgets` });
    expect(done.outputs).toEqual({
      title: 'Acme widgets',
      content: 'Widgets\nAcme makes blue widgets.\nFast\nCheap',
      links: [`${site.url}/about`, 'https://example.org/x'],
      metadata: { url: `${site.url}/widgets`, fetched_at: expect.any(String), robots: 'allowed', extract_mode: 'text', description: 'All about Acme widgets.', lang: 'en' },
    });
    expect(site.count('GET', '/robots.txt')).toBeGreaterThanOrEqual(1);
  });

  it('extract_mode markdown gives the body as Markdown, scripts dropped', async () => {
    const done = await run('alice', 'crawl_url', { url: `${site.url}/widgets` }, { extract_mode: 'markdown' });
    expect(done.outputs).toMatchObject({ title: 'Acme widgets', metadata: { extract_mode: 'markdown' } });
    const content = String(done.outputs?.content);
    expect(content).toContain('# Widgets');
    expect(content).toContain('Acme makes **blue** widgets.');
    expect(content).toMatch(/^- {1,3}Fast$/m);
    expect(content).toContain('[About](/about)');
    expect(content).not.toContain('not text');
  });

  it('refuses a path robots.txt disallows, without fetching it', async () => {
    const err = await rejection(run('alice', 'crawl_url', { url: `${site.url}/private/report` }));
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).toContain('robots.txt disallows /private/report');
    expect(site.count('GET', '/private/report')).toBe(0);
  });

  it('refuses non-http URLs, bad modes and private addresses', async () => {
    const cases: [Record<string, unknown>, Record<string, unknown>, string, string][] = [
      [{}, {}, 'INVALID_ARGUMENT', 'inputs.url: is required: an http(s) URL'],
      [{ url: 'not a url' }, {}, 'INVALID_ARGUMENT', 'inputs.url: "not a url" is not a URL'],
      [{ url: 'file:///etc/passwd' }, {}, 'INVALID_ARGUMENT', 'inputs.url: must be an http or https URL (got file)'],
      [{ url: 'ftp://example.org/x' }, {}, 'INVALID_ARGUMENT', 'inputs.url: must be an http or https URL (got ftp)'],
      [{ url: `${site.url}/widgets` }, { extract_mode: 'structured' }, 'INVALID_ARGUMENT', 'params.extract_mode: must be "text" or "markdown" (got "structured")'],
    ];
    for (const [inputs, params, code, message] of cases) {
      const err = await rejection(run('alice', 'crawl_url', inputs, params));
      expect([err.code, err.message]).toEqual([code, message]);
    }
    for (const url of ['http://10.0.0.5/', 'http://169.254.169.254/latest/meta-data/']) {
      const err = await rejection(run('alice', 'crawl_url', { url }));
      expect(err.code).toBe('FAILED_PRECONDITION');
      expect(err.message).toMatch(/egress to .* refused/);
    }
  });
});
