/**
 * Seed §10 "Connector Failures" as a pure policy: given the error of one
 * attempt and what happened before, whether to try again, after how long and
 * with which timeout.
 *
 * | failure                         | handling                                        | outcome              |
 * |---------------------------------|-------------------------------------------------|----------------------|
 * | 401/403 (AUTH_FAILED)           | no retry                                        | auth_failed          |
 * | 429 (RATE_LIMIT)                | exponential backoff, up to 3 retries, honouring | rate_limited         |
 * |                                 | Retry-After (give up when it exceeds the cap)   |                      |
 * | 5xx (UNAVAILABLE with a status) | retry once                                      | upstream_unavailable |
 * | TIMEOUT (incl. 408)             | retry once with the timeout doubled             | timeout              |
 * | network error (no status)       | retry once                                      | network_error        |
 * | malformed response              | not an error: an empty result with a warning    | —                    |
 * | anything else                   | no retry                                        | failed / cancelled   |
 *
 * At most `maxRetries` (3) retries in all, whatever mix of failures.
 * Randomness (jitter) is injected so every row is testable exactly.
 */
import { ConnectorError } from './connector-error.js';

/** Why a call finally failed, for the app (e.g. mark the binding on `auth_failed`) and the user message. */
export type FailureOutcome =
  | 'auth_failed'
  | 'rate_limited'
  | 'upstream_unavailable'
  | 'timeout'
  | 'network_error'
  | 'cancelled'
  | 'failed';

/** The retryable rows of the table. */
export type RetryKind = 'rate_limited' | 'upstream_unavailable' | 'timeout' | 'network_error';

export interface RetryPolicyOptions {
  /** Retries of a 429 (default 3). */
  rateLimitRetries: number;
  /** First backoff after a 429 without Retry-After, doubled per retry (default 1000 ms). */
  rateLimitBaseDelayMs: number;
  /** No wait is longer than this; a Retry-After beyond it ends the retries (default 30 000 ms). */
  maxDelayMs: number;
  /** Pause before the one retry of a 5xx or a network error (default 500 ms). */
  retryOnceDelayMs: number;
  /** Retries in all, across kinds (default 3). */
  maxRetries: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicyOptions = {
  rateLimitRetries: 3,
  rateLimitBaseDelayMs: 1000,
  maxDelayMs: 30_000,
  retryOnceDelayMs: 500,
  maxRetries: 3,
};

/** Retries already made, per kind. */
export type RetryHistory = Readonly<Partial<Record<RetryKind, number>>>;

export type RetryDecision =
  | {
      retry: true;
      kind: RetryKind;
      /** Wait before the next attempt, before jitter. */
      delayMs: number;
      /** True when `delayMs` is the upstream's Retry-After: jitter may only lengthen it. */
      fromRetryAfter: boolean;
      /** Timeout of the next attempt. */
      timeoutMs: number;
    }
  | { retry: false; outcome: FailureOutcome; reason: string };

/** The table row an error falls in: its retry kind, or the final outcome when it is never retried. */
export function classifyFailure(err: unknown): { kind: RetryKind } | { outcome: FailureOutcome } {
  if (!(err instanceof ConnectorError)) return { outcome: 'failed' };
  switch (err.code) {
    case 'AUTH_FAILED':
      return { outcome: 'auth_failed' };
    case 'RATE_LIMIT':
      return { kind: 'rate_limited' };
    case 'TIMEOUT':
      return { kind: 'timeout' };
    case 'UNAVAILABLE':
      return { kind: err.status === undefined ? 'network_error' : 'upstream_unavailable' };
    case 'CANCELLED':
      return { outcome: 'cancelled' };
    default:
      return { outcome: 'failed' };
  }
}

/** The outcome to report for a final error (after retries, or when none were allowed). */
export function failureOutcome(err: unknown): FailureOutcome {
  const row = classifyFailure(err);
  return 'kind' in row ? row.kind : row.outcome;
}

/**
 * Decides what to do after attempt failed with `err`.
 * `timeoutMs` is the timeout the failed attempt had.
 */
export function decideRetry(
  err: unknown,
  history: RetryHistory,
  timeoutMs: number,
  options: RetryPolicyOptions = DEFAULT_RETRY_POLICY,
): RetryDecision {
  const row = classifyFailure(err);
  if ('outcome' in row) return { retry: false, outcome: row.outcome, reason: 'not retryable' };
  const kind = row.kind;
  const stop = (reason: string): RetryDecision => ({ retry: false, outcome: kind, reason });
  if ((err as ConnectorError).retryable === false) return stop('the error is marked not retryable');
  const done = history[kind] ?? 0;
  const budget = kind === 'rate_limited' ? options.rateLimitRetries : 1;
  if (done >= budget) {
    return stop(kind === 'rate_limited' ? `rate limited ${done + 1} times` : `failed again after ${done} retry`);
  }
  const total = Object.values(history).reduce((sum, n) => sum + (n ?? 0), 0);
  if (total >= options.maxRetries) return stop(`${total} retries already made`);

  switch (kind) {
    case 'rate_limited': {
      const retryAfter = (err as ConnectorError).retryAfterMs;
      if (retryAfter !== undefined) {
        if (retryAfter > options.maxDelayMs) {
          return stop(`Retry-After of ${retryAfter} ms exceeds the ${options.maxDelayMs} ms cap`);
        }
        return { retry: true, kind, delayMs: retryAfter, fromRetryAfter: true, timeoutMs };
      }
      const backoff = Math.min(options.rateLimitBaseDelayMs * 2 ** done, options.maxDelayMs);
      return { retry: true, kind, delayMs: backoff, fromRetryAfter: false, timeoutMs };
    }
    case 'timeout':
      return { retry: true, kind, delayMs: 0, fromRetryAfter: false, timeoutMs: timeoutMs * 2 };
    case 'upstream_unavailable':
    case 'network_error':
      return { retry: true, kind, delayMs: options.retryOnceDelayMs, fromRetryAfter: false, timeoutMs };
  }
}

/**
 * The wait actually used: "equal jitter" (between half and all of the
 * backoff) so replicas hit by the same 429 do not retry in lockstep; a
 * Retry-After is only ever lengthened (by up to 10%, at most 1 s), never cut.
 * `random` returns a number in [0, 1).
 */
export function jitteredDelay(
  decision: { delayMs: number; fromRetryAfter: boolean },
  random: () => number,
  maxDelayMs: number = DEFAULT_RETRY_POLICY.maxDelayMs,
): number {
  const r = Math.min(Math.max(random(), 0), 1);
  if (decision.delayMs <= 0) return 0;
  if (decision.fromRetryAfter) {
    const extra = Math.min(decision.delayMs * 0.1, 1000) * r;
    return Math.round(Math.min(decision.delayMs + extra, Math.max(maxDelayMs, decision.delayMs)));
  }
  return Math.round(decision.delayMs / 2 + (decision.delayMs / 2) * r);
}
