/**
 * The shared circuit breaker against real PostgreSQL (real: PostgreSQL;
 * mocked: nothing — upstream results are the ConnectorErrors the executor
 * throws). Two CircuitBreaker instances on two separate pools stand in for
 * two replicas.
 */
import { openDatabase, sqlRows } from '@af/service-kit';
import { createTestDatabase, type TestDatabase } from '@af/testing';
import type { DataSource } from 'typeorm';
import { ConnectorError } from '@af/connectors';
import { connectorKey } from '@af/connectors';
import { CircuitBreaker, CircuitBreakerStore, type CircuitBreakerOptions } from '../../src/infra/circuit-breaker.store.js';
import { Limits1764100000002 } from '../../src/infra/migrations/1764100000002-limits.js';
import { failure } from '@af/connectors/testing';

let db: TestDatabase;
let poolA: DataSource;
let poolB: DataSource;

const open = (url: string) => openDatabase({ url, schema: 'connector_runtime', migrations: [Limits1764100000002], poolSize: 6 });

beforeAll(async () => {
  db = await createTestDatabase();
  [poolA, poolB] = [await open(db.url), await open(db.url)];
});

afterAll(async () => {
  await poolA?.destroy();
  await poolB?.destroy();
  await db?.drop();
});

const RECOVERY_MS = 400;
const settings: CircuitBreakerOptions = { failureThreshold: 5, recoveryMs: RECOVERY_MS, syncMs: 0 };
const replicas = (options: Partial<CircuitBreakerOptions> = {}) => [
  new CircuitBreaker(new CircuitBreakerStore(poolA), { ...settings, ...options }),
  new CircuitBreaker(new CircuitBreakerStore(poolB), { ...settings, ...options }),
] as const;

let n = 0;
const freshKey = () => connectorKey('alice', `api-${++n}`);
const call = { label: 'fec-contributions', trialTimeoutMs: 10_000 };
const down = () => new ConnectorError('UNAVAILABLE', 'fec-contributions: the upstream is unavailable (HTTP 503 from …)', { status: 503 });
const timeout = () => new ConnectorError('TIMEOUT', 'fec-contributions: no answer within 30 s');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


/** One call through `breaker` that ends with `error` (undefined = success). */
async function callWith(breaker: CircuitBreaker, key: string, error?: unknown) {
  const ticket = await breaker.admit(key, call);
  await breaker.record(ticket, error);
  return ticket;
}

async function row(key: string) {
  const [r] = await sqlRows(poolA, 'SELECT state, failures, trial_id, last_failure FROM circuit_breakers WHERE key = $1', [key]);
  return r;
}

describe('opening', () => {
  it('opens after N consecutive failures seen by two replicas together, and both refuse with when to try again', async () => {
    const [a, b] = replicas();
    const key = freshKey();
    for (let i = 0; i < 3; i++) await callWith(a, key, down());
    await callWith(b, key, timeout());
    expect(await row(key)).toMatchObject({ state: 'closed', failures: 4 });
    await callWith(b, key, timeout());
    expect(await row(key)).toMatchObject({ state: 'open', failures: 5, last_failure: 'TIMEOUT' });

    for (const replica of [a, b]) {
      const err = await failure(replica.admit(key, call));
      expect(err.code).toBe('UNAVAILABLE');
      expect(err.grpcStatusName).toBe('UNAVAILABLE');
      expect(err.retryAfterMs).toBeGreaterThan(0);
      expect(err.retryAfterMs).toBeLessThanOrEqual(RECOVERY_MS);
      expect(err.message).toMatch(
        /^fec-contributions: circuit breaker open — 5 consecutive upstream failures \(last: TIMEOUT\); the next trial call is allowed at \d{4}-\d\d-\d\dT[\d:.]+Z \(in \d+ ms\)$/,
      );
    }
  });

  it('answers that prove the upstream is up reset the count; errors before any request do not count', async () => {
    const [a, b] = replicas();
    const key = freshKey();
    for (let i = 0; i < 4; i++) await callWith(a, key, down());
    await callWith(b, key, new ConnectorError('NOT_FOUND', 'no such filing', { status: 404 }));
    expect(await row(key)).toMatchObject({ state: 'closed', failures: 0 });
    for (let i = 0; i < 4; i++) await callWith(b, key, down());
    for (const notCounted of [
      ConnectorError.invalid('inputs.committee_id', 'is required'),
      new ConnectorError('FAILED_PRECONDITION', 'credential api_key is not stored'),
      new ConnectorError('CANCELLED', 'cancelled'),
      new ConnectorError('RATE_LIMIT', 'our own limiter', { retryAfterMs: 1000 }),
    ]) {
      await callWith(a, key, notCounted);
    }
    expect(await row(key)).toMatchObject({ state: 'closed', failures: 4 });
    await callWith(a, key, new ConnectorError('AUTH_FAILED', 'refused the key', { status: 401 }));
    await callWith(a, key, new ConnectorError('INVALID_ARGUMENT', 'bad cycle', { status: 400 }));
    expect(await row(key)).toMatchObject({ state: 'closed', failures: 0 });
  });

  it('a success costs no write while there are no failures', async () => {
    const [a] = replicas();
    const key = freshKey();
    for (let i = 0; i < 5; i++) await callWith(a, key);
    expect(await row(key)).toBeUndefined();
  });

  it('breakers are per connector', async () => {
    const [a] = replicas({ failureThreshold: 1 });
    const broken = freshKey();
    const healthy = freshKey();
    await callWith(a, broken, down());
    expect((await failure(a.admit(broken, call))).code).toBe('UNAVAILABLE');
    await callWith(a, healthy);
  });
});

