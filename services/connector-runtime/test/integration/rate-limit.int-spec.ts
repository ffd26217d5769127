/**
 * The shared rate limiter against real PostgreSQL (real: PostgreSQL, the
 * fixture HTTP server, undici; mocked: nothing). Two RateLimiter instances on
 * two separate pools stand in for two replicas.
 */
import { openDatabase, sqlRows, type Queryable } from '@af/service-kit';
import { createTestDatabase, startFixtureServer, type FixtureServer, type TestDatabase } from '@af/testing';
import type { DataSource } from 'typeorm';
import { request } from 'undici';
import type { HttpRequestFn } from '@af/connectors';
import { bindingKey, connectorKey, type RateLimits } from '@af/connectors';
import { Limits1764100000002 } from '../../src/infra/migrations/1764100000002-limits.js';
import { createGuardedHttp } from '../../src/infra/guarded-http.js';
import { RateLimiter } from '../../src/infra/rate-limiter.js';
import { failure } from '@af/connectors/testing';

let db: TestDatabase;
let poolA: DataSource;
let poolB: DataSource;
let server: FixtureServer;

const open = (url: string) => openDatabase({ url, schema: 'connector_runtime', migrations: [Limits1764100000002], poolSize: 6 });

beforeAll(async () => {
  db = await createTestDatabase();
  [poolA, poolB] = [await open(db.url), await open(db.url)];
  server = await startFixtureServer();
});

afterAll(async () => {
  await server?.close();
  await poolA?.destroy();
  await poolB?.destroy();
  await db?.drop();
});

let n = 0;
const freshKey = () => connectorKey('alice', `conn-${++n}`);


/**
 * Callers on both replicas hammer one key until `ms` has passed. Returns the
 * grant times here (ms from the start, taken when acquire returned) and on the
 * database's clock (`grantedAtMs`), both sorted.
 */
async function hammer(limiters: RateLimiter[], key: string, limits: RateLimits, ms: number, callersEach: number) {
  const t0 = performance.now();
  const local: number[] = [];
  const db: number[] = [];
  const caller = async (limiter: RateLimiter) => {
    while (performance.now() - t0 < ms) {
      const { grantedAtMs } = await limiter.acquire(key, limits, { maxWaitMs: 10_000 });
      local.push(performance.now() - t0);
      db.push(grantedAtMs);
    }
  };
  await Promise.all(limiters.flatMap((l) => Array.from({ length: callersEach }, () => caller(l))));
  const first = db.reduce((m, t) => Math.min(m, t), Infinity);
  return { local: local.sort((a, b) => a - b), db: db.map((t) => t - first).sort((a, b) => a - b) };
}

/**
 * The most grants any span [t_i, t_j] holds beyond what a bucket allows in
 * it: capacity + rate × (span + slackMs). ≤ 0 means never exceeded.
 * (j − i + 1 − C − r(t_j − t_i) split as (j − r·t_j) − (i − r·t_i): one pass.)
 */
function worstExcess(grants: number[], capacity: number, perMs: number, slackMs = 0): number {
  let worst = -Infinity;
  let best = Infinity;
  grants.forEach((t, j) => {
    best = Math.min(best, j - perMs * t);
    worst = Math.max(worst, j - perMs * t - best + 1 - capacity - perMs * slackMs);
  });
  return worst;
}

/** Slack for the database's clock: timestamptz has microseconds, and each end of a span may round. */
const US = 0.002;

/** A Queryable that counts the statements it runs. */
function counting(ds: DataSource): Queryable & { count: number } {
  const q = { count: 0, query: (sql: string, params?: unknown[]) => ((q.count += 1), ds.query(sql, params)) };
  return q;
}

