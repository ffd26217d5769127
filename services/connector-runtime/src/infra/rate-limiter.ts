/**
 * Connector rate limits shared by every replica: one row per bucket key in
 * `rate_limit_buckets`, taken from with ONE atomic statement that refills by
 * the time elapsed on the database's clock, takes a token (or reserves one
 * and reports the wait) and returns — the arithmetic of
 * `domain/token-bucket.ts` `takeTokens`, in SQL.
 *
 * Replicas hold no state that matters for correctness, apart from leases:
 * for generous limits (see `leaseSize`) a replica takes several tokens in one
 * statement and hands them out locally for at most `leaseMs`, so a call costs
 * no round trip; tight limits (10/s, 1000/day) never lease. A lease is
 * refreshed ahead — in the background, by the call that finds it near its
 * end (the last `refreshAheadMs`) or three quarters used — so steady traffic
 * never waits for the statement; the refresh takes only free tokens (it
 * never reserves), and what it takes is accounted in the row like any take.
 */
import { sqlRows, type Queryable } from '@af/service-kit';
import type { Dispatcher } from 'undici';
import { ConnectorError } from '@af/connectors';
import type { HttpRequestFn, HttpTextFn } from '@af/connectors';
import {
  MAX_UPSTREAM_BLOCK_MS,
  checkRateLimits,
  describeRateLimits,
  leaseSize,
  parseRateLimitHeaders,
  rateLimitsSignature,
  shouldNoteUpstream,
  type RateLimits,
  type UpstreamRateLimit,
} from '@af/connectors';

export interface RateLimiterOptions {
  /** RATE_LIMIT_LEASE_MS; 0 = one shared statement per call. */
  leaseMs?: number;
}

export interface AcquireOptions {
  /** Longest wait this call accepts; beyond it acquire fails RATE_LIMIT with retryAfterMs. At most one day. */
  maxWaitMs: number;
  /** Abandons the wait (CANCELLED); the reserved token is given back. */
  signal?: AbortSignal;
  /** Names the connector in errors, e.g. `fec-contributions`. Defaults to the key. */
  label?: string;
}

export interface AcquireResult {
  /** How long the call waited for its token. */
  readonly waitedMs: number;
  /**
   * When the token became this call's on the database's clock (epoch ms): the
   * moment of the statement, plus the wait of a reservation. Leased tokens
   * carry the moment they were taken. Grants by these times obey the bucket
   * exactly; the call itself goes a little later (never earlier).
   */
  readonly grantedAtMs: number;
}

interface Lease {
  signature: string;
  /** Oldest first. */
  chunks: Array<{
    tokens: number;
    /** performance.now() after which the tokens are dropped. */
    expiresAt: number;
    /** Database clock (epoch ms) of the statement that took them. */
    takenAtMs: number;
    /** What `acquire` answers for each of them (read-only, so shared), and that answer settled. */
    grant: AcquireResult;
    granted: Promise<AcquireResult>;
    /** At this many tokens left the next lease is taken in the background. */
    refreshBelow: number;
  }>;
}

const MAX_WAIT_LIMIT_MS = 86_400_000;
const MAX_KEY_LENGTH = 512;
const MAX_LEASES = 10_000;
/** The most of a lease's life spent refreshing it ahead (a statement takes a millisecond or a few). */
const MAX_REFRESH_AHEAD_MS = 10;

/** Per window: its limit ($2..$5), the bucket size and the refill per ms. */
const WINDOW_SQL = [
  ['second', 2, 1000],
  ['minute', 3, 60_000],
  ['hour', 4, 3_600_000],
  ['day', 5, 86_400_000],
] as const;

const avail = ([w, p, ms]: (typeof WINDOW_SQL)[number]) =>
  `CASE WHEN $${p}::float8 IS NULL THEN NULL ELSE LEAST(GREATEST(1, $${p}::float8),
     COALESCE(c.tokens_${w}, GREATEST(1, $${p}::float8)) + c.elapsed * $${p}::float8 / ${ms}) END AS a_${w}`;
