/**
 * The executor against a real HTTP server (the shared fixture server): real
 * sockets, real undici, real timeouts.
 */
import { startFixtureServer, type FixtureServer } from '@af/testing';
import { request } from 'undici';
import { parseConnectorDefinition } from './connector-definition.js';
import type { ConnectorDefinition } from './connector-definition.schema.js';
import { ConnectorError } from './connector-error.js';
import { executeRestEndpoint, type RestExecutorDeps } from './rest-api-executor.js';

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

async function failure(promise: Promise<unknown>): Promise<ConnectorError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ConnectorError);
    return err as ConnectorError;
  }
  throw new Error('expected the call to fail');
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
      const def = definition((d) => (d.connection.timeout_seconds = 0.05));

      const err = await failure(search({ org: 'o' }, {}, def));

      expect(err).toMatchObject({ code: 'TIMEOUT', retryable: true, grpcStatusName: 'DEADLINE_EXCEEDED' });
      expect(err.message).toContain('within 50 ms');
      expect(server.count('GET', '/v1/orgs/o/contributions')).toBe(1);
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
