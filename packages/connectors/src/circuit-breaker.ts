/**
 * Circuit breaker per connector (seed §10 "Circuit Breaker Pattern"), as a
 * pure state machine over a state that every replica shares.
 *
 *   closed ──N consecutive upstream failures──▶ open
 *   open ──recovery time passed, next call──▶ half_open (that call is the one trial)
 *   half_open ──trial succeeds──▶ closed
 *   half_open ──trial fails──▶ open (for another recovery time)
 *   half_open ──trial gives no verdict (cancelled) or its claim lapses──▶ next call is the trial
 *
 * Only failures that say the upstream is unhealthy count: no answer
 * (network error, timeout) or a 5xx / 408. An answer that refuses the call
 * (400, 401, 403, 404, 429, …) proves the upstream is up and counts as a
 * success; errors raised before any request (bad input, missing
 * credential, our own rate limiter, cancellation) say nothing either way.
 *
 * Only the trial's result moves a half-open breaker; results of calls
 * admitted before the breaker opened are ignored once it is open, so a
 * late straggler neither extends nor ends the open period. Times are epoch
 * milliseconds on one clock (the infra adapter uses the database's).
 */
import { ConnectorError } from './connector-error.js';

export type BreakerStateName = 'closed' | 'open' | 'half_open';

export interface BreakerState {
  state: BreakerStateName;
  /** Consecutive counted failures (kept when it opens, for the message). */
  failures: number;
  /** open: calls are refused until then. */
  openUntilMs?: number;
  /** half_open: the id of the call holding the trial, and when its claim lapses. */
  trialId?: string;
  trialUntilMs?: number;
  /** Code of the last counted failure (UNAVAILABLE / TIMEOUT), for the message. */
  lastFailure?: string;
}

export interface BreakerSettings {
  /** Consecutive counted failures that open the breaker (BREAKER_FAILURE_THRESHOLD). */
  failureThreshold: number;
  /** How long it stays open before one trial call (BREAKER_RECOVERY_MS). */
  recoveryMs: number;
}

export const CLOSED: BreakerState = { state: 'closed', failures: 0 };

/** What a finished call tells the breaker. */
export type BreakerOutcome = 'success' | 'failure' | 'neutral';

export type Admission =
  | { allowed: true; trial: boolean; next: BreakerState }
  | { allowed: false; retryAfterMs: number; next: BreakerState };

/** Reads a call's result: `undefined` = it succeeded. */
export function classifyOutcome(error: unknown): BreakerOutcome {
  if (error === undefined) return 'success';
  if (!(error instanceof ConnectorError)) return 'neutral';
  if (error.status !== undefined) {
    return error.status >= 500 || error.status === 408 ? 'failure' : 'success';
  }
  return error.code === 'UNAVAILABLE' || error.code === 'TIMEOUT' ? 'failure' : 'neutral';
}

/**
 * May a call go through now? An open breaker whose recovery time has
 * passed, or a half-open one whose trial claim lapsed, hands the trial to
 * this call (`trialId`, held for `trialTimeoutMs`).
 */
export function admit(state: BreakerState, nowMs: number, trial: { trialId: string; trialTimeoutMs: number }): Admission {
  const claim = (): Admission => ({
    allowed: true,
    trial: true,
    next: { ...withoutTrial(state), state: 'half_open', trialId: trial.trialId, trialUntilMs: nowMs + trial.trialTimeoutMs },
  });
  switch (state.state) {
    case 'closed':
      return { allowed: true, trial: false, next: state };
    case 'open': {
      const until = state.openUntilMs ?? nowMs;
      return nowMs >= until ? claim() : { allowed: false, retryAfterMs: until - nowMs, next: state };
    }
    case 'half_open': {
      const until = state.trialUntilMs ?? nowMs;
      return nowMs >= until ? claim() : { allowed: false, retryAfterMs: until - nowMs, next: state };
    }
  }
}

/** The state after a call finished with `outcome`; `trialId` is set when the call held the trial. */
export function recordOutcome(
  state: BreakerState,
  outcome: BreakerOutcome,
  nowMs: number,
  settings: BreakerSettings,
  trialId?: string,
): BreakerState {
  if (state.state === 'closed') {
    if (outcome === 'success') return state.failures === 0 ? state : CLOSED;
    if (outcome === 'neutral') return state;
    const failures = state.failures + 1;
    return failures >= settings.failureThreshold
      ? { ...state, state: 'open', failures, openUntilMs: nowMs + settings.recoveryMs }
      : { ...state, failures };
  }
  if (state.state === 'open' || trialId === undefined || trialId !== state.trialId) return state;
  // The trial's verdict.
  if (outcome === 'success') return CLOSED;
  if (outcome === 'failure') return { ...withoutTrial(state), state: 'open', failures: state.failures + 1, openUntilMs: nowMs + settings.recoveryMs };
  return { ...withoutTrial(state), state: 'open', openUntilMs: nowMs };
}

/** `recordOutcome` that also remembers which code failed. */
export function recordResult(
  state: BreakerState,
  error: unknown,
  nowMs: number,
  settings: BreakerSettings,
  trialId?: string,
): BreakerState {
  const outcome = classifyOutcome(error);
  const next = recordOutcome(state, outcome, nowMs, settings, trialId);
  if (outcome === 'failure' && next !== state && error instanceof ConnectorError) return { ...next, lastFailure: error.code };
  return next;
}

function withoutTrial(state: BreakerState): BreakerState {
  const { trialId: _id, trialUntilMs: _until, ...rest } = state;
  return rest;
}

/**
 * The error for a refused call: names the connector, why it is refused and
 * when a call will be tried again.
 */
export function breakerOpenError(label: string, state: BreakerState, retryAfterMs: number, nowMs: number): ConnectorError {
  const wait = Math.max(0, Math.ceil(retryAfterMs));
  const at = new Date(nowMs + wait).toISOString();
  const why =
    state.state === 'half_open'
      ? 'another call is testing whether the upstream has recovered'
      : `${state.failures} consecutive upstream failures${state.lastFailure ? ` (last: ${state.lastFailure})` : ''}`;
  return new ConnectorError(
    'UNAVAILABLE',
    `${label}: circuit breaker open — ${why}; the next trial call is allowed at ${at} (in ${formatWait(wait)})`,
    { retryAfterMs: wait },
  );
}

function formatWait(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}