const refillWait = ([w, p, ms]: (typeof WINDOW_SQL)[number]) =>
  `CASE WHEN a_${w} < 1 THEN (1 - a_${w}) * ${ms} / $${p}::float8 ELSE 0 END`;

/**
 * $1 key, $2..$5 limits per second/minute/hour/day (NULL = none), $6 tokens
 * wanted when free, $7 longest acceptable wait (ms). The CTE locks the row
 * (FOR UPDATE follows concurrent updates to the newest version), so the
 * arithmetic always starts from what the last taker left.
 */
const TAKE_SQL = `
WITH locked AS (
  SELECT b.*, clock_timestamp() AS t FROM rate_limit_buckets b WHERE b.key = $1 FOR UPDATE
), c AS MATERIALIZED (
  SELECT locked.*, GREATEST(0, extract(epoch FROM (t - updated_at)) * 1000)::float8 AS elapsed FROM locked
), av AS MATERIALIZED (
  SELECT c.key, c.t, c.updated_at, c.quota_remaining, c.quota_reset, COALESCE(c.quota_reset > c.t, false) AS quota_active,
    GREATEST(0, COALESCE(extract(epoch FROM (c.blocked_until - c.t)) * 1000, 0))::float8 AS blocked_ms,
    ${WINDOW_SQL.map(avail).join(',\n    ')}
  FROM c
), fr AS MATERIALIZED (
  SELECT av.*, (blocked_ms = 0 AND COALESCE(LEAST(a_second, a_minute, a_hour, a_day), 1) >= 1
                AND (NOT quota_active OR quota_remaining >= 1)) AS free
  FROM av
), w AS MATERIALIZED (
  SELECT fr.*, CASE WHEN free THEN 0 ELSE GREATEST(blocked_ms,
      ${WINDOW_SQL.map(refillWait).join(',\n      ')},
      CASE WHEN quota_active AND quota_remaining < 1 THEN extract(epoch FROM (quota_reset - t)) * 1000 ELSE 0 END
    )::float8 END AS wait_ms
  FROM fr
), d AS MATERIALIZED (
  SELECT w.*, CASE
      WHEN free THEN LEAST($6::float8, floor(a_second), floor(a_minute), floor(a_hour), floor(a_day),
                           CASE WHEN quota_active THEN floor(quota_remaining) END)
      WHEN wait_ms <= $7::float8 THEN 1 ELSE 0 END::float8 AS taken
  FROM w
)
UPDATE rate_limit_buckets b SET
  ${WINDOW_SQL.map(([w, p]) => `limit_${w} = $${p}::float8, tokens_${w} = d.a_${w} - d.taken`).join(',\n  ')},
  updated_at = GREATEST(b.updated_at, d.t),
  quota_remaining = CASE WHEN d.quota_active THEN d.quota_remaining - d.taken ELSE b.quota_remaining END
FROM d WHERE b.key = d.key
RETURNING d.taken, d.wait_ms, (extract(epoch FROM GREATEST(d.t, d.updated_at)) * 1000)::float8 AS at_ms`;

const CREATE_SQL = 'INSERT INTO rate_limit_buckets (key) VALUES ($1) ON CONFLICT (key) DO NOTHING';

const REFUND_SQL = `
UPDATE rate_limit_buckets SET
  ${WINDOW_SQL.map(([w]) => `tokens_${w} = LEAST(GREATEST(1, limit_${w}), tokens_${w} + $2::float8)`).join(',\n  ')},
  quota_remaining = CASE WHEN quota_reset > clock_timestamp() THEN quota_remaining + $2::float8 ELSE quota_remaining END
WHERE key = $1`;

/**
 * $1 key, $2 Retry-After ms, already capped (NULL = none), $3 remaining and
 * $4 reset (epoch ms) or both NULL, $5 the longest block. Mirrors
 * `applyUpstream`: blocks only extend; within one upstream window the lower
 * remaining and the later reset win; a reset in the past is ignored.
 */