describe('half-open and recovery', () => {
  async function openBreaker(key: string) {
    const [a] = replicas({ failureThreshold: 1 });
    await callWith(a, key, down());
    expect(await row(key)).toMatchObject({ state: 'open' });
    await sleep(RECOVERY_MS + 50);
  }

  it('after the recovery time exactly one call across both replicas is let through as the trial', async () => {
    const [a, b] = replicas({ failureThreshold: 1 });
    const key = freshKey();
    await openBreaker(key);
    const attempts = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).admit(key, call)));
    const admitted = attempts.filter((r) => r.status === 'fulfilled');
    expect(admitted).toHaveLength(1);
    expect((admitted[0] as PromiseFulfilledResult<{ trialId?: string }>).value.trialId).toEqual(expect.any(String));
    for (const r of attempts.filter((x) => x.status === 'rejected')) {
      const err = (r as PromiseRejectedResult).reason as ConnectorError;
      expect(err.code).toBe('UNAVAILABLE');
      expect(err.message).toMatch(/another call is testing whether the upstream has recovered/);
      expect(err.retryAfterMs).toBeGreaterThan(9000);
    }
    expect(await row(key)).toMatchObject({ state: 'half_open' });
  });

  it('a successful trial closes it for every replica', async () => {
    const [a, b] = replicas({ failureThreshold: 1 });
    const key = freshKey();
    await openBreaker(key);
    const trial = await b.admit(key, call);
    expect(trial.trialId).toBeDefined();
    await b.record(trial);
    expect(await row(key)).toMatchObject({ state: 'closed', failures: 0, trial_id: null });
    expect((await a.admit(key, call)).trialId).toBeUndefined();
    expect((await b.admit(key, call)).trialId).toBeUndefined();
  });

  it('a failed trial opens it again for another recovery time', async () => {
    const [a, b] = replicas({ failureThreshold: 1 });
    const key = freshKey();
    await openBreaker(key);
    const trial = await a.admit(key, call);
    await a.record(trial, timeout());
    expect(await row(key)).toMatchObject({ state: 'open', failures: 2 });
    const err = await failure(b.admit(key, call));
    expect(err.retryAfterMs).toBeGreaterThan(RECOVERY_MS / 2);
    await sleep(RECOVERY_MS + 50);
    await callWith(b, key);
    expect(await row(key)).toMatchObject({ state: 'closed' });
  });

  it('a cancelled trial passes the trial on at once; a lapsed claim passes it on after its timeout', async () => {
    const [a, b] = replicas({ failureThreshold: 1 });
    const key = freshKey();
    await openBreaker(key);
    const first = await a.admit(key, call);
    await a.record(first, new ConnectorError('CANCELLED', 'caller went away'));
    const second = await b.admit(key, { ...call, trialTimeoutMs: 200 });
    expect(second.trialId).toBeDefined();
    // second's caller dies without recording; after 200 ms another call is the trial
    expect((await failure(a.admit(key, call))).retryAfterMs).toBeLessThanOrEqual(200);
    await sleep(250);
    const third = await a.admit(key, call);
    expect(third.trialId).toBeDefined();
    // the dead trial's late verdict no longer counts
    await b.record(second);
    expect(await row(key)).toMatchObject({ state: 'half_open', trial_id: third.trialId });
    await a.record(third);
    expect(await row(key)).toMatchObject({ state: 'closed' });
  });
});

