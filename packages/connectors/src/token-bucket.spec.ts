import { ConnectorError } from './connector-error.js';
import {
  MAX_UPSTREAM_BLOCK_MS,
  UNLIMITED_LEASE,
  applyUpstream,
  bindingKey,
  bindingRateLimits,
  capacity,
  checkRateLimits,
  rateLimitsSignature,
  connectorKey,
  connectorRateLimits,
  describeRateLimits,
  leaseSize,
  newBucket,
  parseRateLimitHeaders,
  refill,
  refundTokens,
  shouldNoteUpstream,
  takeTokens,
  type BucketState,
  type RateLimits,
} from './token-bucket.js';

const T0 = 1_800_000_000_000;
const WAIT_FOREVER = { maxWaitMs: Number.POSITIVE_INFINITY };

/** Take one token at `at` repeatedly, returning the states and waits. */
function drain(state: BucketState, limits: RateLimits, n: number, at = T0) {
  const waits: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = takeTokens(state, limits, at, WAIT_FOREVER);
    state = r.state;
    waits.push(r.waitMs);
  }
  return { state, waits };
}

describe('token bucket math', () => {
  it('a new bucket is full: N calls go at once, the next waits one refill interval', () => {
    const { state, waits } = drain(newBucket(T0), { second: 10 }, 11);
    expect(waits.slice(0, 10)).toEqual(Array(10).fill(0));
    expect(waits[10]).toBeCloseTo(100, 6);
    expect(state.tokens.second).toBeCloseTo(-1, 9);
  });

  it('refills by elapsed time, never above capacity', () => {
    const empty = drain(newBucket(T0), { second: 10 }, 10).state;
    expect(refill(empty, { second: 10 }, T0 + 250).second).toBeCloseTo(2.5, 9);
    expect(refill(empty, { second: 10 }, T0 + 60_000).second).toBe(10);
    // a clock that went backwards refills nothing
    expect(refill(empty, { second: 10 }, T0 - 1000).second).toBeCloseTo(0, 9);
  });

  it('reservations queue: each waiter is told one interval more than the one before', () => {
    const { waits } = drain(drain(newBucket(T0), { minute: 6 }, 6).state, { minute: 6 }, 3);
    expect(waits.map((w) => Math.round(w))).toEqual([10_000, 20_000, 30_000]);
  });

  it('honours every window at once (FEC: 10 per second and 1000 per day)', () => {
    const limits = { second: 10, day: 1000 };
    let state = newBucket(T0);
    let granted = 0;
    // a caller that always waits as told: 10 s of calls → 10/s + the initial 10
    for (let t = T0; t <= T0 + 10_000; ) {
      const r = takeTokens(state, limits, t, WAIT_FOREVER);
      state = r.state;
      t += r.waitMs;
      if (t <= T0 + 10_000) granted++;
    }
    expect(granted).toBe(10 + 100);
    // the daily window is down by the same count
    expect(state.tokens.day).toBeCloseTo(1000 - 111 + (10_000 * 1000) / 86_400_000, 3);
    // once the day's tokens are gone, the wait is the day's refill, not the second's
    const tired: BucketState = { tokens: { second: 10, day: 0 }, updatedAtMs: T0 };
    expect(takeTokens(tired, limits, T0, WAIT_FOREVER).waitMs).toBeCloseTo(86_400, 6);
  });

  it('refuses, taking nothing, when the wait would exceed maxWaitMs, and says when it frees up', () => {
    const empty = drain(newBucket(T0), { second: 2 }, 2).state;
    const r = takeTokens(empty, { second: 2 }, T0, { maxWaitMs: 499 });
    expect(r.taken).toBe(0);
    expect(r.waitMs).toBeCloseTo(500, 9);
    expect(r.state.tokens.second).toBeCloseTo(0, 9);
    expect(takeTokens(empty, { second: 2 }, T0, { maxWaitMs: 500 }).taken).toBe(1);
  });

  it('takes several tokens when asked (a lease), but only as many as every window has', () => {
    const r = takeTokens(newBucket(T0), { second: 100, minute: 1000 }, T0, { want: 30, maxWaitMs: 0 });
    expect(r).toMatchObject({ taken: 30, waitMs: 0 });
    const low: BucketState = { tokens: { second: 100, minute: 4.7 }, updatedAtMs: T0 };
    expect(takeTokens(low, { second: 100, minute: 1000 }, T0, { want: 30, maxWaitMs: 0 }).taken).toBe(4);
    // an empty window turns a lease into a one-token reservation
    const none: BucketState = { tokens: { second: 100, minute: 0.5 }, updatedAtMs: T0 };
    expect(takeTokens(none, { second: 100, minute: 1000 }, T0, { want: 30, maxWaitMs: 1000 })).toMatchObject({ taken: 1, waitMs: 30 });
  });

  it('a fractional limit still lets one call through, then waits the full interval', () => {
    expect(capacity(0.5)).toBe(1);
    const { waits } = drain(newBucket(T0), { minute: 0.5 }, 2);
    expect(waits).toEqual([0, 120_000]);
  });

  it('a window that appears later starts full; one that disappears is dropped; capacity changes clamp', () => {
    const s1 = drain(newBucket(T0), { second: 5 }, 5).state;
    const s2 = takeTokens(s1, { second: 5, minute: 100 }, T0 + 1000, WAIT_FOREVER).state;
    expect(s2.tokens).toEqual({ second: 4, minute: 99 });
    const s3 = takeTokens(s2, { minute: 100 }, T0 + 1000, WAIT_FOREVER).state;
    expect(s3.tokens).toEqual({ minute: 98 });
    expect(refill(s3, { minute: 10 }, T0 + 1000).minute).toBe(10);
  });

  it('without limits only upstream blocks apply', () => {
    expect(takeTokens(newBucket(T0), {}, T0, { want: 5, maxWaitMs: 0 })).toMatchObject({ taken: 5, waitMs: 0 });
    const blocked = applyUpstream(newBucket(T0), { retryAfterMs: 2000 }, T0);
    expect(takeTokens(blocked, {}, T0 + 500, { maxWaitMs: 10_000 })).toMatchObject({ taken: 1, waitMs: 1500 });
  });

  it('refunds a cancelled reservation, never above capacity', () => {
    const over = drain(newBucket(T0), { second: 2 }, 3).state;
    expect(refundTokens(over, { second: 2 }, 1).tokens.second).toBeCloseTo(0, 9);
    expect(refundTokens(newBucket(T0), { second: 2 }, 1).tokens).toEqual({});
    expect(refundTokens({ tokens: { second: 1.5 }, updatedAtMs: T0 }, { second: 2 }, 1).tokens.second).toBe(2);
  });

  it('never grants more than capacity + rate × span, whatever the callers do', () => {
    // random callers at random times; every granted call is stamped with the time it may go
    const limits = { second: 7, minute: 200 };
    let state = newBucket(T0);
    const goTimes: number[] = [];
    let seed = 42;
    const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    for (let t = T0; t < T0 + 30_000; t += rand() * 40) {
      const r = takeTokens(state, limits, t, { maxWaitMs: rand() * 2000, want: rand() < 0.3 ? 3 : 1 });
      state = r.state;
      for (let i = 0; i < r.taken; i++) goTimes.push(t - T0 + r.waitMs);
    }
    goTimes.sort((a, b) => a - b);
    for (let i = 0; i < goTimes.length; i++) {
      const span = goTimes[goTimes.length - 1]! - goTimes[i]!;
      const inSpan = goTimes.length - i;
      // (1e-6: the go times are floating point)
      expect(inSpan).toBeLessThanOrEqual(Math.floor(7 + (7 * span) / 1000 + 1e-6));
    }
    // sliding windows of one second hold at most capacity + one second of refill
    for (let i = 0, j = 0; i < goTimes.length; i++) {
      while (goTimes[i]! - goTimes[j]! > 1000) j++;
      expect(i - j + 1).toBeLessThanOrEqual(14);
    }
    expect(goTimes.length).toBeLessThanOrEqual(200 + (30_000 * 200) / 60_000 + 1);
  });
});

