/**
 * The whole call path (CallPipeline, as bootstrap.ts wires it) against real
 * parts. Real: PostgreSQL (shared rate limits, circuit breaker, response
 * cache), the fixture HTTP server, undici through the SSRF guard. Faked: the
 * plugin invoker of an `existing_tool` connector (to see what a call hands
 * it), and the logger (to read what it was told).
 */
import { openDatabase, type Logger } from '@af/service-kit';
import { createTestDatabase, startFixtureServer, type FixtureServer, type TestDatabase } from '@af/testing';
import type { DataSource } from 'typeorm';
import { CallPipeline, type CallPipelineDeps, type PipelineCall } from '../../src/app/call-pipeline.js';
import { parseConnectorDefinition } from '@af/connectors';
import { ConnectorError } from '@af/connectors';
import type { ConnectorDefinition } from '@af/connectors';
import { connectorKey } from '@af/connectors';
import { CircuitBreaker, CircuitBreakerStore } from '../../src/infra/circuit-breaker.store.js';
import { createEgressGuard, type EgressGuard } from '../../src/infra/guarded-http.js';
import { CONNECTOR_RUNTIME_MIGRATIONS } from '../../src/infra/migrations/index.js';
import { RateLimiter } from '../../src/infra/rate-limiter.js';
import { ResponseCache } from '../../src/infra/response-cache.js';
import { failure } from '@af/connectors/testing';

let db: TestDatabase;
let pool: DataSource;
let otherReplica: DataSource;
let server: FixtureServer;
let refusedServer: FixtureServer;
let egress: EgressGuard;

beforeAll(async () => {
  db = await createTestDatabase();
  const open = () => openDatabase({ url: db.url, schema: 'connector_runtime', migrations: CONNECTOR_RUNTIME_MIGRATIONS, poolSize: 4 });
  pool = await open();
  otherReplica = await open();
  server = await startFixtureServer();
  refusedServer = await startFixtureServer();
  egress = createEgressGuard({ allow: `127.0.0.1:${server.port}` });
});

afterAll(async () => {
  await egress?.close();
  await server?.close();
  await refusedServer?.close();
  await pool?.destroy();
  await otherReplica?.destroy();
  await db?.drop();
});

beforeEach(() => {
  server.reset();
  refusedServer.reset();
});

interface Logged {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

function pipeline(context: CallPipelineDeps['context'] = {}) {
  const logged: Logged[] = [];
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => logged.push({ level, fields, message });
  const log = { trace: at('trace'), debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), fatal: at('fatal') } as unknown as Logger;
  const breaker = new CircuitBreaker(new CircuitBreakerStore(pool), { failureThreshold: 3, recoveryMs: 60_000, syncMs: 1000 });
  const limiter = new RateLimiter(pool, { leaseMs: 100 });
  const calls = new CallPipeline({ egress, limiter, breaker, cache: new ResponseCache(pool), log, maxWaitMs: 200, context });
  return { calls, breaker, limiter, logged };
}

const noop = () => undefined;
const silentLog = { trace: noop, debug: noop, info: noop, warn: noop, error: noop, fatal: noop } as unknown as Logger;

