/**
 * ResponseCache against real PostgreSQL (a fresh database, the service's own
 * schema and migrations through ServiceKit). Nothing mocked.
 */
import { generateKeyBase64, ServiceKit, sqlRows } from '@af/service-kit';
import { createTestDatabase, type TestDatabase } from '@af/testing';
import { connectorRuntimeEnvSchema, type ConnectorRuntimeConfig } from '../../src/config.js';
import { ConnectorError } from '@af/connectors';
import type { EndpointResult } from '@af/connectors';
import { Init1763800000000 } from '../../src/infra/migrations/1763800000000-init.js';
import { ResponseCache1764100000001 } from '../../src/infra/migrations/1764100000001-response-cache.js';
import { definitionHash, MAX_TTL_MS, ResponseCache, responseCacheKey } from '../../src/infra/response-cache.js';

let db: TestDatabase;
let kit: ServiceKit<ConnectorRuntimeConfig>;
let cache: ResponseCache;

beforeAll(async () => {
  db = await createTestDatabase();
  kit = await ServiceKit.start({
    name: 'connector-runtime',
    envSchema: connectorRuntimeEnvSchema,
    env: {
      SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789',
      DATABASE_URL: db.url,
      NATS_URL: 'memory://response-cache-test',
      CREDENTIALS_KEYS: `k1:${generateKeyBase64()}`,
      METRICS_PORT: '0',
      LOG_LEVEL: 'silent',
    },
    migrations: [Init1763800000000, ResponseCache1764100000001],
  });
  cache = new ResponseCache(kit.db);
});

afterAll(async () => {
  await kit?.close();
  await db?.drop();
});

beforeEach(async () => {
  await sqlRows(kit.db, 'DELETE FROM response_cache');
});

let n = 0;
const key = (inputs: Record<string, unknown> = { q: `query-${n++}` }) =>
  responseCacheKey({
    ownerUserId: 'alice',
    connectorId: 'fec-contributions',
    definitionHash: definitionHash({ id: 'fec-contributions' }),
    endpoint: 'search',
    inputs,
  });