describe('upstream limits', () => {
  it('Retry-After blocks the bucket; a later, longer one extends it; a shorter one does not shorten it', () => {
    const s1 = applyUpstream(newBucket(T0), { retryAfterMs: 5000 }, T0);
    expect(s1.blockedUntilMs).toBe(T0 + 5000);
    expect(applyUpstream(s1, { retryAfterMs: 1000 }, T0 + 1000).blockedUntilMs).toBe(T0 + 5000);
    expect(applyUpstream(s1, { retryAfterMs: 9000 }, T0 + 1000).blockedUntilMs).toBe(T0 + 10_000);
    expect(takeTokens(s1, { second: 10 }, T0 + 1000, WAIT_FOREVER)).toMatchObject({ taken: 1, waitMs: 4000 });
    expect(takeTokens(s1, { second: 10 }, T0 + 1000, { maxWaitMs: 3999 })).toMatchObject({ taken: 0, waitMs: 4000 });
    expect(takeTokens(s1, { second: 10 }, T0 + 5000, WAIT_FOREVER)).toMatchObject({ taken: 1, waitMs: 0 });
  });

  it('caps an absurd Retry-After', () => {
    expect(applyUpstream(newBucket(T0), { retryAfterMs: 1e12 }, T0).blockedUntilMs).toBe(T0 + MAX_UPSTREAM_BLOCK_MS);
    expect(applyUpstream(newBucket(T0), { retryAfterMs: 0 }, T0).blockedUntilMs).toBeUndefined();
  });

  it('remaining 0 with a reset blocks until the reset', () => {
    const s = applyUpstream(newBucket(T0), { remaining: 0, resetAtMs: T0 + 30_000 }, T0);
    expect(takeTokens(s, { second: 10 }, T0 + 10_000, WAIT_FOREVER)).toMatchObject({ taken: 1, waitMs: 20_000 });
    expect(takeTokens(s, { second: 10 }, T0 + 30_000, WAIT_FOREVER)).toMatchObject({ taken: 1, waitMs: 0 });
  });

  it('a remaining count is a quota the bucket also draws from until the reset', () => {
    let s = applyUpstream(newBucket(T0), { remaining: 2, resetAtMs: T0 + 60_000 }, T0);
    expect(takeTokens(s, { second: 10 }, T0, { want: 5, maxWaitMs: 0 }).taken).toBe(2);
    s = drain(s, { second: 10 }, 2).state;
    expect(takeTokens(s, { second: 10 }, T0, WAIT_FOREVER).waitMs).toBe(60_000);
  });

  it('answers out of order: within a window the lower remaining and the later reset win; a new window replaces', () => {
    const s1 = applyUpstream(newBucket(T0), { remaining: 5, resetAtMs: T0 + 60_000 }, T0);
    expect(applyUpstream(s1, { remaining: 8, resetAtMs: T0 + 59_000 }, T0).quota).toEqual({ remaining: 5, resetAtMs: T0 + 60_000 });
    expect(applyUpstream(s1, { remaining: 3, resetAtMs: T0 + 61_000 }, T0).quota).toEqual({ remaining: 3, resetAtMs: T0 + 61_000 });
    expect(applyUpstream(s1, { remaining: 100, resetAtMs: T0 + 120_000 }, T0 + 60_000).quota).toEqual({
      remaining: 100,
      resetAtMs: T0 + 120_000,
    });
  });

  it('ignores a remaining count without a reset, or with a reset in the past', () => {
    expect(applyUpstream(newBucket(T0), { remaining: 0 }, T0).quota).toBeUndefined();
    expect(applyUpstream(newBucket(T0), { remaining: 0, resetAtMs: T0 - 1 }, T0).quota).toBeUndefined();
  });

  it('notes Retry-After always, remaining counts only when they run low', () => {
    expect(shouldNoteUpstream({ retryAfterMs: 1000 })).toBe(true);
    expect(shouldNoteUpstream({ remaining: 10, resetAtMs: T0 })).toBe(true);
    expect(shouldNoteUpstream({ remaining: 11, resetAtMs: T0 })).toBe(false);
    expect(shouldNoteUpstream({ remaining: 99, limit: 1000, resetAtMs: T0 })).toBe(true);
    expect(shouldNoteUpstream({ remaining: 101, limit: 1000, resetAtMs: T0 })).toBe(false);
    expect(shouldNoteUpstream({ remaining: 0 })).toBe(false);
    expect(shouldNoteUpstream({})).toBe(false);
  });
});