describe('two replicas sharing one bucket', () => {
  it('together never exceed 20 per second (no leases): every span holds at most capacity + rate × span', async () => {
    const a = new RateLimiter(poolA, { leaseMs: 0 });
    const b = new RateLimiter(poolB, { leaseMs: 0 });
    const { local, db } = await hammer([a, b], freshKey(), { second: 20 }, 3000, 6);
    // on the database's clock, exactly (up to its microsecond timestamps)
    expect(worstExcess(db, 20, 20 / 1000, US)).toBeLessThanOrEqual(1e-6);
    // as the callers saw it: within one grant (their clocks read after the answer, on a busy event loop)
    expect(worstExcess(local, 20, 20 / 1000)).toBeLessThanOrEqual(1);
    // sliding one-second windows: at most the burst plus one second of refill
    for (let i = 0, j = 0; i < db.length; i++) {
      while (db[i]! - db[j]! > 1000) j++;
      expect(i - j + 1).toBeLessThanOrEqual(40);
    }
    // and the limit is used, not starved
    const span = db[db.length - 1]!;
    expect(db.length).toBeGreaterThanOrEqual(Math.floor(20 + (20 * span) / 1000) - 1);
    expect(span).toBeGreaterThan(2900);
  });

  it('honours per-second and per-minute windows together', async () => {
    const a = new RateLimiter(poolA, { leaseMs: 0 });
    const b = new RateLimiter(poolB, { leaseMs: 0 });
    const { db } = await hammer([a, b], freshKey(), { second: 50, minute: 60 }, 2000, 2);
    // the per-second bucket would allow ~150 in 2 s; the minute's bucket of 60 (+1 per second) binds
    expect(worstExcess(db, 60, 1 / 1000, US)).toBeLessThanOrEqual(1e-6);
    expect(worstExcess(db, 50, 50 / 1000, US)).toBeLessThanOrEqual(1e-6);
    expect(db.length).toBeGreaterThanOrEqual(60);
  });

  it('leases make a generous limit cost a statement per lease, not per call', async () => {
    const qa = counting(poolA);
    const qb = counting(poolB);
    const a = new RateLimiter(qa, { leaseMs: 100 });
    const b = new RateLimiter(qb, { leaseMs: 100 });
    const { db } = await hammer([a, b], freshKey(), { second: 100_000 }, 1000, 4);
    expect(db.length).toBeGreaterThan(1000);
    // ~10 lease periods per replica; well under one statement per 20 calls
    expect(qa.count + qb.count).toBeLessThan(db.length / 20);
  });

  it('takes the next lease in the background before the last one runs out: callers do not wait for it', async () => {
    // every statement takes 40 ms more, so a caller waiting for one would show
    let inFlight = 0;
    let statements = 0;
    const slow: Queryable = {
      query: async (sql: string, params?: unknown[]) => {
        statements++;
        inFlight++;
        try {
          await new Promise((r) => setTimeout(r, 40));
          return await poolA.query(sql, params);
        } finally {
          inFlight--;
        }
      },
    };
    // 40 a minute with leases of 10 s: a lease is 6 tokens (the 10 s refill), so it runs out long before it expires
    const limiter = new RateLimiter(slow, { leaseMs: 10_000 });
    const key = freshKey();
    const limits = { minute: 40 };
    const acquire = () => limiter.acquire(key, limits, { maxWaitMs: 0 });
    const first = await acquire(); // the row itself: 6 tokens taken, 1 used, 5 leased
    const afterFirst = statements;
    expect(inFlight).toBe(0);
    // 3 calls leave 2 of the 5; the 4th leaves 1, starts the next lease and is answered at once
    for (let i = 0; i < 3; i++) expect(await acquire()).toEqual({ waitedMs: 0, grantedAtMs: first.grantedAtMs });
    expect(statements).toBe(afterFirst);
    expect(await acquire()).toEqual({ waitedMs: 0, grantedAtMs: first.grantedAtMs });
    expect(statements).toBe(afterFirst + 1);
    expect(inFlight).toBe(1);
    // the last one is served while it runs
    expect(await acquire()).toEqual({ waitedMs: 0, grantedAtMs: first.grantedAtMs });
    expect(inFlight).toBe(1);
    // a caller that finds nothing left waits for that same statement, not a new one
    const next = await acquire();
    expect(next.grantedAtMs).toBeGreaterThan(first.grantedAtMs);
    expect(statements).toBe(afterFirst + 1);
    // the background lease was taken from the shared row: 12 tokens in all of the 40
    const [row] = await sqlRows<{ tokens_minute: number }>(poolA, 'SELECT tokens_minute FROM rate_limit_buckets WHERE key = $1', [key]);
    expect(Number(row!.tokens_minute)).toBeGreaterThanOrEqual(28);
    expect(Number(row!.tokens_minute)).toBeLessThan(29);
  });

  it('a background lease never reserves: with nothing free it takes nothing, and callers beyond the limit are refused', async () => {
    const statementsOf = counting(poolA);
    const limiter = new RateLimiter(statementsOf, { leaseMs: 10_000 });
    const other = new RateLimiter(poolB, { leaseMs: 0 });
    const key = freshKey();
    const limits = { minute: 40 };
    await limiter.acquire(key, limits, { maxWaitMs: 0 }); // 6 taken: 1 used, 5 leased
    // another replica takes everything else
    let drained = 0;
    while (await other.acquire(key, limits, { maxWaitMs: 0 }).then(() => true, () => false)) drained++;
    expect(drained).toBeGreaterThanOrEqual(34);
    const before = statementsOf.count;
    // the 4th of the 5 leased tokens starts a background lease, which finds nothing free
    for (let i = 0; i < 5; i++) expect((await limiter.acquire(key, limits, { maxWaitMs: 0 })).waitedMs).toBe(0);
    const refused = await failure(limiter.acquire(key, limits, { maxWaitMs: 0 }));
    expect(refused.code).toBe('RATE_LIMIT');
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(statementsOf.count).toBe(before + 2); // the background lease, then the refused caller's own statement
    // nothing was reserved ahead: the row holds no negative balance
    const [row] = await sqlRows<{ tokens_minute: number }>(poolA, 'SELECT tokens_minute FROM rate_limit_buckets WHERE key = $1', [key]);
    expect(Number(row!.tokens_minute)).toBeGreaterThanOrEqual(0);
    expect(Number(row!.tokens_minute)).toBeLessThan(1);
  });

  it('a saturated limit with leases still holds the bound, plus one lease period as the callers see it', async () => {
    const a = new RateLimiter(poolA, { leaseMs: 100 });
    const b = new RateLimiter(poolB, { leaseMs: 100 });
    const { local, db } = await hammer([a, b], freshKey(), { second: 2000 }, 1500, 4);
    expect(worstExcess(db, 2000, 2, US)).toBeLessThanOrEqual(1e-6);
    expect(worstExcess(local, 2000, 2, 100)).toBeLessThanOrEqual(1);
    expect(db.length).toBeGreaterThan(2000);
  });
});

