/**
 * Token buckets for connector rate limits (seed §4 `connection.rate_limit`,
 * §7 "Rate Limits", the binding's `rate_limit_per_minute` override), and the
 * parser for the rate-limit headers upstreams send.
 *
 * One bucket per limited window, all kept in one state: a definition with
 * `requests_per_second: 10` and `requests_per_day: 1000` (FEC) must honour
 * both, and no single bucket can — the tightest *rate* (1000/day) with its own
 * burst would let 1000 calls through in one second, the tightest *burst*
 * (10) refilled at the per-second rate would allow 864,000 a day. A window
 * of N requests is a bucket of capacity max(1, N) refilled at N per window; a
 * call takes one token from every window at once.
 *
 * Reservation, not polling: when a window is empty the call still takes its
 * token (the balance goes negative) and is told how long to wait; later
 * callers queue behind it. One round trip per call however long the wait,
 * callers are served in order, and the grant rate is exact. A reservation
 * whose wait would exceed the caller's limit takes nothing.
 *
 * The infra adapter (`infra/rate-limiter.ts`) runs the same arithmetic in one
 * SQL statement on a shared row; these functions are the specification it is
 * tested against. Times are epoch milliseconds.
 */
import { ConnectorError } from './connector-error.js';
import { parseRetryAfter } from './http-failure.js';

export const RATE_WINDOWS = ['second', 'minute', 'hour', 'day'] as const;
export type RateWindow = (typeof RATE_WINDOWS)[number];

export const WINDOW_MS: Readonly<Record<RateWindow, number>> = {
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
};

/** Requests allowed per window; absent = that window is not limited. */
export type RateLimits = Partial<Record<RateWindow, number>>;

/** The longest an upstream may block a bucket (a Retry-After of a week is a bug, not a plan). */
export const MAX_UPSTREAM_BLOCK_MS = 25 * 3_600_000;

export interface BucketState {
  /** Tokens per limited window; negative = reserved ahead by waiting callers. */
  tokens: RateLimits;
  updatedAtMs: number;
  /** The upstream asked us to send nothing before this (Retry-After). */
  blockedUntilMs?: number;
  /** The upstream's own count: `remaining` calls until `resetAtMs`. Ignored after the reset. */
  quota?: { remaining: number; resetAtMs: number };
}

export interface TakeResult {
  state: BucketState;
  /** Tokens taken: ≥ 1 when granted (more than 1 only when `want` > 1 and no wait), 0 when refused. */
  taken: number;
  /** 0 = go now; > 0 with taken 1 = go after this wait (reserved); > 0 with taken 0 = refused, free then. */
  waitMs: number;
}

/** Bucket size of a window: a fractional limit (0.5 per minute) still lets one call through. */
export function capacity(limit: number): number {
  return Math.max(1, limit);
}

export function limitedWindows(limits: RateLimits): RateWindow[] {
  return RATE_WINDOWS.filter((w) => limits[w] !== undefined);
}

export function newBucket(nowMs: number): BucketState {
  return { tokens: {}, updatedAtMs: nowMs };
}

/** Tokens per window at `nowMs` (a window first seen starts full). */
export function refill(state: BucketState, limits: RateLimits, nowMs: number): RateLimits {
  const elapsed = Math.max(0, nowMs - state.updatedAtMs);
  const out: RateLimits = {};
  for (const w of limitedWindows(limits)) {
    const limit = limits[w]!;
    const cap = capacity(limit);
    out[w] = Math.min(cap, (state.tokens[w] ?? cap) + (elapsed * limit) / WINDOW_MS[w]);
  }
  return out;
}

/**
 * Take `want` tokens now if every window (and the upstream's quota) has at
 * least one, as many as all of them have (up to `want`); otherwise reserve one
 * token and report the wait, unless that wait exceeds `maxWaitMs`.
 */
