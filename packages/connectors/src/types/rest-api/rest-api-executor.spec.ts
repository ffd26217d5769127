/**
 * The executor against a real HTTP server (the shared fixture server): real
 * sockets, real undici, real timeouts.
 */
import { startFixtureServer, type FixtureServer } from '@af/testing';
import { request } from 'undici';
import { parseConnectorDefinition } from '../../connector-definition.js';
import type { ConnectorDefinition } from '../../connector-definition.schema.js';
import { ConnectorError } from '../../connector-error.js';
import { InMemoryOAuthTokenCache } from '../../oauth-token-cache.js';
import { executeRestEndpoint, type RestExecutorDeps } from './rest-api-executor.js';
import { failure } from '../../testing.js';

const SECRET = 'sk_live_Zq8+w/Secret=Value';
const CREDS = { api_key: SECRET };
/**
 * Port 1 (tcpmux) is privileged and unused on any machine we run on. A port
 * freed by closing a server is not safe: a parallel test may bind it again.
 */
const CLOSED_PORT_URL = 'http://127.0.0.1:1';

let server: FixtureServer;

beforeEach(async () => {
  server = await startFixtureServer();
});

afterEach(async () => {
  await server.close();
});

function definition(
  patch: (d: Record<string, any>) => void = () => {},
  baseUrl = `${server.url}/v1`,
): ConnectorDefinition {
  const input: Record<string, any> = {
    id: 'acme',
    name: 'Acme',
    type: 'rest_api',
    connection: {
      base_url: baseUrl,
      auth: { type: 'api_key', key_param: 'api_key', in: 'query' },
      timeout_seconds: 5,
    },
    endpoints: {
      search: {
        path: '/orgs/{org}/contributions',
        parameters: [
          { name: 'org', type: 'string', required: true },
          { name: 'contributor_name', type: 'string' },
          { name: 'min_amount', type: 'number' },
          { name: 'per_page', type: 'integer', default: 20 },
          { name: 'cursor', type: 'string' },
        ],
        pagination: { next_cursor_path: 'pagination.next', cursor_param: 'cursor' },
        response_mapping: {
          results_path: 'results',
          fields: { donor: 'contributor.name', amount: 'amount', city: 'contributor.address.city' },
        },
      },
      committee: {
        path: '/committee/{id}',
        parameters: [{ name: 'id', type: 'string', required: true }],
        response_mapping: { results_path: 'result', fields: { name: 'name' } },
      },
    },
  };
  patch(input);
  const result = parseConnectorDefinition(input);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.definition;
}


const search = (
  inputs: Record<string, unknown> = { org: 'acme' },
  deps?: RestExecutorDeps,
  def = definition(),
) => executeRestEndpoint(def, 'search', inputs, CREDS, deps);