let n = 0;
function restConnector(options: { baseUrl?: string; rateLimit?: Record<string, number>; cacheTtlSeconds?: number } = {}): ConnectorDefinition {
  const parsed = parseConnectorDefinition({
    id: `fec-${++n}`,
    name: 'FEC',
    type: 'rest_api',
    connection: {
      base_url: `${options.baseUrl ?? server.url}/v1`,
      auth: { type: 'api_key', key_param: 'api_key', in: 'query' },
      timeout_seconds: 5,
      ...(options.rateLimit ? { rate_limit: options.rateLimit } : {}),
    },
    endpoints: {
      search: {
        method: 'GET',
        path: '/search',
        parameters: [{ name: 'q', type: 'string', required: true }],
        response_mapping: { results_path: 'results', fields: { name: 'contributor.name', amount: 'amount' } },
        ...(options.cacheTtlSeconds ? { cache_ttl_seconds: options.cacheTtlSeconds } : {}),
      },
    },
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.definition;
}

const page = { results: [{ contributor: { name: 'SMITH, JO' }, amount: 250 }] };
const call = (def: ConnectorDefinition, extra: Partial<PipelineCall> = {}): PipelineCall => ({
  ownerUserId: 'alice',
  def,
  endpoint: 'search',
  inputs: { q: 'smith' },
  credentials: { api_key: 'sk-live-42' },
  ...extra,
});


describe('CallPipeline', () => {
  it('calls the upstream through the guard and maps the answer, call after call', async () => {
    server.route('GET', '/v1/search', { json: page });
    const { calls } = pipeline();
    const def = restConnector({ rateLimit: { requests_per_second: 1000 } });
    for (let i = 0; i < 3; i++) {
      expect(await calls.call(call(def))).toEqual({ results: [{ name: 'SMITH, JO', amount: 250 }], count: 1 });
    }
    const sent = server.requestsTo('GET', '/v1/search');
    expect(sent).toHaveLength(3);
    expect(sent[0]!.query).toEqual({ q: 'smith', api_key: 'sk-live-42' });
    expect(sent[0]!.headers.accept).toBe('application/json');
  });

  it('retries a 5xx once and succeeds, logging the retry without the key', async () => {
    let answered = 0;
    server.route('GET', '/v1/search', () => (++answered === 1 ? { status: 503, json: { error: 'busy' } } : { json: page }));
    const { calls, logged } = pipeline();
    expect((await calls.call(call(restConnector()))).count).toBe(1);
    expect(answered).toBe(2);
    const retry = logged.find((l) => l.message === 'retrying connector call');
    expect(retry?.fields).toMatchObject({ kind: 'upstream_unavailable', code: 'UNAVAILABLE', attempt: 1 });
    expect(JSON.stringify(logged)).not.toContain('sk-live-42');
  });

  it('notes a 429 Retry-After in the shared bucket (another replica sees the block), waits it out and retries', async () => {
    let answered = 0;
    server.route('GET', '/v1/search', () => (++answered === 1 ? { status: 429, headers: { 'retry-after': '1' }, json: {} } : { json: page }));
    const { calls } = pipeline();
    const def = restConnector();
    const started = performance.now();
    const done = calls.call(call(def));
    // once the 429 is in, the block is shared: a limiter on another pool (replica) is refused
    // (asked until it is, well within the second the call waits before its retry)
    const elsewhere = new RateLimiter(otherReplica, { leaseMs: 0 });
    let refusal: unknown;
    while (!refusal && performance.now() - started < 900) {
      refusal = await elsewhere.acquire(connectorKey('alice', def.id), {}, { maxWaitMs: 0 }).then(
        () => undefined,
        (e: unknown) => e,
      );
    }
    expect(refusal).toBeInstanceOf(ConnectorError);
    expect((refusal as ConnectorError).code).toBe('RATE_LIMIT');
    expect(answered).toBe(1);
    expect((await done).count).toBe(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    expect(answered).toBe(2);
  });

  it('opens the breaker after repeated failures and then refuses at once, without calling or retrying', async () => {
    server.route('GET', '/v1/search', { status: 502, json: {} });
    const { calls, breaker } = pipeline();
    const def = restConnector();
    // each call is two failed attempts (the one retry of a 5xx); the third failure opens the breaker
    expect((await failure(calls.call(call(def)))).status).toBe(502);
    expect((await failure(calls.call(call(def)))).code).toBe('UNAVAILABLE');
    const sentBefore = server.count('GET', '/v1/search');
    expect(sentBefore).toBe(3);
    expect(breaker.cached(connectorKey('alice', def.id))?.state).toBe('open');
    const refused = await failure(calls.call(call(def)));
    expect(refused.code).toBe('UNAVAILABLE');
    expect(refused.status).toBeUndefined();
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(server.count('GET', '/v1/search')).toBe(sentBefore);
  });

  it('refuses a destination the egress policy does not allow: FAILED_PRECONDITION, nothing sent, not retried, not a breaker failure', async () => {
    refusedServer.route('GET', '/v1/search', { json: page });
    const { calls, breaker, logged } = pipeline();
    const def = restConnector({ baseUrl: refusedServer.url });
    for (let i = 0; i < 4; i++) {
      const err = await failure(calls.call(call(def)));
      expect(err.code).toBe('FAILED_PRECONDITION');
      expect(err.message).toContain(`egress to 127.0.0.1:${refusedServer.port} refused`);
      expect(err.message).not.toContain('sk-live-42');
    }
    expect(refusedServer.requests).toHaveLength(0);
    expect(logged.filter((l) => l.message === 'retrying connector call')).toHaveLength(0);
    expect(breaker.cached(connectorKey('alice', def.id))?.state ?? 'closed').toBe('closed');
  });

  it("an owner-scoped exception opens for its owner's connector only: another user's connector of the same id is refused", async () => {
    refusedServer.route('GET', '/v1/search', { json: page });
    const def = restConnector({ baseUrl: refusedServer.url });
    const scoped = createEgressGuard({ allow: `alice/${def.id}=127.0.0.1:${refusedServer.port}` });
    try {
      const { limiter, breaker } = pipeline();
      const calls = new CallPipeline({ egress: scoped, limiter, breaker, cache: new ResponseCache(pool), log: silentLog, maxWaitMs: 200, context: {} });
      expect((await calls.call(call(def))).count).toBe(1);
      const err = await failure(calls.call(call(def, { ownerUserId: 'bob' })));
      expect(err.code).toBe('FAILED_PRECONDITION');
      expect(err.message).toContain(`egress to 127.0.0.1:${refusedServer.port} refused: 127.0.0.1 is a loopback address`);
      expect(refusedServer.count('GET', '/v1/search')).toBe(1);
    } finally {
      await scoped.close();
    }
  });

  it('a binding rate limit refuses the call beyond it (RATE_LIMIT with retryAfterMs), not retried', async () => {
    server.route('GET', '/v1/search', { json: page });
    const { calls, logged } = pipeline();
    const def = restConnector();
    const bound = call(def, { binding: { agentProfileId: 'researcher', rateLimitPerMinute: 1 } });
    expect((await calls.call(bound)).count).toBe(1);
    const err = await failure(calls.call(bound));
    expect(err.code).toBe('RATE_LIMIT');
    expect(err.message).toContain('agent profile researcher');
    expect(err.retryAfterMs).toBeGreaterThan(200);
    expect(server.count('GET', '/v1/search')).toBe(1);
    expect(logged.filter((l) => l.message === 'retrying connector call')).toHaveLength(0);
    // the connector itself (no binding) is not limited by the binding's bucket
    expect((await calls.call(call(def))).count).toBe(1);
  });

  it("takes the connector's limits from each definition object: a changed limit applies at once", async () => {
    server.route('GET', '/v1/search', { json: page });
    const { calls } = pipeline();
    const tight = restConnector({ rateLimit: { requests_per_minute: 1 } });
    expect((await calls.call(call(tight))).count).toBe(1);
    expect((await failure(calls.call(call(tight)))).code).toBe('RATE_LIMIT');
    // the same connector id, edited: a new definition object with a generous limit
    const loosened = { ...tight, connection: { ...tight.connection, rate_limit: { requests_per_second: 1000 } } } as ConnectorDefinition;
    expect((await calls.call(call(loosened))).count).toBe(1);
  });

  it('serves an endpoint with cache_ttl_seconds from the shared cache, and skips it for noCache', async () => {
    server.route('GET', '/v1/search', { json: page });
    const { calls } = pipeline();
    const def = restConnector({ cacheTtlSeconds: 60 });
    const first = await calls.call(call(def));
    expect(await calls.call(call(def))).toEqual(first);
    expect(server.count('GET', '/v1/search')).toBe(1);
    // another replica's pipeline shares the cache
    const replica = new CallPipeline({
      egress,
      limiter: new RateLimiter(otherReplica),
      breaker: new CircuitBreaker(new CircuitBreakerStore(otherReplica), { failureThreshold: 3, recoveryMs: 60_000, syncMs: 1000 }),
      cache: new ResponseCache(otherReplica),
      log: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} } as unknown as Logger,
      maxWaitMs: 200,
      context: {},
    });
    expect(await replica.call(call(def))).toEqual(first);
    expect(server.count('GET', '/v1/search')).toBe(1);
    await calls.call(call(def, { noCache: true }));
    expect(server.count('GET', '/v1/search')).toBe(2);
  });

  it('redacts a credential the upstream echoes in a successful answer, before the result is cached', async () => {
    const key = 'sk-live-echoed-4242';
    server.route('GET', '/v1/search', (req) => ({
      json: {
        results: [{ contributor: { name: `called with ${String(req.query.api_key)}` }, amount: 250 }],
        debug: { api_key: req.query.api_key },
      },
    }));
    const { calls } = pipeline();
    const def = restConnector({ cacheTtlSeconds: 60 });
    const result = await calls.call(call(def, { credentials: { api_key: key } }));
    expect(result).toEqual({ results: [{ name: 'called with [REDACTED]', amount: 250 }], count: 1 });
    // The cached copy (what another replica or a later call is served) holds no secret either.
    const rows = await pool.query('SELECT result::text AS r FROM connector_runtime.response_cache');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows as Array<{ r: string }>) expect(row.r).not.toContain(key);
    expect(await calls.call(call(def, { credentials: { api_key: key } }))).toEqual(result);
    expect(server.count('GET', '/v1/search')).toBe(1);
  });

  it('hands the type its context with the per-call fields: owner, idempotency key, timeout', async () => {
    const seen: Array<{ plugin: string; tool: string; inputs: Record<string, unknown>; options: Record<string, unknown> }> = [];
    const warnings: string[] = [];
    const { calls } = pipeline({
      invokePlugin: async (plugin, tool, inputs, options) => {
        seen.push({ plugin, tool, inputs, options: options as unknown as Record<string, unknown> });
        return { echoed: inputs.query };
      },
      warn: (message) => warnings.push(message),
    });
    const parsed = parseConnectorDefinition({
      id: 'web-search',
      name: 'Web search',
      type: 'existing_tool',
      connection: { plugin: 'search-plugin', timeout_seconds: 7 },
      endpoints: { search: { tool: 'search_web', parameters: [{ name: 'query', type: 'string', required: true }] } },
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    const result = await calls.call({
      ownerUserId: 'alice',
      def: parsed.definition,
      endpoint: 'search',
      inputs: { query: 'fec filings' },
      credentials: {},
      idempotencyKey: 'run-1:node-2:1',
    });
    expect(result).toEqual({ results: [{ echoed: 'fec filings' }], count: 1 });
    expect(seen).toEqual([
      {
        plugin: 'search-plugin',
        tool: 'search_web',
        inputs: { query: 'fec filings' },
        options: expect.objectContaining({ idempotencyKey: 'run-1:node-2:1', ownerUserId: 'alice', timeoutMs: 7000 }),
      },
    ]);
  });

  it('a cancelled call ends CANCELLED and is not retried', async () => {
    const gate = server.hold('GET', '/v1/search');
    server.route('GET', '/v1/search', { json: page });
    const { calls } = pipeline();
    const ctl = new AbortController();
    const done = failure(calls.call(call(restConnector(), { signal: ctl.signal })));
    await gate.arrived();
    ctl.abort();
    expect((await done).code).toBe('CANCELLED');
    gate.release();
    expect(server.count('GET', '/v1/search')).toBe(1);
  });
});