const NOTE_SQL = `
INSERT INTO rate_limit_buckets AS b (key, blocked_until, quota_remaining, quota_reset)
SELECT $1, v.t + $2::float8 * interval '1 millisecond',
       CASE WHEN v.reset > v.t THEN $3::float8 END, CASE WHEN v.reset > v.t THEN v.reset END
FROM (SELECT clock_timestamp() AS t,
             CASE WHEN $4::float8 IS NULL THEN NULL
                  ELSE LEAST(to_timestamp($4::float8 / 1000), clock_timestamp() + $5::float8 * interval '1 millisecond') END AS reset) v
ON CONFLICT (key) DO UPDATE SET
  blocked_until = GREATEST(b.blocked_until, EXCLUDED.blocked_until),
  quota_remaining = CASE WHEN EXCLUDED.quota_reset IS NULL THEN b.quota_remaining
                         WHEN b.quota_reset IS NULL OR b.quota_reset <= clock_timestamp() THEN EXCLUDED.quota_remaining
                         ELSE LEAST(b.quota_remaining, EXCLUDED.quota_remaining) END,
  quota_reset = CASE WHEN EXCLUDED.quota_reset IS NULL THEN b.quota_reset
                     WHEN b.quota_reset IS NULL OR b.quota_reset <= clock_timestamp() THEN EXCLUDED.quota_reset
                     ELSE GREATEST(b.quota_reset, EXCLUDED.quota_reset) END`;

export class RateLimiter {
  private readonly leaseMs: number;
  private readonly refreshAheadMs: number;
  private readonly leases = new Map<string, Lease>();
  private readonly refills = new Map<string, Promise<void>>();

  constructor(
    private readonly db: Queryable,
    options: RateLimiterOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 100;
    this.refreshAheadMs = Math.min(this.leaseMs / 4, MAX_REFRESH_AHEAD_MS);
  }

  /**
   * Waits until `key` has a token under `limits` (and no upstream block),
   * then returns. Fails RATE_LIMIT with `retryAfterMs` — taking nothing —
   * when the wait would exceed `maxWaitMs`; CANCELLED when `signal` fires.
   */
  acquire(key: string, limits: RateLimits, options: AcquireOptions): Promise<AcquireResult> {
    let label: string;
    let signature: string;
    try {
      checkKey(key);
      checkRateLimits(limits);
      const { maxWaitMs, signal } = options;
      if (typeof maxWaitMs !== 'number' || !(maxWaitMs >= 0) || maxWaitMs > MAX_WAIT_LIMIT_MS) {
        throw ConnectorError.invalid('maxWaitMs', `must be a number of milliseconds from 0 to ${MAX_WAIT_LIMIT_MS}`);
      }
      label = options.label ?? key;
      if (signal?.aborted) throw cancelled(label);
      signature = rateLimitsSignature(limits);
    } catch (err) {
      return Promise.reject(err);
    }
    // The common case, on every call of a generous limit: a leased token, answered without a
    // statement, an allocation or an async frame.
    const leased = this.fromLease(key, signature, limits);
    if (leased) return leased.granted;
    return this.acquireShared(key, limits, options, label, signature);
  }

