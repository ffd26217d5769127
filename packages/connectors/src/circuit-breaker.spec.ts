import {
  CLOSED,
  admit,
  breakerOpenError,
  classifyOutcome,
  recordOutcome,
  recordResult,
  type BreakerState,
} from './circuit-breaker.js';
import { ConnectorError } from './connector-error.js';

const settings = { failureThreshold: 3, recoveryMs: 60_000 };
const trial = (trialId: string) => ({ trialId, trialTimeoutMs: 30_000 });
const T0 = 1_800_000_000_000;

function failTimes(state: BreakerState, n: number, at = T0): BreakerState {
  for (let i = 0; i < n; i++) state = recordOutcome(state, 'failure', at, settings);
  return state;
}

describe('classifyOutcome', () => {
  it.each<[string, string, unknown]>([
    ['a success', 'success', undefined],
    ['a network failure (no answer)', 'failure', new ConnectorError('UNAVAILABLE', 'x')],
    ['a timeout (no answer)', 'failure', new ConnectorError('TIMEOUT', 'x')],
    ['a 5xx', 'failure', new ConnectorError('UNAVAILABLE', 'x', { status: 503 })],
    ['a 408', 'failure', new ConnectorError('TIMEOUT', 'x', { status: 408 })],
    ['a 400 (upstream is up)', 'success', new ConnectorError('INVALID_ARGUMENT', 'x', { status: 400 })],
    ['a 404', 'success', new ConnectorError('NOT_FOUND', 'x', { status: 404 })],
    ['a 401', 'success', new ConnectorError('AUTH_FAILED', 'x', { status: 401 })],
    ['a 429', 'success', new ConnectorError('RATE_LIMIT', 'x', { status: 429 })],
    ['a 409', 'success', new ConnectorError('UPSTREAM_ERROR', 'x', { status: 409 })],
    ['our own input check', 'neutral', ConnectorError.invalid('inputs.q', 'required')],
    ['a missing credential', 'neutral', new ConnectorError('FAILED_PRECONDITION', 'x')],
    ['our own rate limiter', 'neutral', new ConnectorError('RATE_LIMIT', 'x', { retryAfterMs: 5 })],
    ['a cancellation', 'neutral', new ConnectorError('CANCELLED', 'x')],
    ['an unexpected exception', 'neutral', new Error('bug')],
  ])('%s → %s', (_name, expected, error) => {
    expect(classifyOutcome(error)).toBe(expected);
  });
});

describe('closed', () => {
  it('admits calls without changing the state', () => {
    expect(admit(CLOSED, T0, trial('t'))).toEqual({ allowed: true, trial: false, next: CLOSED });
  });

  it('counts consecutive failures and opens at the threshold for the recovery time', () => {
    const two = failTimes(CLOSED, 2);
    expect(two).toMatchObject({ state: 'closed', failures: 2 });
    expect(recordOutcome(two, 'failure', T0 + 5, settings)).toEqual({ state: 'open', failures: 3, openUntilMs: T0 + 5 + 60_000 });
  });

  it('a success resets the count; a neutral result leaves it', () => {
    const two = failTimes(CLOSED, 2);
    expect(recordOutcome(two, 'neutral', T0, settings)).toBe(two);
    expect(recordOutcome(two, 'success', T0, settings)).toEqual(CLOSED);
    expect(recordOutcome(CLOSED, 'success', T0, settings)).toBe(CLOSED);
    expect(failTimes(recordOutcome(two, 'success', T0, settings), 2)).toMatchObject({ state: 'closed', failures: 2 });
  });

  it('remembers the code of the last counted failure', () => {
    let s: BreakerState = CLOSED;
    s = recordResult(s, new ConnectorError('UNAVAILABLE', 'down'), T0, settings);
    s = recordResult(s, new ConnectorError('UNAVAILABLE', 'down'), T0, settings);
    s = recordResult(s, new ConnectorError('TIMEOUT', 'slow'), T0, settings);
    expect(s).toMatchObject({ state: 'open', failures: 3, lastFailure: 'TIMEOUT' });
    expect(recordResult(CLOSED, new ConnectorError('NOT_FOUND', 'x', { status: 404 }), T0, settings)).toBe(CLOSED);
  });
});

