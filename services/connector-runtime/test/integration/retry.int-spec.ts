/**
 * The seed §10 failure table over real HTTP: callWithRetries around the
 * rest_api executor, through the SSRF-guarded client.
 * Real: undici, TCP, the fixture HTTP server, real timers. Nothing mocked.
 */
import { freePort, startFixtureServer, type FixtureServer } from '@af/testing';
import { callWithRetries, type RetryInfo } from '../../src/app/resilient-call.js';
import { parseConnectorDefinition } from '@af/connectors';
import type { ConnectorDefinition } from '@af/connectors';
import { ConnectorError } from '@af/connectors';
import { executeEndpoint } from '@af/connectors';
import { failureOutcome } from '@af/connectors';
import { createGuardedHttp } from '../../src/infra/guarded-http.js';

let server: FixtureServer;
const http = createGuardedHttp({ allow: '127.0.0.1' });

beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(async () => {
  await http.close();
  await server.close();
});
beforeEach(() => server.reset());

function definition(baseUrl: string): ConnectorDefinition {
  const parsed = parseConnectorDefinition({
    id: 'flaky-api',
    name: 'Flaky',
    type: 'rest_api',
    connection: { base_url: baseUrl, auth: { type: 'api_key', key_param: 'api_key', in: 'query' } },
    endpoints: { search: { method: 'GET', path: '/search', response_mapping: { results_path: 'results' } } },
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.definition;
}

/** Calls the endpoint with retries, recording each attempt's timeout and each retry. */
async function call(baseUrl: string, options: { baseTimeoutMs?: number; signal?: AbortSignal } = {}) {
  const def = definition(baseUrl);
  const timeouts: number[] = [];
  const retries: RetryInfo[] = [];
  const outcome = await callWithRetries(
    (timeoutMs) => {
      timeouts.push(timeoutMs);
      return executeEndpoint(def, 'search', {}, { api_key: 'sk-test-1' }, { http, timeoutMs, ...(options.signal ? { signal: options.signal } : {}) });
    },
    {
      baseTimeoutMs: options.baseTimeoutMs ?? 5000,
      onRetry: (info) => retries.push(info),
      ...(options.signal ? { signal: options.signal } : {}),
    },
  ).then(
    (result) => ({ result, error: undefined }),
    (error: unknown) => ({ result: undefined, error: error as ConnectorError }),
  );
  return { ...outcome, timeouts, retries };
}

/** Answers with the given responses in turn (the last one repeats). */
function sequence(...answers: Array<{ status?: number; json?: unknown; headers?: Record<string, string>; delayMs?: number }>) {
  let n = 0;
  return () => answers[Math.min(n++, answers.length - 1)]!;
}

describe('callWithRetries over real HTTP', () => {
  it('429 with Retry-After: waits as told, then succeeds', async () => {
    server.route(
      'GET',
      '/search',
      sequence({ status: 429, headers: { 'retry-after': '1' }, json: { error: 'slow down' } }, { json: { results: [{ id: 7 }] } }),
    );
    const started = Date.now();
    const { result, error, retries } = await call(server.url);
    expect(error).toBeUndefined();
    expect(result).toMatchObject({ results: [{ id: 7 }], count: 1 });
    expect(server.count('GET', '/search')).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(retries).toEqual([expect.objectContaining({ kind: 'rate_limited', attempt: 1 })]);
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(1100);
  });

  it('429 with a Retry-After beyond the cap: no retry, retryAfterMs reaches the caller', async () => {
    server.route('GET', '/search', { status: 429, headers: { 'retry-after': '120' }, json: {} });
    const { error } = await call(server.url);
    expect(error).toMatchObject({ code: 'RATE_LIMIT', status: 429, retryAfterMs: 120_000 });
    expect(failureOutcome(error)).toBe('rate_limited');
    expect(server.count('GET', '/search')).toBe(1);
  });

  it('500, 500: retried once, fails after 2 calls with the upstream status', async () => {
    server.route('GET', '/search', { status: 500, json: { error: 'boom' } });
    const { error } = await call(server.url);
    expect(error).toBeInstanceOf(ConnectorError);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', status: 500 });
    expect(failureOutcome(error)).toBe('upstream_unavailable');
    expect(server.count('GET', '/search')).toBe(2);
  });

  it('500 then 200 succeeds on the retry', async () => {
    server.route('GET', '/search', sequence({ status: 503, json: {} }, { json: { results: [] } }));
    const { result } = await call(server.url);
    expect(result).toMatchObject({ results: [], count: 0 });
    expect(server.count('GET', '/search')).toBe(2);
  });

  it('a slow upstream: times out, then succeeds with the doubled timeout', async () => {
    // 1.5 s is over the first 1 s timeout and under the doubled 2 s (wide margins: shared CI machine).
    server.route('GET', '/search', { json: { results: [{ id: 1 }] }, delayMs: 1500 });
    const { result, error, timeouts, retries } = await call(server.url, { baseTimeoutMs: 1000 });
    expect(error).toBeUndefined();
    expect(result).toMatchObject({ count: 1 });
    expect(timeouts).toEqual([1000, 2000]);
    expect(retries).toEqual([expect.objectContaining({ kind: 'timeout', timeoutMs: 2000 })]);
    expect(server.count('GET', '/search')).toBe(2);
  });

  it('too slow even for the doubled timeout: fails with TIMEOUT after 2 calls', async () => {
    server.route('GET', '/search', { json: { results: [] }, delayMs: 1500 });
    const { error, timeouts } = await call(server.url, { baseTimeoutMs: 200 });
    expect(error).toMatchObject({ code: 'TIMEOUT' });
    expect(timeouts).toEqual([200, 400]);
  });

  it('a closed port: a network error, retried once', async () => {
    const port = await freePort();
    const { error, timeouts, retries } = await call(`http://127.0.0.1:${port}`);
    expect(error).toMatchObject({ code: 'UNAVAILABLE' });
    expect(error?.status).toBeUndefined();
    expect(failureOutcome(error)).toBe('network_error');
    expect(timeouts).toHaveLength(2);
    expect(retries.map((r) => r.kind)).toEqual(['network_error']);
    expect(error?.message).not.toContain('sk-test-1');
  });

  it('401: no retry, outcome auth_failed', async () => {
    server.route('GET', '/search', { status: 401, json: { error: 'bad key' } });
    const { error } = await call(server.url);
    expect(error).toMatchObject({ code: 'AUTH_FAILED', status: 401 });
    expect(failureOutcome(error)).toBe('auth_failed');
    expect(server.count('GET', '/search')).toBe(1);
  });

  it('an egress refusal is never retried', async () => {
    const guardedNone = createGuardedHttp({ allow: '' });
    try {
      const def = definition(server.url);
      let attempts = 0;
      const err = await callWithRetries(
        (timeoutMs) => {
          attempts++;
          return executeEndpoint(def, 'search', {}, { api_key: 'k' }, { http: guardedNone, timeoutMs });
        },
        { baseTimeoutMs: 1000 },
      ).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'FAILED_PRECONDITION' });
      expect(attempts).toBe(1);
    } finally {
      await guardedNone.close();
    }
  });

  it('cancelling during the backoff stops at once without another call', async () => {
    server.route('GET', '/search', { status: 429, headers: { 'retry-after': '20' }, json: {} });
    const ctl = new AbortController();
    const started = Date.now();
    const pending = call(server.url, { signal: ctl.signal });
    setTimeout(() => ctl.abort(), 300);
    const { error } = await pending;
    expect(error).toMatchObject({ code: 'CANCELLED' });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(server.count('GET', '/search')).toBe(1);
  });
});