  /** `acquire` when this replica holds no token for the key: the shared row decides. */
  private async acquireShared(key: string, limits: RateLimits, options: AcquireOptions, label: string, signature: string): Promise<AcquireResult> {
    const { maxWaitMs, signal } = options;
    const want = leaseSize(limits, this.leaseMs);
    // Callers that find the lease empty while it is being refilled wait for that one statement.
    for (let refill = want > 1 ? this.refills.get(key) : undefined; refill; refill = this.refills.get(key)) {
      await refill;
      if (signal?.aborted) throw cancelled(label);
      const leasedAfterWait = this.fromLease(key, signature, limits);
      if (leasedAfterWait) return leasedAfterWait.grant;
    }

    const taking = this.take(key, limits, want, maxWaitMs);
    if (want > 1) {
      const settled = taking.then(
        () => undefined,
        () => undefined,
      );
      this.refills.set(key, settled);
      void settled.then(() => this.refills.get(key) === settled && this.refills.delete(key));
    }
    const { taken, waitMs, atMs } = await taking;
    if (taken === 0) {
      const retryAfterMs = Math.ceil(waitMs);
      throw new ConnectorError(
        'RATE_LIMIT',
        `${label}: rate limit (${describeRateLimits(limits)}) — the next call is allowed in ${retryAfterMs} ms, longer than the ${maxWaitMs} ms this call may wait`,
        { retryAfterMs },
      );
    }
    if (waitMs <= 0) {
      if (taken > 1) this.addLease(key, signature, taken - 1, atMs);
      return { waitedMs: 0, grantedAtMs: atMs };
    }
    const started = performance.now();
    try {
      // Rounded up: a timer may fire up to 1 ms early, and an early call is one too many.
      await sleep(Math.ceil(waitMs) + 1, signal);
    } catch {
      await this.refund(key, 1).catch(() => undefined);
      throw cancelled(label);
    }
    return { waitedMs: performance.now() - started, grantedAtMs: atMs + waitMs };
  }

  /**
   * What the upstream said about its limits (see `parseRateLimitHeaders`):
   * Retry-After blocks the bucket until then, a remaining count with a reset
   * becomes a quota the bucket draws from until the reset (0 = blocked until
   * the reset). Drops this replica's lease for the key.
   */
  async noteUpstream(key: string, info: UpstreamRateLimit): Promise<void> {
    checkKey(key);
    this.leases.delete(key);
    const retryAfterMs = nonNegative(info.retryAfterMs, 'retryAfterMs');
    const remaining = nonNegative(info.remaining, 'remaining');
    const resetAtMs = nonNegative(info.resetAtMs, 'resetAtMs');
    const blocks = retryAfterMs !== undefined && retryAfterMs > 0;
    const quota = remaining !== undefined && resetAtMs !== undefined;
    if (!blocks && !quota) return;
    await sqlRows(this.db, NOTE_SQL, [
      key,
      blocks ? Math.min(retryAfterMs, MAX_UPSTREAM_BLOCK_MS) : null,
      quota ? remaining : null,
      quota ? resetAtMs : null,
      MAX_UPSTREAM_BLOCK_MS,
    ]);
  }

  /**
   * `http` that reads the rate-limit headers of every answer and notes them
   * for `key` when they matter (`shouldNoteUpstream`: Retry-After, or a
   * remaining count running low) before handing the answer back. A failure
   * to note goes to `onError` and never fails the call.
   */
  observe(http: HttpRequestFn, key: string, onError?: (err: unknown) => void): HttpRequestFn {
    // Undefined when there is nothing to note: most answers then cost no extra await.
    const note = (headers: Record<string, string | string[] | undefined>): Promise<void> | undefined => {
      const info = parseRateLimitHeaders(headers, Date.now());
      return shouldNoteUpstream(info) ? this.noteUpstream(key, info).catch((err: unknown) => onError?.(err)) : undefined;
    };
    const send = http as unknown as (url: unknown, options?: unknown) => Promise<Dispatcher.ResponseData>;
    const observed = async (url: unknown, options?: unknown): Promise<Dispatcher.ResponseData> => {
      const res = await send(url, options);
      const noting = note(res.headers);
      if (noting) await noting;
      return res;
    };
    const sendText = http.text;
    if (sendText) {
      const text: HttpTextFn = async (url, options, limits) => {
        const res = await sendText(url, options, limits);
        const noting = note(res.headers);
        if (noting) await noting;
        return res;
      };
      return Object.assign(observed, { text }) as unknown as HttpRequestFn;
    }
    return observed as unknown as HttpRequestFn;
  }