const result: EndpointResult = { results: [{ id: 1, name: 'Smith' }], count: 1, has_more: true, next_cursor: 'c2' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ResponseCache', () => {
  it('lives in the connector_runtime schema', async () => {
    const rows = await db.query(
      `SELECT table_schema FROM information_schema.tables WHERE table_name = 'response_cache'`,
    );
    expect(rows).toEqual([{ table_schema: 'connector_runtime' }]);
  });

  it('misses an unknown key, then returns what was put', async () => {
    const k = key();
    expect(await cache.get(k)).toBeUndefined();
    expect(await cache.put(k, result, 60_000)).toBe(true);
    expect(await cache.get(k)).toEqual(result);
  });

  it('a later put replaces the entry and its expiry', async () => {
    const k = key();
    await cache.put(k, result, 200);
    const newer: EndpointResult = { results: [], count: 0 };
    await cache.put(k, newer, 60_000);
    await sleep(400);
    expect(await cache.get(k)).toEqual(newer);
  });

  it('expires after the TTL (by the database clock) and purgeExpired deletes only expired rows', async () => {
    const short = key();
    const long = key();
    await cache.put(short, result, 1000);
    await cache.put(long, result, 60_000);
    expect(await cache.get(short)).toEqual(result);
    await sleep(1300);
    expect(await cache.get(short)).toBeUndefined();
    expect(await cache.purgeExpired()).toBe(1);
    expect(await cache.purgeExpired()).toBe(0);
    expect(await cache.get(long)).toEqual(result);
    const rows = await sqlRows(kit.db, 'SELECT count(*)::int AS n FROM response_cache');
    expect(rows[0].n).toBe(1);
  });

  it('does not store results with warnings (a malformed upstream answer is not a result worth keeping)', async () => {
    const k = key();
    const warned: EndpointResult = { results: [], count: 0, warnings: ['the response is not valid JSON'] };
    expect(await cache.put(k, warned, 60_000)).toBe(false);
    expect(await cache.get(k)).toBeUndefined();
  });

  it('does not store results larger than maxEntryBytes', async () => {
    const small = new ResponseCache(kit.db, { maxEntryBytes: 100 });
    const k = key();
    const big: EndpointResult = { results: [{ text: 'x'.repeat(200) }], count: 1 };
    expect(await small.put(k, big, 60_000)).toBe(false);
    expect(await small.get(k)).toBeUndefined();
    expect(await small.put(k, result, 60_000)).toBe(true);
  });

  it('keeps strings jsonb would refuse (\\u0000) intact', async () => {
    const k = key();
    const odd: EndpointResult = { results: [{ text: 'a\u0000b', emoji: '😀', nested: { n: null } }], count: 1 };
    expect(await cache.put(k, odd, 60_000)).toBe(true);
    expect(await cache.get(k)).toEqual(odd);
  });

  it('treats a damaged row as a miss', async () => {
    const k = key();
    await cache.put(k, result, 60_000);
    await sqlRows(kit.db, `UPDATE response_cache SET result = '{not json' WHERE cache_key = $1`, [k]);
    expect(await cache.get(k)).toBeUndefined();
    await sqlRows(kit.db, `UPDATE response_cache SET result = '{"results":"no"}' WHERE cache_key = $1`, [k]);
    expect(await cache.get(k)).toBeUndefined();
  });

  it('refuses bad arguments, naming the field', async () => {
    const k = key();
    for (const ttl of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, MAX_TTL_MS + 1]) {
      await expect(cache.put(k, result, ttl)).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        violations: [{ field: 'ttlMs', reason: expect.stringContaining('whole number of milliseconds') }],
      });
    }
    await expect(cache.put('not-a-key', result, 1000)).rejects.toMatchObject({ violations: [{ field: 'key' }] });
    await expect(cache.get('ABC')).rejects.toMatchObject({ violations: [{ field: 'key' }] });
    for (const bad of [null, { results: 'x', count: 1 }, { results: [1], count: 1 }, { results: [], count: -1 }]) {
      await expect(cache.put(k, bad as unknown as EndpointResult, 1000)).rejects.toMatchObject({
        violations: [{ field: 'result' }],
      });
    }
    expect(await sqlRows(kit.db, 'SELECT 1 FROM response_cache')).toEqual([]);
  });

  it('two instances (replicas) share entries', async () => {
    const k = key();
    await new ResponseCache(kit.db).put(k, result, 60_000);
    expect(await new ResponseCache(kit.db).get(k)).toEqual(result);
  });
});

describe('ResponseCache.getOrCall', () => {
  it('calls on a miss and stores; answers the next call from the cache', async () => {
    const k = key();
    let calls = 0;
    const call = async () => {
      calls++;
      return result;
    };
    expect(await cache.getOrCall(k, 60_000, call)).toEqual({ result, cached: false });
    expect(await cache.getOrCall(k, 60_000, call)).toEqual({ result, cached: true });
    expect(calls).toBe(1);
  });

  it('never caches a failure: the error is rethrown unchanged and the next call tries again', async () => {
    const k = key();
    const failure = new ConnectorError('UNAVAILABLE', 'HTTP 503', { status: 503 });
    await expect(
      cache.getOrCall(k, 60_000, async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await cache.get(k)).toBeUndefined();
    expect(await cache.getOrCall(k, 60_000, async () => result)).toEqual({ result, cached: false });
  });

  it('a cache outage is reported to onCacheError and the call still runs; without it, it is thrown', async () => {
    // The test database's public schema has no response_cache table: a real SQL error.
    const broken = new ResponseCache({ query: (sql, params) => db.query(sql, params) });
    const problems: string[] = [];
    const out = await broken.getOrCall(key(), 60_000, async () => result, {
      onCacheError: (err, phase) => problems.push(`${phase}: ${(err as Error).message}`),
    });
    expect(out).toEqual({ result, cached: false });
    expect(problems).toEqual([
      expect.stringMatching(/^get: relation "response_cache" does not exist/),
      expect.stringMatching(/^put: relation "response_cache" does not exist/),
    ]);
    await expect(broken.getOrCall(key(), 60_000, async () => result)).rejects.toThrow(/response_cache/);
  });

  it('argument errors are thrown even with onCacheError', async () => {
    await expect(
      cache.getOrCall(key(), 0, async () => result, { onCacheError: () => undefined }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