export function takeTokens(
  state: BucketState,
  limits: RateLimits,
  nowMs: number,
  options: { want?: number; maxWaitMs: number },
): TakeResult {
  const want = Math.max(1, Math.floor(options.want ?? 1));
  const at = Math.max(nowMs, state.updatedAtMs);
  const avail = refill(state, limits, nowMs);
  const windows = limitedWindows(limits);
  const blockedMs = Math.max(0, (state.blockedUntilMs ?? 0) - nowMs);
  const quota = state.quota && state.quota.resetAtMs > nowMs ? state.quota : undefined;

  const free = blockedMs === 0 && windows.every((w) => avail[w]! >= 1) && (!quota || quota.remaining >= 1);
  let taken: number;
  let waitMs = 0;
  if (free) {
    taken = Math.min(want, ...windows.map((w) => Math.floor(avail[w]!)), quota ? Math.floor(quota.remaining) : want);
  } else {
    waitMs = Math.max(
      blockedMs,
      ...windows.map((w) => (avail[w]! < 1 ? ((1 - avail[w]!) * WINDOW_MS[w]) / limits[w]! : 0)),
      quota && quota.remaining < 1 ? quota.resetAtMs - nowMs : 0,
    );
    taken = waitMs <= options.maxWaitMs ? 1 : 0;
  }
  const tokens: RateLimits = {};
  for (const w of windows) tokens[w] = avail[w]! - taken;
  const next: BucketState = { ...state, tokens, updatedAtMs: at };
  if (quota) next.quota = { ...quota, remaining: quota.remaining - taken };
  return { state: next, taken, waitMs };
}

/** Give back `n` tokens a caller reserved but will not use (it was cancelled). */
export function refundTokens(state: BucketState, limits: RateLimits, n: number): BucketState {
  const tokens: RateLimits = { ...state.tokens };
  for (const w of limitedWindows(limits)) {
    if (tokens[w] !== undefined) tokens[w] = Math.min(capacity(limits[w]!), tokens[w]! + n);
  }
  return { ...state, tokens };
}

/**
 * How many tokens one replica may take at once and hand out locally for
 * `leaseMs`: the tokens the slowest window refills in that time, at most a
 * quarter of the smallest bucket, at least 1 (= no lease). Leasing only
 * kicks in for generous limits, where a database round trip per call would
 * cost more than the call; it can let up to one lease more through than the
 * bucket alone in a span (tokens taken at t are used before t + leaseMs).
 */
export function leaseSize(limits: RateLimits, leaseMs: number): number {
  const windows = limitedWindows(limits);
  if (leaseMs <= 0) return 1;
  if (windows.length === 0) return UNLIMITED_LEASE;
  const byRate = Math.min(...windows.map((w) => (limits[w]! * leaseMs) / WINDOW_MS[w]));
  const byBurst = Math.min(...windows.map((w) => capacity(limits[w]!) / 4));
  return Math.max(1, Math.floor(Math.min(byRate, byBurst)));
}

/** Tokens a lease of an unlimited key holds: it only caches "no upstream block" for leaseMs. */
export const UNLIMITED_LEASE = 1_000_000;

/** What an upstream said about its limits (see `parseRateLimitHeaders`). */
export interface UpstreamRateLimit {
  retryAfterMs?: number;
  /** Calls left in the upstream's current window. */
  remaining?: number;
  /** The upstream's window size in calls, when it says. */
  limit?: number;
  /** When the upstream's window resets (epoch ms). */
  resetAtMs?: number;
}

/**
 * Apply an upstream's word to the bucket: Retry-After blocks it (capped at
 * MAX_UPSTREAM_BLOCK_MS); `remaining` with a reset becomes a quota the
 * bucket also draws from until the reset (remaining 0 = blocked until the
 * reset). Answers arrive out of order, so within one window the lower
 * remaining count and the later reset win. `remaining` without a reset says
 * nothing about when, and is ignored.
 */
export function applyUpstream(state: BucketState, info: UpstreamRateLimit, nowMs: number): BucketState {
  const next: BucketState = { ...state };
  if (info.retryAfterMs !== undefined && info.retryAfterMs > 0) {
    const until = nowMs + Math.min(info.retryAfterMs, MAX_UPSTREAM_BLOCK_MS);
    next.blockedUntilMs = Math.max(state.blockedUntilMs ?? 0, until);
  }
  if (info.remaining !== undefined && info.resetAtMs !== undefined && info.resetAtMs > nowMs) {
    const resetAtMs = Math.min(info.resetAtMs, nowMs + MAX_UPSTREAM_BLOCK_MS);
    const current = state.quota && state.quota.resetAtMs > nowMs ? state.quota : undefined;
    next.quota = current
      ? { remaining: Math.min(current.remaining, info.remaining), resetAtMs: Math.max(current.resetAtMs, resetAtMs) }
      : { remaining: info.remaining, resetAtMs };
  }
  return next;
}

/**
 * Whether an answer's headers are worth a shared write: always for
 * Retry-After; for a remaining count only when it runs low (≤ 10 % of the
 * upstream's stated limit, or ≤ 10 when it states none), so an API that
 * sends X-RateLimit-* on every answer does not cost a write per call.
 */