describe('cached views', () => {
  it('a replica trusts a closed view for syncMs, and learns of an open breaker at its next failure', async () => {
    const [a] = replicas({ syncMs: 60_000 });
    const [, b] = replicas();
    const key = freshKey();
    await callWith(a, key); // a has seen the breaker closed
    for (let i = 0; i < 5; i++) await callWith(b, key, down());
    expect(await row(key)).toMatchObject({ state: 'open' });
    const stale = await a.admit(key, call); // still closed in a's view
    await a.record(stale, down()); // the failure write returns the open state
    expect(a.cached(key)).toMatchObject({ state: 'open' });
    expect((await failure(a.admit(key, call))).code).toBe('UNAVAILABLE');
  });

  it('reading a breaker is one statement, with or without a row; a trusted closed view costs none', async () => {
    let statements = 0;
    const counted = new Proxy(poolA, {
      get(target, prop, receiver) {
        if (prop === 'query') return (sql: string, params?: unknown[]) => (statements++, target.query(sql, params));
        return Reflect.get(target, prop, receiver);
      },
    });
    const store = new CircuitBreakerStore(counted);
    const key = freshKey();
    const before = Date.now();
    const none = await store.read(key);
    expect(statements).toBe(1);
    expect(none.state).toEqual({ state: 'closed', failures: 0 });
    expect(none.nowMs).toBeGreaterThan(before - 60_000);
    expect(none.nowMs).toBeLessThan(Date.now() + 60_000);
    const [b] = replicas({ failureThreshold: 1 });
    await callWith(b, key, down());
    const open = await store.read(key);
    expect(statements).toBe(2);
    expect(open.state).toMatchObject({ state: 'open', failures: 1, lastFailure: 'UNAVAILABLE' });
    expect(open.state.openUntilMs).toBeGreaterThan(open.nowMs);

    const trusting = new CircuitBreaker(store, { ...settings, syncMs: 60_000 });
    const fresh = freshKey();
    const first = await trusting.admit(fresh, call);
    expect(statements).toBe(3);
    for (let i = 0; i < 5; i++) expect(await trusting.admit(fresh, call)).toEqual(first);
    await trusting.record(first);
    expect(statements).toBe(3);
  });

  it('a replica refuses from its cache while open, with no statement', async () => {
    const [a] = replicas({ failureThreshold: 1 });
    const key = freshKey();
    await callWith(a, key, down());
    await sqlRows(poolA, 'DELETE FROM circuit_breakers WHERE key = $1', [key]);
    expect((await failure(a.admit(key, call))).code).toBe('UNAVAILABLE');
  });
});

describe('bad settings', () => {
  it.each([
    [{ failureThreshold: 0 }, 'BREAKER_FAILURE_THRESHOLD: must be a number ≥ 1'],
    [{ recoveryMs: Number.NaN }, 'BREAKER_RECOVERY_MS: must be a number ≥ 1'],
    [{ syncMs: -1 }, 'BREAKER_SYNC_MS: must be a number ≥ 0'],
  ])('%p is refused', (override, message) => {
    expect(() => new CircuitBreaker(new CircuitBreakerStore(poolA), { ...settings, ...override })).toThrow(message);
  });

  it('a trial timeout must be positive', async () => {
    const [a] = replicas();
    expect((await failure(a.admit(freshKey(), { label: 'x', trialTimeoutMs: 0 }))).message).toBe(
      'trialTimeoutMs: must be a positive number of milliseconds',
    );
  });
});
