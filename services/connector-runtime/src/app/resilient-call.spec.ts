import { ConnectorError } from '@af/connectors';
import type { EndpointResult } from '@af/connectors';
import { failureOutcome } from '@af/connectors';
import { abortableSleep, callWithRetries, type RetryInfo } from './resilient-call.js';

const ok: EndpointResult = { results: [{ id: 1 }], count: 1 };
const http = (status: number, code: ConnectorError['code'], retryAfterMs?: number) =>
  new ConnectorError(code, `HTTP ${status}`, { status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
const timeoutError = () => new ConnectorError('TIMEOUT', 'no answer in time');
const networkError = () => new ConnectorError('UNAVAILABLE', 'could not reach: ECONNREFUSED');

/** An attempt function answering from a script, recording the timeout of every call. */
function scripted(...steps: Array<EndpointResult | Error>) {
  const timeouts: number[] = [];
  const attempt = async (timeoutMs: number): Promise<EndpointResult> => {
    timeouts.push(timeoutMs);
    const step = steps[timeouts.length - 1];
    if (step === undefined) throw new Error(`attempt ${timeouts.length} was not scripted`);
    if (step instanceof Error) throw step;
    return step;
  };
  return { attempt, timeouts };
}

function harness() {
  const slept: number[] = [];
  const retries: RetryInfo[] = [];
  return {
    slept,
    retries,
    options: (extra: Partial<Parameters<typeof callWithRetries>[1]> = {}) => ({
      baseTimeoutMs: 1000,
      sleep: async (ms: number) => {
        slept.push(ms);
      },
      random: () => 0,
      onRetry: (info: RetryInfo) => retries.push(info),
      ...extra,
    }),
  };
}

describe('callWithRetries: the failure table', () => {
  it('returns the first success without waiting', async () => {
    const h = harness();
    const s = scripted(ok);
    await expect(callWithRetries(s.attempt, h.options())).resolves.toBe(ok);
    expect(s.timeouts).toEqual([1000]);
    expect(h.slept).toEqual([]);
  });

  it('401/403: one attempt, the error rethrown unchanged (outcome auth_failed)', async () => {
    for (const err of [http(401, 'AUTH_FAILED'), http(403, 'AUTH_FAILED')]) {
      const h = harness();
      const s = scripted(err, ok);
      const thrown = await callWithRetries(s.attempt, h.options()).catch((e: unknown) => e);
      expect(thrown).toBe(err);
      expect(failureOutcome(thrown)).toBe('auth_failed');
      expect(s.timeouts).toHaveLength(1);
      expect(h.slept).toEqual([]);
    }
  });

  it('429 without Retry-After: backs off exponentially (with jitter) and gives up after 3 retries', async () => {
    const h = harness();
    const last = http(429, 'RATE_LIMIT');
    const s = scripted(http(429, 'RATE_LIMIT'), http(429, 'RATE_LIMIT'), http(429, 'RATE_LIMIT'), last, ok);
    await expect(callWithRetries(s.attempt, h.options())).rejects.toBe(last);
    expect(s.timeouts).toHaveLength(4);
    // random() = 0 → half of 1 s, 2 s, 4 s.
    expect(h.slept).toEqual([500, 1000, 2000]);
    expect(h.retries.map((r) => [r.attempt, r.kind, r.delayMs])).toEqual([
      [1, 'rate_limited', 500],
      [2, 'rate_limited', 1000],
      [3, 'rate_limited', 2000],
    ]);
  });

  it('429 with Retry-After: waits at least that long, then succeeds', async () => {
    const h = harness();
    const s = scripted(http(429, 'RATE_LIMIT', 3000), ok);
    await expect(callWithRetries(s.attempt, h.options({ random: () => 0.5 }))).resolves.toBe(ok);
    expect(h.slept).toEqual([3150]);
  });

  it('429 with a Retry-After beyond the cap: no retry, retryAfterMs reaches the caller', async () => {
    const h = harness();
    const err = http(429, 'RATE_LIMIT', 60_000);
    const s = scripted(err, ok);
    await expect(callWithRetries(s.attempt, h.options({ policy: { maxDelayMs: 10_000 } }))).rejects.toMatchObject({
      code: 'RATE_LIMIT',
      retryAfterMs: 60_000,
    });
    expect(s.timeouts).toHaveLength(1);
  });

  it('5xx: retried once, then fails with the second error', async () => {
    const h = harness();
    const second = http(502, 'UNAVAILABLE');
    const s = scripted(http(500, 'UNAVAILABLE'), second, ok);
    await expect(callWithRetries(s.attempt, h.options())).rejects.toBe(second);
    expect(s.timeouts).toHaveLength(2);
    expect(h.slept).toEqual([250]);
  });

  it('5xx then success', async () => {
    const h = harness();
    const s = scripted(http(503, 'UNAVAILABLE'), ok);
    await expect(callWithRetries(s.attempt, h.options())).resolves.toBe(ok);
  });

  it('timeout: retried once at once with the timeout doubled', async () => {
    const h = harness();
    const s = scripted(timeoutError(), ok);
    await expect(callWithRetries(s.attempt, h.options())).resolves.toBe(ok);
    expect(s.timeouts).toEqual([1000, 2000]);
    expect(h.slept).toEqual([]);
    expect(h.retries[0]).toMatchObject({ kind: 'timeout', timeoutMs: 2000, delayMs: 0 });
  });

  it('timeout twice: fails with the second timeout', async () => {
    const h = harness();
    const second = timeoutError();
    const s = scripted(timeoutError(), second);
    await expect(callWithRetries(s.attempt, h.options())).rejects.toBe(second);
    expect(s.timeouts).toEqual([1000, 2000]);
  });

  it('network error: retried once, then fails', async () => {
    const h = harness();
    const second = networkError();
    const s = scripted(networkError(), second, ok);
    await expect(callWithRetries(s.attempt, h.options())).rejects.toBe(second);
    expect(s.timeouts).toHaveLength(2);
  });

  it('never retries other failures or unexpected errors', async () => {
    for (const err of [http(400, 'INVALID_ARGUMENT'), http(404, 'NOT_FOUND'), new TypeError('bug')]) {
      const s = scripted(err, ok);
      await expect(callWithRetries(s.attempt, harness().options())).rejects.toBe(err);
      expect(s.timeouts).toHaveLength(1);
    }
  });

  it('retries at most 3 times across kinds, keeping the doubled timeout', async () => {
    const h = harness();
    const last = networkError();
    const s = scripted(timeoutError(), http(429, 'RATE_LIMIT'), http(500, 'UNAVAILABLE'), last, ok);
    await expect(callWithRetries(s.attempt, h.options())).rejects.toBe(last);
    expect(s.timeouts).toEqual([1000, 2000, 2000, 2000]);
  });

  it('ignores an onRetry callback that throws', async () => {
    const s = scripted(http(500, 'UNAVAILABLE'), ok);
    const options = harness().options({
      onRetry: () => {
        throw new Error('logger down');
      },
    });
    await expect(callWithRetries(s.attempt, options)).resolves.toBe(ok);
  });

  it('refuses a baseTimeoutMs that is not a positive number', async () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(callWithRetries(async () => ok, { baseTimeoutMs: bad })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        violations: [{ field: 'baseTimeoutMs', reason: 'must be a positive number of milliseconds' }],
      });
    }
  });
});

