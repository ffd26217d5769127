import { ConnectorError } from './connector-error.js';
import {
  classifyFailure,
  decideRetry,
  DEFAULT_RETRY_POLICY,
  failureOutcome,
  jitteredDelay,
  type RetryHistory,
} from './retry-policy.js';

const http = (status: number, code: ConnectorError['code'], retryAfterMs?: number) =>
  new ConnectorError(code, `HTTP ${status}`, { status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
const auth401 = http(401, 'AUTH_FAILED');
const auth403 = http(403, 'AUTH_FAILED');
const rateLimited = http(429, 'RATE_LIMIT');
const server500 = http(500, 'UNAVAILABLE');
const server503 = http(503, 'UNAVAILABLE', 2000);
const timeout = new ConnectorError('TIMEOUT', 'no answer within 1000 ms');
const network = new ConnectorError('UNAVAILABLE', 'could not reach the upstream: ECONNREFUSED');

describe('classifyFailure / failureOutcome', () => {
  it.each<[string, string, unknown]>([
    ['401', 'auth_failed', auth401],
    ['403', 'auth_failed', auth403],
    ['429', 'rate_limited', rateLimited],
    ['500', 'upstream_unavailable', server500],
    ['TIMEOUT', 'timeout', timeout],
    ['408', 'timeout', http(408, 'TIMEOUT')],
    ['network error', 'network_error', network],
    ['CANCELLED', 'cancelled', new ConnectorError('CANCELLED', 'cancelled')],
    ['400', 'failed', http(400, 'INVALID_ARGUMENT')],
    ['404', 'failed', http(404, 'NOT_FOUND')],
    ['418', 'failed', http(418, 'UPSTREAM_ERROR')],
    ['egress refused', 'failed', new ConnectorError('FAILED_PRECONDITION', 'egress refused')],
    ['UNIMPLEMENTED', 'failed', new ConnectorError('UNIMPLEMENTED', 'nope')],
    ['a plain Error', 'failed', new Error('a bug')],
    ['a thrown string', 'failed', 'a string'],
  ])('%s → %s', (_label, outcome, err) => {
    expect(failureOutcome(err)).toBe(outcome);
  });

  it('names the retry kind for retryable rows and the outcome for the others', () => {
    expect(classifyFailure(rateLimited)).toEqual({ kind: 'rate_limited' });
    expect(classifyFailure(auth401)).toEqual({ outcome: 'auth_failed' });
  });
});

describe('decideRetry', () => {
  it('401/403: never retried, outcome auth_failed', () => {
    for (const err of [auth401, auth403]) {
      expect(decideRetry(err, {}, 1000)).toEqual({ retry: false, outcome: 'auth_failed', reason: 'not retryable' });
    }
  });

  it('429 without Retry-After: exponential backoff 1 s, 2 s, 4 s, then gives up after 3 retries', () => {
    const delays: number[] = [];
    const history: { rate_limited?: number } = {};
    for (;;) {
      const d = decideRetry(rateLimited, history, 5000);
      if (!d.retry) {
        expect(d).toMatchObject({ outcome: 'rate_limited', reason: 'rate limited 4 times' });
        break;
      }
      expect(d).toMatchObject({ kind: 'rate_limited', fromRetryAfter: false, timeoutMs: 5000 });
      delays.push(d.delayMs);
      history.rate_limited = (history.rate_limited ?? 0) + 1;
    }
    expect(delays).toEqual([1000, 2000, 4000]);
  });

  it('429 backoff is capped at maxDelayMs', () => {
    const d = decideRetry(rateLimited, { rate_limited: 2 }, 1000, {
      ...DEFAULT_RETRY_POLICY,
      rateLimitBaseDelayMs: 20_000,
    });
    expect(d).toMatchObject({ retry: true, delayMs: 30_000 });
  });

  it('429 with Retry-After waits exactly that long', () => {
    expect(decideRetry(http(429, 'RATE_LIMIT', 7000), {}, 1000)).toEqual({
      retry: true,
      kind: 'rate_limited',
      delayMs: 7000,
      fromRetryAfter: true,
      timeoutMs: 1000,
    });
    expect(decideRetry(http(429, 'RATE_LIMIT', 0), {}, 1000)).toMatchObject({ retry: true, delayMs: 0 });
  });

  it('429 with a Retry-After beyond the cap gives up at once (the error keeps retryAfterMs for the caller)', () => {
    expect(decideRetry(http(429, 'RATE_LIMIT', 120_000), {}, 1000)).toEqual({
      retry: false,
      outcome: 'rate_limited',
      reason: 'Retry-After of 120000 ms exceeds the 30000 ms cap',
    });
  });

  it('5xx: retried once after a short pause, then gives up', () => {
    expect(decideRetry(server500, {}, 1000)).toEqual({
      retry: true,
      kind: 'upstream_unavailable',
      delayMs: 500,
      fromRetryAfter: false,
      timeoutMs: 1000,
    });
    expect(decideRetry(server500, { upstream_unavailable: 1 }, 1000)).toMatchObject({
      retry: false,
      outcome: 'upstream_unavailable',
    });
    expect(decideRetry(server503, {}, 1000)).toMatchObject({ retry: true, delayMs: 500 });
  });

  it('timeout: retried once with the timeout doubled, then gives up', () => {
    expect(decideRetry(timeout, {}, 1500)).toEqual({
      retry: true,
      kind: 'timeout',
      delayMs: 0,
      fromRetryAfter: false,
      timeoutMs: 3000,
    });
    expect(decideRetry(timeout, { timeout: 1 }, 3000)).toEqual({
      retry: false,
      outcome: 'timeout',
      reason: 'failed again after 1 retry',
    });
  });

  it('network error (no status): retried once, then gives up', () => {
    expect(decideRetry(network, {}, 1000)).toMatchObject({ retry: true, kind: 'network_error', delayMs: 500 });
    expect(decideRetry(network, { network_error: 1 }, 1000)).toMatchObject({ retry: false, outcome: 'network_error' });
  });

  it('each kind has its own budget, within 3 retries in all', () => {
    expect(decideRetry(server500, { network_error: 1 }, 1000)).toMatchObject({ retry: true });
    const spent: RetryHistory = { rate_limited: 1, network_error: 1, timeout: 1 };
    expect(decideRetry(server500, spent, 1000)).toMatchObject({ retry: false, reason: '3 retries already made' });
  });

  it('never retries other errors, nor a retryable code explicitly marked not retryable', () => {
    for (const err of [http(400, 'INVALID_ARGUMENT'), http(404, 'NOT_FOUND'), new Error('bug')]) {
      expect(decideRetry(err, {}, 1000)).toMatchObject({ retry: false, outcome: 'failed' });
    }
    const pinned = new ConnectorError('UNAVAILABLE', 'x', { status: 502, retryable: false });
    expect(decideRetry(pinned, {}, 1000)).toMatchObject({
      retry: false,
      outcome: 'upstream_unavailable',
      reason: 'the error is marked not retryable',
    });
    expect(decideRetry(new ConnectorError('CANCELLED', 'x'), {}, 1000)).toMatchObject({ retry: false, outcome: 'cancelled' });
  });
});

describe('jitteredDelay', () => {
  it('backoff: between half and all of the delay', () => {
    expect(jitteredDelay({ delayMs: 1000, fromRetryAfter: false }, () => 0)).toBe(500);
    expect(jitteredDelay({ delayMs: 1000, fromRetryAfter: false }, () => 0.5)).toBe(750);
    expect(jitteredDelay({ delayMs: 1000, fromRetryAfter: false }, () => 0.999999)).toBe(1000);
  });

  it('Retry-After: never shorter, at most 10% (≤ 1 s) longer', () => {
    expect(jitteredDelay({ delayMs: 2000, fromRetryAfter: true }, () => 0)).toBe(2000);
    expect(jitteredDelay({ delayMs: 2000, fromRetryAfter: true }, () => 1)).toBe(2200);
    expect(jitteredDelay({ delayMs: 29_000, fromRetryAfter: true }, () => 1)).toBe(30_000);
    expect(jitteredDelay({ delayMs: 30_000, fromRetryAfter: true }, () => 1)).toBe(30_000);
  });

  it('zero stays zero and a misbehaving random is clamped', () => {
    expect(jitteredDelay({ delayMs: 0, fromRetryAfter: false }, () => 0.7)).toBe(0);
    expect(jitteredDelay({ delayMs: 1000, fromRetryAfter: false }, () => 5)).toBe(1000);
    expect(jitteredDelay({ delayMs: 1000, fromRetryAfter: false }, () => -1)).toBe(500);
  });
});