describe('acquire', () => {
  it('fails RATE_LIMIT with retryAfterMs, taking nothing, when the wait exceeds maxWaitMs', async () => {
    const limiter = new RateLimiter(poolA, { leaseMs: 0 });
    const key = freshKey();
    const limits = { minute: 2 };
    await limiter.acquire(key, limits, { maxWaitMs: 0 });
    await limiter.acquire(key, limits, { maxWaitMs: 0 });
    const err = await failure(limiter.acquire(key, limits, { maxWaitMs: 1000, label: 'fec-contributions' }));
    expect(err.code).toBe('RATE_LIMIT');
    expect(err.retryable).toBe(true);
    expect(err.retryAfterMs).toBeGreaterThan(29_000);
    expect(err.retryAfterMs).toBeLessThanOrEqual(30_000);
    expect(err.message).toMatch(/^fec-contributions: rate limit \(2 per minute\) — the next call is allowed in \d+ ms, longer than the 1000 ms this call may wait$/);
    // nothing was reserved: the next refusal names the same ~30 s, not 60 s
    const again = await failure(new RateLimiter(poolB, { leaseMs: 0 }).acquire(key, limits, { maxWaitMs: 0 }));
    expect(again.retryAfterMs).toBeLessThanOrEqual(30_000);
    const [row] = await sqlRows(poolA, 'SELECT tokens_minute, limit_minute FROM rate_limit_buckets WHERE key = $1', [key]);
    expect(row.limit_minute).toBe(2);
    expect(row.tokens_minute).toBeGreaterThanOrEqual(0);
    expect(row.tokens_minute).toBeLessThan(0.05);
  });

  it('reserves and waits in order when the wait is acceptable', async () => {
    const a = new RateLimiter(poolA, { leaseMs: 0 });
    const b = new RateLimiter(poolB, { leaseMs: 0 });
    const key = freshKey();
    const limits = { second: 4 };
    for (let i = 0; i < 4; i++) expect((await a.acquire(key, limits, { maxWaitMs: 0 })).waitedMs).toBe(0);
    const t0 = performance.now();
    const results = await Promise.all(
      [a, b, a].map((l) => l.acquire(key, limits, { maxWaitMs: 5000 }).then((r) => ({ ...r, at: performance.now() - t0 }))),
    );
    results.sort((x, y) => x.grantedAtMs - y.grantedAtMs);
    // one token every 250 ms on the database's clock, whichever replica asked
    expect(results[1]!.grantedAtMs - results[0]!.grantedAtMs).toBeCloseTo(250, 0);
    expect(results[2]!.grantedAtMs - results[1]!.grantedAtMs).toBeCloseTo(250, 0);
    // and each caller really waited for its turn
    expect(results[0]!.at).toBeGreaterThanOrEqual(150);
    expect(results[2]!.at).toBeGreaterThanOrEqual(650);
    expect(results[2]!.at).toBeLessThan(1500);
    expect(results.every((r) => r.waitedMs > 0)).toBe(true);
  });

  it('refills by the time elapsed on the database clock, taking as many as a lease asks for', async () => {
    const limiter = new RateLimiter(poolA, { leaseMs: 0 });
    const key = freshKey();
    await limiter.acquire(key, { minute: 60 }, { maxWaitMs: 0 });
    await sqlRows(poolA, `UPDATE rate_limit_buckets SET tokens_minute = 0, updated_at = clock_timestamp() - interval '5500 milliseconds' WHERE key = $1`, [key]);
    // 5.5 tokens have refilled: a lease of 4 per 100 ms at 60/min would be 0 → leaseMs 4000 asks for 4
    const leasing = new RateLimiter(poolA, { leaseMs: 4000 });
    await leasing.acquire(key, { minute: 60 }, { maxWaitMs: 0 });
    const [row] = await sqlRows(poolA, 'SELECT tokens_minute FROM rate_limit_buckets WHERE key = $1', [key]);
    expect(row.tokens_minute).toBeGreaterThan(1.4);
    expect(row.tokens_minute).toBeLessThan(1.7);
    // the 3 leased tokens are served locally, the 4th call goes back to the row
    for (let i = 0; i < 3; i++) await leasing.acquire(key, { minute: 60 }, { maxWaitMs: 0 });
    await leasing.acquire(key, { minute: 60 }, { maxWaitMs: 0 });
    const [after] = await sqlRows(poolA, 'SELECT tokens_minute FROM rate_limit_buckets WHERE key = $1', [key]);
    expect(after.tokens_minute).toBeLessThan(0.8);
  });

  it('keeps a binding override and the connector limit in separate buckets', async () => {
    const limiter = new RateLimiter(poolA, { leaseMs: 0 });
    const conn = connectorKey('alice', 'fec');
    const bind = bindingKey('alice', 'researcher', 'fec');
    await limiter.acquire(bind, { minute: 1 }, { maxWaitMs: 0 });
    expect((await failure(limiter.acquire(bind, { minute: 1 }, { maxWaitMs: 0 }))).code).toBe('RATE_LIMIT');
    for (let i = 0; i < 5; i++) await limiter.acquire(conn, { second: 10 }, { maxWaitMs: 0 });
  });

  it('a limit that changes takes effect at once (the row follows the caller)', async () => {
    const limiter = new RateLimiter(poolA, { leaseMs: 0 });
    const key = freshKey();
    for (let i = 0; i < 3; i++) await limiter.acquire(key, { minute: 100 }, { maxWaitMs: 0 });
    // tightened to 2 per minute: 97 tokens clamp to 2
    await limiter.acquire(key, { minute: 2 }, { maxWaitMs: 0 });
    await limiter.acquire(key, { minute: 2 }, { maxWaitMs: 0 });
    expect((await failure(limiter.acquire(key, { minute: 2 }, { maxWaitMs: 0 }))).code).toBe('RATE_LIMIT');
    // limits removed: only upstream blocks apply
    await limiter.acquire(key, {}, { maxWaitMs: 0 });
  });

  it('refuses bad arguments naming the field, before touching the database', async () => {
    const limiter = new RateLimiter(poolA, { leaseMs: 0 });
    const key = freshKey();
    expect((await failure(limiter.acquire(key, { second: -1 }, { maxWaitMs: 0 }))).violations).toEqual([
      { field: 'rate_limit.requests_per_second', reason: 'must be a positive number' },
    ]);
    expect((await failure(limiter.acquire(key, { day: Number.NaN }, { maxWaitMs: 0 }))).message).toBe(
      'rate_limit.requests_per_day: must be a positive number',
    );
    expect((await failure(limiter.acquire(key, {}, { maxWaitMs: Number.NaN }))).message).toMatch(/^maxWaitMs: /);
    expect((await failure(limiter.acquire(key, {}, { maxWaitMs: 2 * 86_400_000 }))).message).toMatch(/^maxWaitMs: /);
    expect((await failure(limiter.acquire('', {}, { maxWaitMs: 0 }))).message).toMatch(/^key: /);
    expect((await failure(limiter.acquire('k'.repeat(513), {}, { maxWaitMs: 0 }))).message).toMatch(/^key: /);
    expect((await failure(limiter.noteUpstream(key, { retryAfterMs: -5 }))).message).toBe('retryAfterMs: must be a finite number ≥ 0');
    expect((await failure(limiter.noteUpstream(key, { remaining: Number.POSITIVE_INFINITY, resetAtMs: 1 }))).message).toBe(
      'remaining: must be a finite number ≥ 0',
    );
    expect(await sqlRows(poolA, 'SELECT 1 FROM rate_limit_buckets WHERE key = $1', [key])).toEqual([]);
  });
});