describe('open', () => {
  const open = failTimes(CLOSED, 3);

  it('refuses calls until the recovery time, saying how long is left', () => {
    expect(admit(open, T0 + 10_000, trial('t'))).toEqual({ allowed: false, retryAfterMs: 50_000, next: open });
  });

  it('hands the trial to the first call after the recovery time', () => {
    const a = admit(open, T0 + 60_000, trial('t1'));
    expect(a).toEqual({
      allowed: true,
      trial: true,
      next: { state: 'half_open', failures: 3, openUntilMs: T0 + 60_000, trialId: 't1', trialUntilMs: T0 + 90_000 },
    });
  });

  it('ignores results of calls admitted before it opened (no extension, no early close)', () => {
    expect(recordOutcome(open, 'failure', T0 + 30_000, settings)).toBe(open);
    expect(recordOutcome(open, 'success', T0 + 30_000, settings)).toBe(open);
    expect(recordOutcome(open, 'success', T0 + 30_000, settings, 'stale-trial')).toBe(open);
  });
});

describe('half-open', () => {
  const open = failTimes(CLOSED, 3);
  const half = (admit(open, T0 + 60_000, trial('t1')) as { next: BreakerState }).next;

  it('refuses every other call while the trial runs', () => {
    expect(admit(half, T0 + 61_000, trial('t2'))).toEqual({ allowed: false, retryAfterMs: 29_000, next: half });
  });

  it('a successful trial closes it', () => {
    expect(recordOutcome(half, 'success', T0 + 61_000, settings, 't1')).toEqual(CLOSED);
  });

  it('a failed trial opens it for another recovery time', () => {
    const again = recordOutcome(half, 'failure', T0 + 61_000, settings, 't1');
    expect(again).toEqual({ state: 'open', failures: 4, openUntilMs: T0 + 121_000 });
    expect(admit(again, T0 + 100_000, trial('t3')).allowed).toBe(false);
  });

  it('a trial without a verdict (cancelled) lets the next call be the trial at once', () => {
    const released = recordOutcome(half, 'neutral', T0 + 61_000, settings, 't1');
    expect(released).toEqual({ state: 'open', failures: 3, openUntilMs: T0 + 61_000 });
    expect(admit(released, T0 + 61_001, trial('t2'))).toMatchObject({ allowed: true, trial: true, next: { trialId: 't2' } });
  });

  it('results of calls that are not the trial do not move it', () => {
    expect(recordOutcome(half, 'success', T0 + 61_000, settings)).toBe(half);
    expect(recordOutcome(half, 'failure', T0 + 61_000, settings, 'other')).toBe(half);
  });

  it('a lapsed trial claim (its caller died) passes the trial to the next call', () => {
    const a = admit(half, T0 + 90_000, trial('t2'));
    expect(a).toMatchObject({ allowed: true, trial: true, next: { state: 'half_open', trialId: 't2', trialUntilMs: T0 + 120_000 } });
    // the first trial's late verdict no longer counts
    const next = (a as { next: BreakerState }).next;
    expect(recordOutcome(next, 'success', T0 + 91_000, settings, 't1')).toBe(next);
  });
});

describe('breakerOpenError', () => {
  it('is UNAVAILABLE, retryable, names the connector, the reason and when it will try again', () => {
    const open = recordResult(failTimes(CLOSED, 2), new ConnectorError('TIMEOUT', 'slow'), T0, settings);
    const err = breakerOpenError('fec-contributions', open, 42_000, T0);
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err.code).toBe('UNAVAILABLE');
    expect(err.retryable).toBe(true);
    expect(err.retryAfterMs).toBe(42_000);
    expect(err.message).toBe(
      `fec-contributions: circuit breaker open — 3 consecutive upstream failures (last: TIMEOUT); the next trial call is allowed at ${new Date(T0 + 42_000).toISOString()} (in 42 s)`,
    );
  });

  it('says when another call holds the trial, with sub-second waits in ms', () => {
    const half: BreakerState = { state: 'half_open', failures: 3, trialId: 't', trialUntilMs: T0 + 500 };
    const err = breakerOpenError('c', half, 499.2, T0);
    expect(err.retryAfterMs).toBe(500);
    expect(err.message).toMatch(/another call is testing whether the upstream has recovered; .* \(in 500 ms\)$/);
    expect(breakerOpenError('c', half, 2500, T0).message).toMatch(/\(in 2\.5 s\)$/);
  });
});