describe('callWithRetries: cancellation', () => {
  it('does not call at all when the signal has already fired', async () => {
    const s = scripted(ok);
    const ctl = new AbortController();
    ctl.abort();
    await expect(callWithRetries(s.attempt, harness().options({ signal: ctl.signal }))).rejects.toMatchObject({
      code: 'CANCELLED',
    });
    expect(s.timeouts).toEqual([]);
  });

  it('does not retry an attempt that failed because the signal fired; its error is rethrown', async () => {
    const ctl = new AbortController();
    const err = new ConnectorError('UNAVAILABLE', 'socket closed');
    const attempt = async () => {
      ctl.abort();
      throw err;
    };
    await expect(callWithRetries(attempt, harness().options({ signal: ctl.signal }))).rejects.toBe(err);
  });

  it('a signal firing during the wait ends it at once with CANCELLED (real timer)', async () => {
    const ctl = new AbortController();
    const s = scripted(http(429, 'RATE_LIMIT', 20_000), ok);
    const started = Date.now();
    const call = callWithRetries(s.attempt, { baseTimeoutMs: 1000, signal: ctl.signal, random: () => 0 });
    setTimeout(() => ctl.abort(), 50);
    await expect(call).rejects.toMatchObject({
      code: 'CANCELLED',
      message: 'cancelled while waiting to retry after: HTTP 429',
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(s.timeouts).toHaveLength(1);
  });
});

describe('abortableSleep', () => {
  it('resolves after the delay', async () => {
    const started = Date.now();
    await abortableSleep(30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('rejects at once when already aborted, and when aborted while waiting', async () => {
    const done = new AbortController();
    done.abort();
    await expect(abortableSleep(10_000, done.signal)).rejects.toMatchObject({ code: 'CANCELLED' });
    const ctl = new AbortController();
    const sleeping = abortableSleep(10_000, ctl.signal);
    ctl.abort();
    await expect(sleeping).rejects.toMatchObject({ code: 'CANCELLED' });
  });
});