describe('executeRestEndpoint against a real server', () => {
  it('sends path params, query params with defaults, and the api key; maps the response', async () => {
    server.route('GET', '/v1/orgs/:org/contributions', {
      json: {
        results: [
          { contributor: { name: 'Ann', address: { city: 'Oslo' } }, amount: 250 },
          { contributor: { name: 'Bob' }, amount: 10.5 },
        ],
        pagination: { next: 'page-2' },
      },
    });

    const result = await search({ org: 'acme west', contributor_name: 'A&B', min_amount: '100' });

    expect(result).toEqual({
      results: [
        { donor: 'Ann', amount: 250, city: 'Oslo' },
        { donor: 'Bob', amount: 10.5, city: null },
      ],
      count: 2,
      has_more: true,
      next_cursor: 'page-2',
    });
    const [req] = server.requests;
    expect(req?.path).toBe('/v1/orgs/acme%20west/contributions');
    expect(req?.query).toEqual({
      contributor_name: 'A&B',
      min_amount: '100',
      per_page: '20',
      api_key: SECRET,
    });
    expect(req?.headers.accept).toBe('application/json');
  });

  it('wraps an object at results_path as one record', async () => {
    server.route('GET', '/v1/committee/:id', (req) => ({
      json: { result: { name: `Committee ${req.params.id}` } },
    }));

    const result = await executeRestEndpoint(definition(), 'committee', { id: 'C001' }, CREDS);

    expect(result).toEqual({ results: [{ name: 'Committee C001' }], count: 1 });
  });

  it('sends the api key in a header when configured, and static headers', async () => {
    server.route('GET', '/v1/orgs/:org/contributions', { json: { results: [] } });
    const def = definition((d) => {
      d.connection.auth = { type: 'api_key', in: 'header', header_name: 'X-Api-Key' };
      d.connection.headers = { 'X-Client': 'agent-factory' };
    });

    await search({ org: 'o' }, {}, def);

    const [req] = server.requests;
    expect(req?.headers['x-api-key']).toBe(SECRET);
    expect(req?.headers['x-client']).toBe('agent-factory');
    expect(req?.query.api_key).toBeUndefined();
  });

  it('sends a bearer token', async () => {
    server.route('GET', '/v1/orgs/:org/contributions', { json: { results: [] } });
    const def = definition((d) => (d.connection.auth = { type: 'bearer_token' }));

    await executeRestEndpoint(def, 'search', { org: 'o' }, { token: 'tok-1' });

    expect(server.requests[0]?.headers.authorization).toBe('Bearer tok-1');
  });

  it('uses an injected fetch', async () => {
    server.route('GET', '/v1/orgs/:org/contributions', { json: { results: [{ amount: 1 }] } });
    const calls: string[] = [];
    const fetch = ((url: string, opts: never) => {
      calls.push(new URL(url).pathname);
      return request(url, opts);
    }) as unknown as typeof request;

    const result = await search({ org: 'o' }, { fetch });

    expect(calls).toEqual(['/v1/orgs/o/contributions']);
    expect(result.count).toBe(1);
  });

  it('reads answers with the client\'s `text` when it has one, passing the limits, and maps its answers as usual', async () => {
    const seen: Array<{ url: string; limits: unknown }> = [];
    const answers = [
      { statusCode: 200, headers: {}, text: '\ufeff{"results":[{"amount":7}]}' },
      { statusCode: 404, headers: {}, text: '{"error":"no such org"}' },
    ];
    const fetch = Object.assign(
      (() => Promise.reject(new Error('the body stream path must not be used'))) as unknown as typeof request,
      {
        text: (url: string | URL, _opts: unknown, limits: unknown) => {
          seen.push({ url: String(url), limits });
          return Promise.resolve(answers.shift()!);
        },
      },
    );

    const result = await search({ org: 'o' }, { fetch, maxResponseBytes: 2048 });
    expect(result).toMatchObject({ count: 1 });
    expect(seen[0]).toEqual({
      url: expect.stringContaining('/v1/orgs/o/contributions'),
      limits: { maxBytes: 2048, errorBytes: 4096, label: expect.any(String) },
    });

    const err = await failure(search({ org: 'o' }, { fetch }));
    expect(err.code).toBe('NOT_FOUND');
    expect(err.message).toContain('no such org');
  });

  it('refuses bad inputs before sending anything', async () => {
    const err = await failure(search({ min_amount: 'lots' }));

    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations.map((v) => v.field)).toEqual(['inputs.org', 'inputs.min_amount']);
    expect(server.requests).toHaveLength(0);
  });

  it('UNIMPLEMENTED for connector types it cannot execute', async () => {
    const parsed = parseConnectorDefinition({
      id: 'gh',
      name: 'GitHub',
      type: 'graphql',
      connection: { endpoint: `${server.url}/graphql` },
      endpoints: { q: { query: '{ x }' } },
    });
    if (!parsed.ok) throw new Error('fixture');

    const err = await failure(executeRestEndpoint(parsed.definition, 'q', {}, {}));

    expect(err).toMatchObject({ code: 'UNIMPLEMENTED', grpcStatusName: 'UNIMPLEMENTED' });
  });

  describe('upstream errors', () => {
    it.each([
      [401, 'AUTH_FAILED', false, 'FAILED_PRECONDITION'],
      [403, 'AUTH_FAILED', false, 'FAILED_PRECONDITION'],
      [500, 'UNAVAILABLE', true, 'UNAVAILABLE'],
      [502, 'UNAVAILABLE', true, 'UNAVAILABLE'],
      [400, 'INVALID_ARGUMENT', false, 'INVALID_ARGUMENT'],
      [422, 'INVALID_ARGUMENT', false, 'INVALID_ARGUMENT'],
      [404, 'NOT_FOUND', false, 'NOT_FOUND'],
      [409, 'UPSTREAM_ERROR', false, 'FAILED_PRECONDITION'],
      [408, 'TIMEOUT', true, 'DEADLINE_EXCEEDED'],
    ])('HTTP %i → %s', async (status, code, retryable, grpc) => {
      server.route('GET', '/v1/orgs/:org/contributions', { status, json: { message: 'upstream says no' } });

      const err = await failure(search());

      expect(err).toMatchObject({ code, retryable, status, grpcStatusName: grpc });
      expect(err.message).toContain(`HTTP ${status} from ${server.url}/v1/orgs/acme/contributions`);
      expect(err.message).toContain('upstream says no');
    });

    it('429 → RATE_LIMIT carrying Retry-After', async () => {
      server.route('GET', '/v1/orgs/:org/contributions', {
        status: 429,
        headers: { 'retry-after': '12' },
        body: '',
      });

      const err = await failure(search());

      expect(err).toMatchObject({
        code: 'RATE_LIMIT',
        retryable: true,
        status: 429,
        retryAfterMs: 12_000,
        grpcStatusName: 'RESOURCE_EXHAUSTED',
      });
    });

    it('does not follow redirects (the api key would go wherever Location points)', async () => {
      server.route('GET', '/v1/orgs/:org/contributions', {
        status: 302,
        headers: { location: `${server.url}/elsewhere` },
      });
      server.route('GET', '/elsewhere', { json: { results: [] } });

      const err = await failure(search());

      expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', status: 302 });
      expect(server.count('GET', '/elsewhere')).toBe(0);
    });

    it('UNAVAILABLE when nothing listens', async () => {
      const url = CLOSED_PORT_URL;

      const err = await failure(
        search(
          { org: 'o' },
          {},
          definition(() => {}, url),
        ),
      );

      expect(err).toMatchObject({ code: 'UNAVAILABLE', retryable: true, status: undefined });
      expect(err.message).toContain(`could not reach ${url}/orgs/o/contributions`);
    });

    it('UNAVAILABLE when the connection drops mid-answer', async () => {
      server.route('GET', '/v1/orgs/:org/contributions', (_req, { res }) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"results": [');
        res.socket?.destroy();
      });

      expect((await failure(search())).code).toBe('UNAVAILABLE');
    });

    it('UPSTREAM_ERROR when the body exceeds maxResponseBytes', async () => {
      server.route('GET', '/v1/orgs/:org/contributions', {
        json: { results: Array(100).fill({ amount: 1 }) },
      });

      const err = await failure(search({ org: 'o' }, { maxResponseBytes: 256 }));

      expect(err).toMatchObject({
        code: 'UPSTREAM_ERROR',
        message: expect.stringContaining('larger than 256 bytes'),
      });
    });
  });

  describe('body reading', () => {
    const body = JSON.stringify({ results: [{ amount: 7, contributor: { name: 'Zoë' } }] });

    it('reads a body with a Content-Length in one go, the same as a chunked one', async () => {
      server.route('GET', '/v1/orgs/:org/contributions', {
        body,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      });
      const sized = await search();
      server.route('GET', '/v1/orgs/:org/contributions', {
        body,
        headers: { 'content-type': 'application/json' },
      });
      const chunked = await search();

      expect(sized).toEqual({
        results: [{ donor: 'Zoë', amount: 7, city: null }],
        count: 1,
        has_more: false,
      });
      expect(chunked).toEqual(sized);
    });

    it('refuses a declared Content-Length over maxResponseBytes without reading the body', async () => {
      const big = JSON.stringify({ results: Array(100).fill({ amount: 1 }) });
      server.route('GET', '/v1/orgs/:org/contributions', {
        body: big,
        headers: { 'content-length': String(Buffer.byteLength(big)) },
      });

      const err = await failure(search({ org: 'o' }, { maxResponseBytes: 256 }));

      expect(err).toMatchObject({
        code: 'UPSTREAM_ERROR',
        message: expect.stringContaining('larger than 256 bytes'),
      });
    });

    it('keeps the cap for a body that sends more than the cap in many small chunks', async () => {
      server.route('GET', '/v1/orgs/:org/contributions', (_req, { res }) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        for (let i = 0; i < 40; i++) res.write('{"padding": "xxxxxxxxxxxxxxxxxxxx"} ');
        res.end();
      });

      const err = await failure(search({ org: 'o' }, { maxResponseBytes: 300 }));

      expect(err).toMatchObject({
        code: 'UPSTREAM_ERROR',
        message: expect.stringContaining('larger than 300 bytes'),
      });
    });

    it('ignores a UTF-8 byte order mark before the JSON, with and without Content-Length', async () => {
      const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]);
      const variants: Array<Record<string, string>> = [{}, { 'content-length': String(withBom.length) }];
      for (const headers of variants) {
        server.route('GET', '/v1/orgs/:org/contributions', { body: withBom, headers });
        expect(await search()).toMatchObject({ count: 1, results: [{ donor: 'Zoë' }] });
      }
    });
  });

  describe('malformed responses (seed §10: empty result and a warning)', () => {
    it('returns no records and a warning for a body that is not JSON', async () => {
      server.route('GET', '/v1/orgs/:org/contributions', {
        body: '<html>oops</html>',
        headers: { 'content-type': 'text/html' },
      });

      const result = await search();

      expect(result).toEqual({
        results: [],
        count: 0,
        warnings: [expect.stringContaining('is not valid JSON')],
      });
    });

    it('warns on an empty 200 body but not on 204', async () => {
      server.route('GET', '/v1/orgs/:org/contributions', { status: 200, body: '' });
      expect((await search()).warnings).toEqual([expect.stringContaining('empty')]);

      server.route('GET', '/v1/orgs/:org/contributions', { status: 204 });
      expect(await search()).toEqual({ results: [], count: 0 });
    });

    it('warns when results_path is missing from a valid JSON body', async () => {
      server.route('GET', '/v1/orgs/:org/contributions', { json: { data: [] } });

      expect((await search()).warnings).toEqual([
        expect.stringContaining('results_path "results" was not found'),
      ]);
    });
  });

  describe('timeouts and cancellation', () => {
    it('TIMEOUT after connection.timeout_seconds while the upstream holds the request', async () => {
      server.route('GET', '/v1/orgs/:org/contributions', { json: { results: [] } });
      server.hold('GET', '/v1/orgs/:org/contributions');
      // Long enough for the request to reach the server first, even on a loaded machine.
      const def = definition((d) => (d.connection.timeout_seconds = 0.5));

      const err = await failure(search({ org: 'o' }, {}, def));

      expect(err).toMatchObject({ code: 'TIMEOUT', retryable: true, grpcStatusName: 'DEADLINE_EXCEEDED' });
      expect(err.message).toContain('within 500 ms');
      expect(server.count('GET', '/v1/orgs/o/contributions')).toBe(1);
    });

    it('calls due at the same moment time out together, each on its own, and others are untouched', async () => {
      const gate = server.hold('GET', '/v1/orgs/:org/contributions');
      server.route('GET', '/v1/orgs/:org/contributions', { json: { results: [] } });
      server.route('GET', '/v1/committee/:id', { json: { result: { name: 'fast' } } });
      const started = Date.now();

      // Long enough that the fast call answers well inside it even on a loaded machine.
      const slow = [1, 2, 3].map(() => failure(search({ org: 'o' }, { timeoutMs: 800 })));
      const fast = executeRestEndpoint(definition(), 'committee', { id: '1' }, CREDS, { timeoutMs: 800 });

      expect(await fast).toEqual({ results: [{ name: 'fast' }], count: 1 });
      for (const err of await Promise.all(slow)) {
        expect(err).toMatchObject({ code: 'TIMEOUT', message: expect.stringContaining('within 800 ms') });
      }
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(790);
      expect(elapsed).toBeLessThan(10_000);
      gate.release();
    });

    it('deps.timeoutMs overrides the definition', async () => {
      server.route('GET', '/v1/orgs/:org/contributions', { json: { results: [] } });
      server.hold('GET', '/v1/orgs/:org/contributions');

      const err = await failure(search({ org: 'o' }, { timeoutMs: 30 }));

      expect(err).toMatchObject({ code: 'TIMEOUT', message: expect.stringContaining('within 30 ms') });
    });

    it('TIMEOUT covers a body that stops arriving after the headers', async () => {
      server.route('GET', '/v1/orgs/:org/contributions', (_req, { res }) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"results": [');
      });

      expect((await failure(search({ org: 'o' }, { timeoutMs: 50 }))).code).toBe('TIMEOUT');
    });

    it('refuses a timeout that is not a positive number, before sending', async () => {
      for (const timeoutMs of [0, -1, Number.NaN]) {
        expect((await failure(search({ org: 'o' }, { timeoutMs }))).code).toBe('INVALID_ARGUMENT');
      }
      expect(server.requests).toHaveLength(0);
    });

    it('CANCELLED when the caller aborts mid-request', async () => {
      server.route('GET', '/v1/orgs/:org/contributions', { json: { results: [] } });
      const gate = server.hold('GET', '/v1/orgs/:org/contributions');
      const controller = new AbortController();

      const pending = failure(search({ org: 'o' }, { signal: controller.signal }));
      await gate.arrived();
      controller.abort();

      expect(await pending).toMatchObject({ code: 'CANCELLED', retryable: false });
    });

    it('CANCELLED without sending when the signal is already aborted', async () => {
      const err = await failure(search({ org: 'o' }, { signal: AbortSignal.abort() }));

      expect(err.code).toBe('CANCELLED');
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('credentials never appear in errors', () => {
    /** An upstream that echoes the key back, as some APIs do in their error bodies. */
    const echo =
      (status: number) =>
      (req: { query: Record<string, unknown>; headers: Record<string, unknown>; url: string }) => ({
        status,
        headers: { 'retry-after': '1' },
        json: { error: `invalid key ${String(req.query.api_key ?? req.headers['x-api-key'])}`, url: req.url },
      });

    const forms = [SECRET, encodeURIComponent(SECRET)];
    const expectClean = (err: ConnectorError) => {
      const printed = [
        err.message,
        JSON.stringify(err),
        JSON.stringify(err.violations),
        String(err.stack),
      ].join('\n');
      for (const form of forms) expect(printed).not.toContain(form);
    };

    it.each([400, 401, 403, 404, 409, 429, 500, 503])(
      'when HTTP %i echoes the key in its body',
      async (status) => {
        server.route('GET', '/v1/orgs/:org/contributions', echo(status));

        const err = await failure(search());

        expect(err.message).toContain('[REDACTED]');
        expectClean(err);
      },
    );

    it('when the key travels in a header and is echoed back', async () => {
      server.route('GET', '/v1/orgs/:org/contributions', echo(401));
      const def = definition(
        (d) => (d.connection.auth = { type: 'api_key', in: 'header', header_name: 'X-Api-Key' }),
      );

      expectClean(await failure(search({ org: 'o' }, {}, def)));
    });

    it('when a large error body is cut off in the middle of an echoed key', async () => {
      for (const padding of ['x'.repeat(4090), ' '.repeat(4090)]) {
        server.route('GET', '/v1/orgs/:org/contributions', {
          status: 500,
          body: `${padding}${SECRET}${SECRET}`,
        });

        const err = await failure(search());

        expect(err.code).toBe('UNAVAILABLE');
        expectClean(err);
        expect(err.message).not.toContain(SECRET.slice(0, 6));
      }
    });

    it('when the caller passes an input named like the key', async () => {
      const err = await failure(search({ org: 'o', [SECRET]: 1 }));

      expect(err.code).toBe('INVALID_ARGUMENT');
      expect(err.violations[0]?.field).toBe('inputs.[REDACTED]');
      expectClean(err);
    });

    it('on timeout, cancellation, network failure, bad input and a missing credential', async () => {
      server.route('GET', '/v1/orgs/:org/contributions', { json: {} });
      server.hold('GET', '/v1/orgs/:org/contributions');
      const goneUrl = CLOSED_PORT_URL;

      const errors = [
        await failure(search({ org: 'o' }, { timeoutMs: 20 })),
        await failure(search({ org: 'o' }, { signal: AbortSignal.abort() })),
        await failure(
          search(
            { org: 'o' },
            {},
            definition(() => {}, goneUrl),
          ),
        ),
        await failure(search({ org: SECRET, min_amount: 'x' })),
        await failure(executeRestEndpoint(definition(), 'search', { org: 'o' }, { token: SECRET })),
      ];

      expect(errors.map((e) => e.code)).toEqual([
        'TIMEOUT',
        'CANCELLED',
        'UNAVAILABLE',
        'INVALID_ARGUMENT',
        'FAILED_PRECONDITION',
      ]);
      errors.forEach(expectClean);
    });
  });
});

describe('methods and bodies', () => {
  function writeDef(method: string, extra: Record<string, any> = {}): ConnectorDefinition {
    return definition((d) => {
      d.endpoints.write = {
        method,
        path: '/items/{id}',
        parameters: [
          { name: 'id', type: 'string', required: true },
          { name: 'title', type: 'string' },
        ],
        ...extra,
      };
    });
  }

  it('sends a JSON body and maps the JSON answer', async () => {
    server.route('PUT', '/v1/items/:id', (req) => ({
      status: 200,
      json: { id: req.params.id, echo: JSON.parse(req.body) },
    }));

    const result = await executeRestEndpoint(writeDef('PUT'), 'write', { id: '7', title: 'T' }, CREDS);

    expect(result).toEqual({ results: [{ id: '7', echo: { title: 'T' } }], count: 1 });
    expect(server.requests[0]?.headers['content-type']).toBe('application/json');
  });

  it('an empty answer to a write is no records and no warning', async () => {
    server.route('DELETE', '/v1/items/:id', { status: 200, body: '' });
    server.route('POST', '/v1/items/:id', { status: 202, body: '' });

    expect(await executeRestEndpoint(writeDef('DELETE'), 'write', { id: '1' }, CREDS)).toEqual({
      results: [],
      count: 0,
    });
    expect(await executeRestEndpoint(writeDef('POST'), 'write', { id: '1' }, CREDS)).toEqual({
      results: [],
      count: 0,
    });
  });

  it('HEAD answers become one { status, headers } record (no cookies), mappable', async () => {
    server.route('HEAD', '/v1/items/:id', {
      status: 200,
      headers: { 'x-total': '42', 'set-cookie': 'session=secret', etag: '"abc"' },
    });
    const plain = await executeRestEndpoint(writeDef('HEAD'), 'write', { id: '1' }, CREDS);
    expect(plain.count).toBe(1);
    expect(plain.results[0]).toMatchObject({ status: 200, headers: { 'x-total': '42', etag: '"abc"' } });
    expect(JSON.stringify(plain)).not.toContain('session=secret');

    const mapped = await executeRestEndpoint(
      writeDef('HEAD', { response_mapping: { fields: { total: 'headers.x-total', status: 'status' } } }),
      'write',
      { id: '1' },
      CREDS,
    );
    expect(mapped).toEqual({ results: [{ total: '42', status: 200 }], count: 1 });
  });
});

describe('runtime pagination loop', () => {
  function pagedDef(pagination: Record<string, unknown>): ConnectorDefinition {
    return definition((d) => {
      d.endpoints.list = {
        path: '/list',
        parameters: [{ name: 'q', type: 'string' }],
        pagination,
        response_mapping: { results_path: 'items' },
      };
    });
  }
  /** Page n (1-based) of `pages` pages of `size` items each. */
  const pageHandler = (pages: number, size: number) => (req: { query: Record<string, unknown> }) => {
    const n = Number(req.query.page ?? 1);
    return {
      json: { items: n <= pages ? Array.from({ length: size }, (_, i) => ({ id: `${n}.${i}` })) : [] },
    };
  };

  it('concatenates the pages in order and says has_more: false at the natural end', async () => {
    server.route('GET', '/v1/list', pageHandler(3, 2));

    const result = await executeRestEndpoint(pagedDef({ type: 'page_number' }), 'list', { q: 'x' }, CREDS);

    expect(result.results.map((r) => r.id)).toEqual(['1.0', '1.1', '2.0', '2.1', '3.0', '3.1']);
    expect(result).toMatchObject({ count: 6, has_more: false });
    expect(result.warnings).toBeUndefined();
    expect(server.requests.map((r) => r.query.page)).toEqual(['1', '2', '3', '4']);
    expect(server.requests.every((r) => r.query.q === 'x' && r.query.api_key === SECRET)).toBe(true);
  });

  it('tells onPage after each page: the page, its records and the records so far', async () => {
    server.route('GET', '/v1/list', pageHandler(2, 3));
    const seen: unknown[] = [];

    await executeRestEndpoint(pagedDef({ type: 'page_number' }), 'list', { q: 'x' }, CREDS, { onPage: (p) => seen.push(p) });

    expect(seen).toEqual([
      { page: 1, records: 3, totalRecords: 3 },
      { page: 2, records: 3, totalRecords: 6 },
      { page: 3, records: 0, totalRecords: 6 },
    ]);
  });

  it('the max_pages guard stops a loop that had more: has_more: true and a warning', async () => {
    server.route('GET', '/v1/list', pageHandler(100, 1));

    const result = await executeRestEndpoint(
      pagedDef({ type: 'page_number', max_pages: 3 }),
      'list',
      {},
      CREDS,
    );

    expect(result).toMatchObject({ count: 3, has_more: true });
    expect(result.warnings).toEqual([
      expect.stringContaining('stopped after 3 pages (pagination.max_pages is 3)'),
    ]);
    expect(server.requests).toHaveLength(3);
  });

  it('defaults max_pages to 10', async () => {
    server.route('GET', '/v1/list', pageHandler(100, 1));
    const result = await executeRestEndpoint(pagedDef({ type: 'page_number' }), 'list', {}, CREDS);
    expect(result).toMatchObject({ count: 10, has_more: true });
  });

  it('no warning when the last allowed page is also the last page', async () => {
    server.route('GET', '/v1/list', (req) => ({
      json: { items: req.query.page === '1' ? [{ id: 1 }, { id: 2 }] : [{ id: 3 }] },
    }));
    const result = await executeRestEndpoint(
      pagedDef({ type: 'page_number', max_pages: 2, page_size_param: 'n', page_size: 2 }),
      'list',
      {},
      CREDS,
    );
    expect(result).toEqual({ results: [{ id: 1 }, { id: 2 }, { id: 3 }], count: 3, has_more: false });
    expect(server.requests.map((r) => r.query)).toEqual([
      { page: '1', n: '2', api_key: SECRET },
      { page: '2', n: '2', api_key: SECRET },
    ]);
  });

  it('stops at the byte budget with has_more: true', async () => {
    server.route('GET', '/v1/list', pageHandler(100, 50));
    const result = await executeRestEndpoint(pagedDef({ type: 'page_number' }), 'list', {}, CREDS, {
      maxTotalBytes: 1500,
    });
    expect(result.has_more).toBe(true);
    expect(result.warnings).toEqual([expect.stringContaining('more than 1500 bytes')]);
    expect(server.requests.length).toBeLessThan(10);
  });

  it('a malformed later page stops the loop with the records so far, has_more: true and warnings', async () => {
    server.route('GET', '/v1/list', (req) =>
      req.query.page === '2' ? { body: '<html>' } : { json: { items: [{ id: req.query.page }] } },
    );
    const result = await executeRestEndpoint(pagedDef({ type: 'page_number' }), 'list', {}, CREDS);
    expect(result).toMatchObject({ results: [{ id: '1' }], count: 1, has_more: true });
    expect(result.warnings).toEqual([
      expect.stringContaining('is not valid JSON'),
      expect.stringContaining('stopped paging at page 2'),
    ]);
  });

  it('a malformed first page is no records, has_more: false and a warning', async () => {
    server.route('GET', '/v1/list', { body: 'nope' });
    const result = await executeRestEndpoint(pagedDef({ type: 'page_number' }), 'list', {}, CREDS);
    expect(result).toEqual({
      results: [],
      count: 0,
      has_more: false,
      warnings: [expect.stringContaining('not valid JSON')],
    });
  });

  it('an empty body ends the listing; a repeated per-page warning is reported once', async () => {
    server.route('GET', '/v1/list', (req) =>
      req.query.page === '3' ? { status: 204 } : { json: { other: 1 } },
    );
    // results_path is missing on every page: those pages are empty, so the loop ends after page 1.
    const result = await executeRestEndpoint(pagedDef({ type: 'page_number' }), 'list', {}, CREDS);
    expect(result).toEqual({
      results: [],
      count: 0,
      has_more: false,
      warnings: [expect.stringContaining('results_path "items" was not found')],
    });
  });

  it('an error on a later page fails the whole call (no silent partial result)', async () => {
    server.route('GET', '/v1/list', (req) =>
      req.query.page === '2' ? { status: 503 } : { json: { items: [{ id: 1 }] } },
    );
    const err = await failure(executeRestEndpoint(pagedDef({ type: 'page_number' }), 'list', {}, CREDS));
    expect(err.code).toBe('UNAVAILABLE');
  });

  it('one deadline covers all pages', async () => {
    server.route('GET', '/v1/list', (req) => ({ json: { items: [{ id: req.query.page }] }, delayMs: 80 }));
    const err = await failure(
      executeRestEndpoint(pagedDef({ type: 'page_number' }), 'list', {}, CREDS, { timeoutMs: 200 }),
    );
    expect(err.code).toBe('TIMEOUT');
  });
});

describe('oauth2 in the executor', () => {
  function oauthDef(): ConnectorDefinition {
    return definition((d) => {
      d.connection.auth = {
        type: 'oauth2',
        grant_type: 'client_credentials',
        token_url: `${server.url}/oauth/token`,
      };
    });
  }
  const OAUTH_CREDS = { client_id: 'cid', client_secret: 'csecret-XYZ' };

  it('FAILED_PRECONDITION without a token store, before any request', async () => {
    const err = await failure(executeRestEndpoint(oauthDef(), 'committee', { id: '1' }, OAUTH_CREDS));
    expect(err).toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: expect.stringContaining('no OAuth token store'),
    });
    expect(server.requests).toHaveLength(0);
  });

  it('retries once after a 401 with a new token; a second 401 is AUTH_FAILED', async () => {
    let issued = 0;
    server.route('POST', '/oauth/token', () => ({
      json: { access_token: `tok-${++issued}`, expires_in: 3600 },
    }));
    server.route('GET', '/v1/committee/:id', (req) =>
      req.headers.authorization === 'Bearer tok-2' ? { json: { result: { name: 'ok' } } } : { status: 401 },
    );
    const oauth = new InMemoryOAuthTokenCache();

    expect(await executeRestEndpoint(oauthDef(), 'committee', { id: '1' }, OAUTH_CREDS, { oauth })).toEqual({
      results: [{ name: 'ok' }],
      count: 1,
    });
    expect(server.count('POST', '/oauth/token')).toBe(2);
    expect(server.count('GET', '/v1/committee/:id')).toBe(2);

    server.route('GET', '/v1/committee/:id', { status: 401, json: { error: 'token tok-3 revoked' } });
    const err = await failure(
      executeRestEndpoint(oauthDef(), 'committee', { id: '1' }, OAUTH_CREDS, { oauth }),
    );
    expect(err.code).toBe('AUTH_FAILED');
    // tok-2 refused → one refresh (tok-3) → refused again → no further refresh.
    expect(server.count('POST', '/oauth/token')).toBe(3);
    expect(err.message).not.toContain('tok-3');
  });

  it('a 403 is not retried (only 401 means the token may be stale)', async () => {
    server.route('POST', '/oauth/token', { json: { access_token: 'tok', expires_in: 3600 } });
    server.route('GET', '/v1/committee/:id', { status: 403 });
    const err = await failure(
      executeRestEndpoint(oauthDef(), 'committee', { id: '1' }, OAUTH_CREDS, {
        oauth: new InMemoryOAuthTokenCache(),
      }),
    );
    expect(err.code).toBe('AUTH_FAILED');
    expect(server.count('POST', '/oauth/token')).toBe(1);
  });

  it('TIMEOUT names the token endpoint when that is what hangs', async () => {
    server.hold('POST', '/oauth/token');
    const err = await failure(
      executeRestEndpoint(oauthDef(), 'committee', { id: '1' }, OAUTH_CREDS, {
        oauth: new InMemoryOAuthTokenCache(),
        timeoutMs: 150,
      }),
    );
    expect(err.code).toBe('TIMEOUT');
    expect(err.message).toContain(`${server.url}/oauth/token`);
  });
});