export function shouldNoteUpstream(info: UpstreamRateLimit): boolean {
  if (info.retryAfterMs !== undefined && info.retryAfterMs > 0) return true;
  if (info.remaining === undefined || info.resetAtMs === undefined) return false;
  const lowWater = info.limit !== undefined ? Math.max(1, Math.ceil(info.limit * 0.1)) : 10;
  return info.remaining <= lowWater;
}

type Headers = Readonly<Record<string, string | string[] | undefined>>;

const NUMBER = /^\d+(\.\d+)?$/;

/**
 * Reads Retry-After (seconds — decimals accepted — or an HTTP-date),
 * `RateLimit-Remaining/-Limit/-Reset` (IETF draft: reset in seconds),
 * `X-RateLimit-*` / `X-Rate-Limit-*` (reset as epoch seconds, epoch ms or
 * seconds from now, told apart by size; or an HTTP-date) and
 * `X-RateLimit-Reset-After`, and the structured `RateLimit` header of the
 * later drafts (`"default";r=0;t=30`, the item with the least remaining wins)
 * or its older form (`limit=100, remaining=0, reset=30`). Unparsable or
 * negative values are ignored, never thrown.
 */
export function parseRateLimitHeaders(headers: Headers, nowMs: number): UpstreamRateLimit {
  const h = lowerCased(headers);
  const out: UpstreamRateLimit = {};
  const retryAfter = h['retry-after'];
  if (retryAfter !== undefined) {
    const ms = NUMBER.test(retryAfter) ? Math.round(Number(retryAfter) * 1000) : parseRetryAfter(retryAfter, nowMs);
    if (ms !== undefined) out.retryAfterMs = ms;
  }
  const remaining = firstNumber(h, ['ratelimit-remaining', 'x-ratelimit-remaining', 'x-rate-limit-remaining']);
  const limit = firstNumber(h, ['ratelimit-limit', 'x-ratelimit-limit', 'x-rate-limit-limit']);
  let resetAtMs = secondsFromNow(h['ratelimit-reset'], nowMs) ?? secondsFromNow(h['x-ratelimit-reset-after'], nowMs);
  resetAtMs ??= resetValue(h['x-ratelimit-reset'], nowMs) ?? resetValue(h['x-rate-limit-reset'], nowMs);
  if (remaining !== undefined) out.remaining = remaining;
  if (limit !== undefined) out.limit = limit;
  if (resetAtMs !== undefined) out.resetAtMs = resetAtMs;
  if (out.remaining === undefined && h['ratelimit'] !== undefined) {
    const structured = parseStructuredRateLimit(h['ratelimit'], nowMs);
    if (structured.remaining !== undefined) {
      out.remaining = structured.remaining;
      if (structured.resetAtMs !== undefined) out.resetAtMs = structured.resetAtMs;
      if (structured.limit !== undefined && out.limit === undefined) out.limit = structured.limit;
    }
  }
  return out;
}

/**
 * The headers read here by lower-cased name, trimmed. Every one of them
 * starts with "r" or "x", so the others (most of an answer) are skipped
 * without being copied: this runs on every answer.
 */
function lowerCased(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const first = name.charCodeAt(0) | 0x20; // ASCII lower case
    if ((first !== 0x72 && first !== 0x78) || !Object.hasOwn(headers, name)) continue;
    const value = headers[name];
    const v = Array.isArray(value) ? value[0] : value;
    if (typeof v === 'string') out[name.toLowerCase()] = v.trim();
  }
  return out;
}

/** The leading number of a value ("100" or the draft's "100, 100;w=60"). */
function leadingNumber(value: string | undefined): number | undefined {
  const m = value === undefined ? null : /^(\d+(?:\.\d+)?)\s*(?:[,;]|$)/.exec(value);
  return m ? Number(m[1]) : undefined;
}

function firstNumber(h: Record<string, string>, names: string[]): number | undefined {
  for (const name of names) {
    const n = leadingNumber(h[name]);
    if (n !== undefined) return n;
  }
  return undefined;
}

function secondsFromNow(value: string | undefined, nowMs: number): number | undefined {
  return value !== undefined && NUMBER.test(value) ? nowMs + Number(value) * 1000 : undefined;
}

/** X-RateLimit-Reset: ≥ 1e12 is epoch ms, ≥ 1e9 epoch seconds, smaller is seconds from now; or an HTTP-date. */
function resetValue(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  if (!NUMBER.test(value)) {
    const delta = parseRetryAfter(value, nowMs);
    return delta === undefined ? undefined : nowMs + delta;
  }
  const n = Number(value);
  if (n >= 1e12) return n;
  if (n >= 1e9) return n * 1000;
  return nowMs + n * 1000;
}

