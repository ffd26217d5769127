/**
 * Runs one connector call with the seed §10 failure table applied
 * (`domain/retry-policy.ts`): backs off on 429 (honouring Retry-After),
 * retries a 5xx or a network error once, retries a timeout once with the
 * timeout doubled, and never retries anything else. The caller's signal
 * cancels both an attempt and a wait between attempts.
 *
 * The final error is rethrown unchanged — the same ConnectorError object —
 * so its code, status and retryAfterMs reach the caller; `failureOutcome(err)`
 * tells the caller which table row it was (e.g. `auth_failed`).
 */
import { ConnectorError } from '@af/connectors';
import type { EndpointResult } from '@af/connectors';
import {
  decideRetry,
  DEFAULT_RETRY_POLICY,
  jitteredDelay,
  type RetryKind,
  type RetryPolicyOptions,
} from '@af/connectors';

/** Waits `ms`; rejects when `signal` fires. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface RetryInfo {
  /** The attempt that failed (1 = the first call). */
  attempt: number;
  kind: RetryKind;
  /** The wait before the next attempt, jitter included. */
  delayMs: number;
  /** The timeout the next attempt gets. */
  timeoutMs: number;
  error: ConnectorError;
}

export interface CallWithRetriesOptions {
  /** Timeout of the first attempt (ms); a TIMEOUT doubles it for the retry. */
  baseTimeoutMs: number;
  signal?: AbortSignal;
  /** Defaults to a real, abortable timer. */
  sleep?: Sleep;
  /** Told before every retry (for logs and metrics); its own errors are ignored. */
  onRetry?: (info: RetryInfo) => void;
  /** In [0, 1); defaults to Math.random. */
  random?: () => number;
  policy?: Partial<RetryPolicyOptions>;
}

/** Calls `attempt(timeoutMs)` until it succeeds or the failure table says stop. */
export async function callWithRetries<T = EndpointResult>(
  attempt: (timeoutMs: number) => Promise<T>,
  options: CallWithRetriesOptions,
): Promise<T> {
  const { baseTimeoutMs, signal } = options;
  if (!Number.isFinite(baseTimeoutMs) || baseTimeoutMs <= 0) {
    throw ConnectorError.invalid('baseTimeoutMs', 'must be a positive number of milliseconds');
  }
  const policy: RetryPolicyOptions = { ...DEFAULT_RETRY_POLICY, ...options.policy };
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  const history: Partial<Record<RetryKind, number>> = {};
  let timeoutMs = baseTimeoutMs;

  for (let n = 1; ; n++) {
    if (signal?.aborted) throw new ConnectorError('CANCELLED', `cancelled before attempt ${n}`);
    try {
      return await attempt(timeoutMs);
    } catch (err) {
      // A cancelled call is over, whatever the attempt made of the abort.
      if (signal?.aborted) throw err;
      const decision = decideRetry(err, history, timeoutMs, policy);
      if (!decision.retry) throw err;
      const error = err as ConnectorError;
      const delayMs = jitteredDelay(decision, random, policy.maxDelayMs);
      history[decision.kind] = (history[decision.kind] ?? 0) + 1;
      timeoutMs = decision.timeoutMs;
      try {
        options.onRetry?.({ attempt: n, kind: decision.kind, delayMs, timeoutMs, error });
      } catch {
        // A failing logger must not change the call's outcome.
      }
      if (delayMs > 0) {
        try {
          await sleep(delayMs, signal);
        } catch {
          throw new ConnectorError('CANCELLED', `cancelled while waiting to retry after: ${error.message}`);
        }
      }
    }
  }
}

/** `setTimeout` as a promise that rejects (and clears the timer) when `signal` fires. */
export const abortableSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(new ConnectorError('CANCELLED', 'cancelled'));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ConnectorError('CANCELLED', 'cancelled'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