describe('cancellation', () => {
  it('abort while waiting ends the wait at once with CANCELLED and gives the token back', async () => {
    const a = new RateLimiter(poolA, { leaseMs: 0 });
    const key = freshKey();
    const limits = { second: 1 };
    await a.acquire(key, limits, { maxWaitMs: 0 });
    const controller = new AbortController();
    const t0 = performance.now();
    const waiting = failure(a.acquire(key, limits, { maxWaitMs: 5000, signal: controller.signal, label: 'slow-api' }));
    setTimeout(() => controller.abort(), 100);
    const err = await waiting;
    expect(err.code).toBe('CANCELLED');
    expect(err.message).toBe('slow-api: cancelled while waiting for a rate-limit slot');
    expect(performance.now() - t0).toBeLessThan(500);
    // the cancelled reservation was refunded: the next caller waits for the first refill, not the second
    const { waitedMs } = await new RateLimiter(poolB, { leaseMs: 0 }).acquire(key, limits, { maxWaitMs: 5000 });
    expect(waitedMs).toBeLessThan(1000);
  });

  it('an already-aborted signal fails before any statement', async () => {
    const key = freshKey();
    const controller = new AbortController();
    controller.abort();
    expect((await failure(new RateLimiter(poolA).acquire(key, { second: 1 }, { maxWaitMs: 1000, signal: controller.signal }))).code).toBe(
      'CANCELLED',
    );
    expect(await sqlRows(poolA, 'SELECT 1 FROM rate_limit_buckets WHERE key = $1', [key])).toEqual([]);
  });
});