describe('leaseSize', () => {
  it('is 1 (no lease) for tight limits or leaseMs 0', () => {
    expect(leaseSize({ second: 10 }, 100)).toBe(1);
    expect(leaseSize({ second: 10_000, day: 1000 }, 100)).toBe(1);
    expect(leaseSize({ second: 1e6 }, 0)).toBe(1);
  });

  it('is what the slowest window refills in leaseMs, at most a quarter of the smallest bucket', () => {
    expect(leaseSize({ second: 1000 }, 100)).toBe(100);
    expect(leaseSize({ second: 1000, minute: 6000 }, 100)).toBe(10);
    expect(leaseSize({ second: 1000 }, 1000)).toBe(250);
  });

  it('caches "no block" for unlimited keys', () => {
    expect(leaseSize({}, 100)).toBe(UNLIMITED_LEASE);
  });
});

describe('parseRateLimitHeaders', () => {
  it('reads Retry-After as seconds (decimals too) or an HTTP-date', () => {
    expect(parseRateLimitHeaders({ 'retry-after': '30' }, T0)).toEqual({ retryAfterMs: 30_000 });
    expect(parseRateLimitHeaders({ 'Retry-After': '1.5' }, T0)).toEqual({ retryAfterMs: 1500 });
    const date = new Date(T0 + 90_000).toUTCString();
    expect(parseRateLimitHeaders({ 'retry-after': date }, T0)).toEqual({ retryAfterMs: 90_000 });
  });

  it('reads X-RateLimit-* with the reset as epoch seconds, epoch ms, seconds from now or a date', () => {
    const base = { 'x-ratelimit-remaining': '0', 'x-ratelimit-limit': '5000' };
    expect(parseRateLimitHeaders({ ...base, 'x-ratelimit-reset': String(T0 / 1000 + 60) }, T0)).toEqual({
      remaining: 0,
      limit: 5000,
      resetAtMs: T0 + 60_000,
    });
    expect(parseRateLimitHeaders({ ...base, 'x-ratelimit-reset': String(T0 + 5000) }, T0).resetAtMs).toBe(T0 + 5000);
    expect(parseRateLimitHeaders({ ...base, 'x-ratelimit-reset': '42' }, T0).resetAtMs).toBe(T0 + 42_000);
    expect(parseRateLimitHeaders({ ...base, 'x-ratelimit-reset': new Date(T0 + 7000).toUTCString() }, T0).resetAtMs).toBe(T0 + 7000);
    expect(parseRateLimitHeaders({ 'X-Rate-Limit-Remaining': '3', 'X-Rate-Limit-Reset': '10' }, T0)).toEqual({
      remaining: 3,
      resetAtMs: T0 + 10_000,
    });
    expect(parseRateLimitHeaders({ 'x-ratelimit-remaining': '1', 'x-ratelimit-reset-after': '2.5' }, T0)).toEqual({
      remaining: 1,
      resetAtMs: T0 + 2500,
    });
  });

  it('reads the IETF RateLimit-* fields (reset in seconds, limit with policies)', () => {
    expect(
      parseRateLimitHeaders({ 'ratelimit-limit': '100, 100;w=60', 'ratelimit-remaining': '7', 'ratelimit-reset': '15' }, T0),
    ).toEqual({ limit: 100, remaining: 7, resetAtMs: T0 + 15_000 });
  });

  it('reads the structured RateLimit header, the item with the least remaining winning', () => {
    expect(parseRateLimitHeaders({ ratelimit: '"default";r=50;t=30, "burst";r=0;t=2' }, T0)).toEqual({
      remaining: 0,
      resetAtMs: T0 + 2000,
    });
    expect(parseRateLimitHeaders({ ratelimit: 'limit=100, remaining=4, reset=9' }, T0)).toEqual({
      limit: 100,
      remaining: 4,
      resetAtMs: T0 + 9000,
    });
    // separate fields take precedence over the combined one
    expect(parseRateLimitHeaders({ 'x-ratelimit-remaining': '9', ratelimit: '"d";r=0;t=1' }, T0)).toEqual({ remaining: 9 });
  });

  it('takes the first of repeated values', () => {
    expect(parseRateLimitHeaders({ 'retry-after': ['2', '9'] }, T0)).toEqual({ retryAfterMs: 2000 });
  });

  it.each([
    ['retry-after', 'soon'],
    ['retry-after', '-5'],
    ['retry-after', 'Wed, 21 Oct 2015 07:28:00'],
    ['x-ratelimit-remaining', '-1'],
    ['x-ratelimit-remaining', 'many'],
    ['x-ratelimit-reset', 'later'],
    ['ratelimit-reset', '-3'],
    ['ratelimit', ';;=,,r='],
    ['ratelimit', '"d";r=x;t=1'],
  ])('ignores a bad %s value %p without throwing', (name, value) => {
    expect(parseRateLimitHeaders({ [name]: value }, T0)).toEqual({});
  });

  it('ignores undefined and empty headers', () => {
    expect(parseRateLimitHeaders({ 'retry-after': undefined, 'x-ratelimit-remaining': [] }, T0)).toEqual({});
  });

  it('finds its headers among any others, whatever their case, and ignores inherited properties', () => {
    const answer = {
      'content-type': 'application/json',
      'content-length': '4096',
      date: new Date(T0).toUTCString(),
      'RETRY-AFTER': ' 3 ',
      'X-RATELIMIT-REMAINING': '2',
      'x-RateLimit-Reset': '20',
      connection: 'keep-alive',
    };
    expect(parseRateLimitHeaders(answer, T0)).toEqual({ retryAfterMs: 3000, remaining: 2, resetAtMs: T0 + 20_000 });
    expect(parseRateLimitHeaders({ 'content-type': 'text/html', server: 'x', vary: 'accept' }, T0)).toEqual({});
    const inherited = Object.create({ 'retry-after': '30' }) as Record<string, string>;
    inherited['x-request-id'] = 'abc';
    expect(parseRateLimitHeaders(inherited, T0)).toEqual({});
  });
});