function parseStructuredRateLimit(value: string, nowMs: number): UpstreamRateLimit {
  const items: Array<Record<string, string>> = [];
  const loose: Record<string, string> = {};
  for (const item of value.split(',')) {
    const params: Record<string, string> = {};
    for (const part of item.split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0) params[part.slice(0, eq).trim().toLowerCase()] = part.slice(eq + 1).trim().replace(/^"|"$/g, '');
    }
    if (params.r !== undefined) items.push(params);
    else Object.assign(loose, params);
  }
  if (!items.length && loose.remaining !== undefined) {
    items.push({ r: loose.remaining, ...(loose.reset !== undefined ? { t: loose.reset } : {}), ...(loose.limit !== undefined ? { q: loose.limit } : {}) });
  }
  let best: UpstreamRateLimit = {};
  for (const item of items) {
    const r = item.r !== undefined && NUMBER.test(item.r) ? Number(item.r) : undefined;
    if (r === undefined || (best.remaining !== undefined && best.remaining <= r)) continue;
    best = { remaining: r };
    const reset = secondsFromNow(item.t, nowMs);
    if (reset !== undefined) best.resetAtMs = reset;
    const q = leadingNumber(item.q);
    if (q !== undefined) best.limit = q;
  }
  return best;
}

/** "10 per second, 1000 per day" (for messages). */
export function describeRateLimits(limits: RateLimits): string {
  const windows = limitedWindows(limits);
  return windows.length ? windows.map((w) => `${limits[w]} per ${w}`).join(', ') : 'no limit';
}

const FIELD: Record<RateWindow, string> = {
  second: 'requests_per_second',
  minute: 'requests_per_minute',
  hour: 'requests_per_hour',
  day: 'requests_per_day',
};

/**
 * The limits a definition's `connection.rate_limit` declares. rest_api
 * definitions were checked by their schema; other types carry `connection`
 * as free-form data, so the block is checked here, field by field.
 */
export function connectorRateLimits(connection: unknown): RateLimits {
  const block = connection && typeof connection === 'object' ? (connection as Record<string, unknown>).rate_limit : undefined;
  if (block === undefined || block === null) return {};
  if (typeof block !== 'object' || Array.isArray(block)) {
    throw ConnectorError.invalid('connection.rate_limit', 'must be a mapping of requests_per_second/minute/hour/day');
  }
  const limits: RateLimits = {};
  for (const [key, value] of Object.entries(block)) {
    const window = RATE_WINDOWS.find((w) => FIELD[w] === key);
    if (!window) {
      throw ConnectorError.invalid(`connection.rate_limit.${key}`, `unknown key; use ${Object.values(FIELD).join(', ')}`);
    }
    if (value === undefined) continue;
    limits[window] = checkedLimit(value, `connection.rate_limit.${key}`);
  }
  return limits;
}

/** A binding's `rate_limit_per_minute` override; 0 means "the connector's own limit" (none of its own). */
export function bindingRateLimits(perMinute: number): RateLimits {
  if (perMinute === 0) return {};
  return { minute: checkedLimit(perMinute, 'rate_limit_per_minute') };
}

/** Refuses limits that are not positive finite numbers, naming the field. */
export function checkRateLimits(limits: RateLimits, prefix = 'rate_limit'): RateLimits {
  // Runs on every call: the field name is only built for an error.
  for (const w of RATE_WINDOWS) {
    const value = limits[w];
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value > 0)) {
      checkedLimit(value, `${prefix}.${FIELD[w]}`);
    }
  }
  return limits;
}

/**
 * A short text that is the same for equal limits (whatever order their keys
 * were written in): a replica's lease is only used for the limits it was taken under.
 */
export function rateLimitsSignature(limits: RateLimits): string {
  return `${limits.second}/${limits.minute}/${limits.hour}/${limits.day}`;
}

function checkedLimit(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw ConnectorError.invalid(field, 'must be a positive number');
  }
  return value;
}

/** Bucket (and breaker) key of a connector: its owner and id, each escaped so no two pairs collide. */
export function connectorKey(ownerUserId: string, connectorId: string): string {
  return `connector:${encodeURIComponent(ownerUserId)}:${encodeURIComponent(connectorId)}`;
}

/** Bucket key of a binding's own limit (owner, agent profile, connector). */
export function bindingKey(ownerUserId: string, agentProfileId: string, connectorId: string): string {
  return `binding:${encodeURIComponent(ownerUserId)}:${encodeURIComponent(agentProfileId)}:${encodeURIComponent(connectorId)}`;
}