describe('upstream headers', () => {
  it('Retry-After noted on one replica blocks the bucket on the other until then', async () => {
    const a = new RateLimiter(poolA, { leaseMs: 0 });
    const b = new RateLimiter(poolB, { leaseMs: 0 });
    const key = freshKey();
    await a.noteUpstream(key, { retryAfterMs: 1500 });
    const refused = await failure(b.acquire(key, { second: 100 }, { maxWaitMs: 100 }));
    expect(refused.code).toBe('RATE_LIMIT');
    expect(refused.retryAfterMs).toBeGreaterThan(1300);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(1501);
    const t0 = performance.now();
    await b.acquire(key, { second: 100 }, { maxWaitMs: 5000 });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(1200);
    // a shorter Retry-After later does not shorten a block; the block is over now anyway
    await a.noteUpstream(key, { retryAfterMs: 0 });
    expect((await b.acquire(key, { second: 100 }, { maxWaitMs: 0 })).waitedMs).toBe(0);
  });

  it('an unlimited key is blocked too (its "no block" lease lasts at most leaseMs)', async () => {
    const a = new RateLimiter(poolA, { leaseMs: 50 });
    const b = new RateLimiter(poolB, { leaseMs: 50 });
    const key = freshKey();
    await b.acquire(key, {}, { maxWaitMs: 0 });
    await a.noteUpstream(key, { retryAfterMs: 10_000 });
    await new Promise((r) => setTimeout(r, 60));
    expect((await failure(b.acquire(key, {}, { maxWaitMs: 0 }))).retryAfterMs).toBeGreaterThan(9000);
  });

  it('a remaining count with a reset is a quota; 0 blocks until the reset', async () => {
    const limiter = new RateLimiter(poolA, { leaseMs: 0 });
    const key = freshKey();
    await limiter.noteUpstream(key, { remaining: 2, resetAtMs: Date.now() + 10_000 });
    await limiter.acquire(key, { second: 100 }, { maxWaitMs: 0 });
    await limiter.acquire(key, { second: 100 }, { maxWaitMs: 0 });
    const err = await failure(limiter.acquire(key, { second: 100 }, { maxWaitMs: 0 }));
    expect(err.retryAfterMs).toBeGreaterThan(9000);
    expect(err.retryAfterMs).toBeLessThanOrEqual(10_001);
    const other = freshKey();
    await limiter.noteUpstream(other, { remaining: 0, resetAtMs: Date.now() + 3000 });
    expect((await failure(limiter.acquire(other, {}, { maxWaitMs: 0 }))).retryAfterMs).toBeGreaterThan(2000);
    // a reset in the past is ignored
    const third = freshKey();
    await limiter.noteUpstream(third, { remaining: 0, resetAtMs: Date.now() - 1000 });
    await limiter.acquire(third, {}, { maxWaitMs: 0 });
  });

  it('observe() reads the answers of a real upstream: 429 + Retry-After blocks, a low remaining count becomes a quota, a high one costs no write', async () => {
    const limiter = new RateLimiter(poolA, { leaseMs: 0 });
    const other = new RateLimiter(poolB, { leaseMs: 0 });
    server.route('GET', '/limited', { status: 429, json: { error: 'slow down' }, headers: { 'retry-after': '2' } });
    server.route('GET', '/low', { json: { ok: true }, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '3' } });
    server.route('GET', '/plenty', { json: { ok: true }, headers: { 'x-ratelimit-remaining': '4999', 'x-ratelimit-limit': '5000', 'x-ratelimit-reset': '3' } });

    const k1 = freshKey();
    const http1 = limiter.observe(request as HttpRequestFn, k1);
    const res = await http1(`${server.url}/limited`);
    expect(res.statusCode).toBe(429);
    expect(await res.body.json()).toEqual({ error: 'slow down' });
    const blocked = await failure(other.acquire(k1, { second: 10 }, { maxWaitMs: 0 }));
    expect(blocked.retryAfterMs).toBeGreaterThan(1500);

    const k2 = freshKey();
    await (await limiter.observe(request as HttpRequestFn, k2)(`${server.url}/low`)).body.dump();
    expect((await failure(other.acquire(k2, { second: 10 }, { maxWaitMs: 0 }))).retryAfterMs).toBeGreaterThan(2000);

    const k3 = freshKey();
    await (await limiter.observe(request as HttpRequestFn, k3)(`${server.url}/plenty`)).body.dump();
    expect(await sqlRows(poolA, 'SELECT 1 FROM rate_limit_buckets WHERE key = $1', [k3])).toEqual([]);
  });

  it('observe() notes the answers a client reads whole with `text` too, and keeps `text` only where the client has it', async () => {
    const limiter = new RateLimiter(poolA, { leaseMs: 0 });
    const other = new RateLimiter(poolB, { leaseMs: 0 });
    server.route('GET', '/limited3', { status: 429, json: { error: 'slow down' }, headers: { 'retry-after': '2' } });
    const http = createGuardedHttp({ allow: '127.0.0.1' });
    try {
      const k = freshKey();
      const observed = limiter.observe(http, k);
      const res = await observed.text!(`${server.url}/limited3`, {}, { maxBytes: 1000, errorBytes: 100, label: 'limited' });
      expect(res.statusCode).toBe(429);
      expect(JSON.parse(res.text)).toEqual({ error: 'slow down' });
      expect((await failure(other.acquire(k, { second: 10 }, { maxWaitMs: 0 }))).retryAfterMs).toBeGreaterThan(1500);
    } finally {
      await http.close();
    }
    expect(limiter.observe(request as HttpRequestFn, freshKey()).text).toBeUndefined();
  });

  it('observe() never fails the call when noting fails, and reports why', async () => {
    const broken: Queryable = { query: () => Promise.reject(new Error('database down')) };
    const errors: unknown[] = [];
    server.route('GET', '/limited2', { status: 429, headers: { 'retry-after': '1' } });
    const res = await new RateLimiter(broken).observe(request as HttpRequestFn, freshKey(), (e) => errors.push(e))(`${server.url}/limited2`);
    expect(res.statusCode).toBe(429);
    await res.body.dump();
    expect(errors).toEqual([new Error('database down')]);
  });
});