describe('limits from definitions and bindings', () => {
  it('reads connection.rate_limit', () => {
    expect(connectorRateLimits({ rate_limit: { requests_per_second: 10, requests_per_day: 1000 } })).toEqual({ second: 10, day: 1000 });
    expect(connectorRateLimits({ base_url: 'x' })).toEqual({});
    expect(connectorRateLimits(undefined)).toEqual({});
    expect(connectorRateLimits({ rate_limit: { requests_per_minute: undefined } })).toEqual({});
  });

  it.each([
    [{ rate_limit: 5 }, 'connection.rate_limit', 'must be a mapping of requests_per_second/minute/hour/day'],
    [{ rate_limit: [1] }, 'connection.rate_limit', 'must be a mapping of requests_per_second/minute/hour/day'],
    [{ rate_limit: { per_minute: 5 } }, 'connection.rate_limit.per_minute', 'unknown key; use requests_per_second, requests_per_minute, requests_per_hour, requests_per_day'],
    [{ rate_limit: { requests_per_minute: '5' } }, 'connection.rate_limit.requests_per_minute', 'must be a positive number'],
    [{ rate_limit: { requests_per_hour: 0 } }, 'connection.rate_limit.requests_per_hour', 'must be a positive number'],
    [{ rate_limit: { requests_per_day: Number.POSITIVE_INFINITY } }, 'connection.rate_limit.requests_per_day', 'must be a positive number'],
  ])('refuses %p naming %s', (connection, field, reason) => {
    let err: unknown;
    try {
      connectorRateLimits(connection);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field, reason }] });
  });

  it('a binding override of 0 means none; others are per minute', () => {
    expect(bindingRateLimits(0)).toEqual({});
    expect(bindingRateLimits(2.5)).toEqual({ minute: 2.5 });
    expect(() => bindingRateLimits(-1)).toThrow('rate_limit_per_minute: must be a positive number');
    expect(() => bindingRateLimits(Number.NaN)).toThrow('rate_limit_per_minute: must be a positive number');
  });

  it('checkRateLimits names the bad window', () => {
    expect(checkRateLimits({ second: 1 })).toEqual({ second: 1 });
    expect(checkRateLimits({})).toEqual({});
    expect(() => checkRateLimits({ second: 1, hour: -2 })).toThrow('rate_limit.requests_per_hour: must be a positive number');
    expect(() => checkRateLimits({ minute: 0 }, 'limits')).toThrow('limits.requests_per_minute: must be a positive number');
    expect(() => checkRateLimits({ day: Number.POSITIVE_INFINITY })).toThrow('rate_limit.requests_per_day: must be a positive number');
    expect(() => checkRateLimits({ second: '5' as unknown as number })).toThrow('rate_limit.requests_per_second: must be a positive number');
    expect(() => checkRateLimits({ second: null as unknown as number })).toThrow('rate_limit.requests_per_second: must be a positive number');
  });

  it('rateLimitsSignature is the same for equal limits, whatever their key order, and differs otherwise', () => {
    expect(rateLimitsSignature({ second: 10, day: 1000 })).toBe(rateLimitsSignature({ day: 1000, second: 10 }));
    expect(rateLimitsSignature({ second: 10 })).not.toBe(rateLimitsSignature({ minute: 10 }));
    expect(rateLimitsSignature({ second: 10 })).not.toBe(rateLimitsSignature({ second: 10, day: 1000 }));
    expect(rateLimitsSignature({ second: 1.5 })).not.toBe(rateLimitsSignature({ second: 15 }));
    expect(rateLimitsSignature({})).toBe(rateLimitsSignature({}));
  });

  it('describes limits for messages', () => {
    expect(describeRateLimits({ second: 10, day: 1000 })).toBe('10 per second, 1000 per day');
    expect(describeRateLimits({})).toBe('no limit');
  });

  it('keys never collide across owners and ids', () => {
    expect(connectorKey('a:b', 'c')).not.toBe(connectorKey('a', 'b:c'));
    expect(connectorKey('alice', 'fec')).toBe('connector:alice:fec');
    expect(bindingKey('alice', 'prof-1', 'fec')).toBe('binding:alice:prof-1:fec');
    expect(bindingKey('a:b', 'c', 'd')).not.toBe(bindingKey('a', 'b:c', 'd'));
  });
});