  private async take(key: string, limits: RateLimits, want: number, maxWaitMs: number) {
    const params = [key, limits.second ?? null, limits.minute ?? null, limits.hour ?? null, limits.day ?? null, want, maxWaitMs];
    let rows = await sqlRows<{ taken: number; wait_ms: number; at_ms: number }>(this.db, TAKE_SQL, params);
    if (!rows.length) {
      await sqlRows(this.db, CREATE_SQL, [key]);
      rows = await sqlRows(this.db, TAKE_SQL, params);
    }
    const row = rows[0];
    if (!row) throw new Error(`rate_limit_buckets row ${key} vanished while taking a token`);
    return { taken: Number(row.taken), waitMs: Number(row.wait_ms), atMs: Number(row.at_ms) };
  }

  private async refund(key: string, n: number): Promise<void> {
    await sqlRows(this.db, REFUND_SQL, [key, n]);
  }

  /** Tokens taken at `takenAtMs`, usable for leaseMs, after any this replica still holds for the key. */
  private addLease(key: string, signature: string, tokens: number, takenAtMs: number): void {
    const grant: AcquireResult = Object.freeze({ waitedMs: 0, grantedAtMs: takenAtMs });
    const chunk = {
      tokens,
      takenAtMs,
      expiresAt: performance.now() + this.leaseMs,
      grant,
      granted: Promise.resolve(grant),
      refreshBelow: Math.floor(tokens / 4),
    };
    const current = this.leases.get(key);
    if (current && current.signature === signature) {
      current.chunks.push(chunk);
      return;
    }
    if (!current && this.leases.size >= MAX_LEASES) this.leases.delete(this.leases.keys().next().value as string);
    this.leases.set(key, { signature, chunks: [chunk] });
  }

  /**
   * One leased token, if this replica holds an unexpired one for these
   * limits. Starts the next lease when the last one held nears its end.
   */
  private fromLease(key: string, signature: string, limits: RateLimits): Lease['chunks'][number] | undefined {
    const lease = this.leases.get(key);
    if (!lease) return undefined;
    if (lease.signature !== signature) {
      this.leases.delete(key);
      return undefined;
    }
    const now = performance.now();
    while (lease.chunks.length && (lease.chunks[0]!.tokens <= 0 || lease.chunks[0]!.expiresAt <= now)) lease.chunks.shift();
    const chunk = lease.chunks[0];
    if (!chunk) {
      this.leases.delete(key);
      return undefined;
    }
    chunk.tokens--;
    if (
      lease.chunks.length === 1 &&
      (chunk.expiresAt - now <= this.refreshAheadMs || chunk.tokens <= chunk.refreshBelow) &&
      !this.refills.has(key)
    ) {
      this.refreshLease(key, limits, signature);
    }
    return chunk;
  }

  /**
   * Takes the next lease without anyone waiting for it: free tokens only
   * (maxWaitMs 0, so nothing is reserved). Callers that run out meanwhile
   * wait for it as for any refill; when it fails or finds nothing free, the
   * next caller without a token goes to the row itself.
   */
  private refreshLease(key: string, limits: RateLimits, signature: string): void {
    const want = leaseSize(limits, this.leaseMs);
    if (want <= 1) return;
    const refill = this.take(key, limits, want, 0).then(
      ({ taken, waitMs, atMs }) => {
        if (taken > 0 && waitMs <= 0) this.addLease(key, signature, taken, atMs);
      },
      () => undefined,
    );
    this.refills.set(key, refill);
    void refill.then(() => this.refills.get(key) === refill && this.refills.delete(key));
  }
}

function checkKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw ConnectorError.invalid('key', `must be a non-empty string of at most ${MAX_KEY_LENGTH} characters`);
  }
}

function nonNegative(value: number | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw ConnectorError.invalid(field, 'must be a finite number ≥ 0');
  }
  return value;
}

function cancelled(label: string): ConnectorError {
  return new ConnectorError('CANCELLED', `${label}: cancelled while waiting for a rate-limit slot`);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
