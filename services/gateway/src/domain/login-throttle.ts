/**
 * Login throttling arithmetic: how long a key (an account or a client
 * address) must wait after its failed logins. Pure; the counters live in
 * PostgreSQL (infra/login-throttle.repository.ts) so every gateway replica
 * sees the same ones.
 *
 * A key's first `freeFailures` failed attempts cost nothing. The failure that
 * reaches `freeFailures` locks the key for `baseDelayMs`, and every further
 * failure doubles the lock, up to `maxDelayMs`:
 *
 *   lock(n) = 0                                            n < freeFailures
 *           = min(maxDelayMs, baseDelayMs · 2^(n − freeFailures))   otherwise
 *
 * measured from the last failure. Counters decay all at once: a key whose last
 * failure is `resetAfterMs` old starts again from zero. A successful login
 * clears the account's counter but never the address's (otherwise an attacker
 * could reset its address by logging into an account of its own between
 * guesses).
 */

export interface ThrottlePolicy {
  /** Failures allowed before the first lock. */
  freeFailures: number;
  /** Lock after the `freeFailures`-th failure; doubles with each further one. */
  baseDelayMs: number;
  /** Longest lock. */
  maxDelayMs: number;
  /** A key whose last failure is this old counts from zero again. */
  resetAfterMs: number;
}

/** A key's stored counter. */
export interface FailureCount {
  failures: number;
  /** Epoch ms of the last failure. */
  lastFailureAt: number;
}

export type ThrottleScope = 'account' | 'address';

export interface ThrottleBlock {
  scope: ThrottleScope;
  /** How long until the next attempt is allowed (> 0). */
  retryAfterMs: number;
}

/** Lock after `failures` consecutive failures (0 below the free allowance). */
export function lockMs(policy: ThrottlePolicy, failures: number): number {
  if (failures < policy.freeFailures || failures <= 0) return 0;
  const doublings = failures - policy.freeFailures;
  // 2^31 ms is 24 days: past that only the cap matters (and Math.pow stays exact).
  if (doublings > 31) return policy.maxDelayMs;
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** doublings);
}

/** The failures that still count at `now` (0 once the counter has decayed). */
export function liveFailures(policy: ThrottlePolicy, count: FailureCount | undefined, now: number): number {
  if (!count) return 0;
  return now - count.lastFailureAt >= policy.resetAfterMs ? 0 : count.failures;
}

/** Remaining lock of one key at `now` (0 = may try). */
export function remainingLockMs(policy: ThrottlePolicy, count: FailureCount | undefined, now: number): number {
  const failures = liveFailures(policy, count, now);
  if (failures === 0 || !count) return 0;
  return Math.max(0, count.lastFailureAt + lockMs(policy, failures) - now);
}

/**
 * Whether an attempt may go ahead: null, or the scope that blocks it with the
 * longer wait (account first on a tie, its message being the more useful).
 */
export function throttleVerdict(
  policies: Record<ThrottleScope, ThrottlePolicy>,
  counts: Partial<Record<ThrottleScope, FailureCount>>,
  now: number,
): ThrottleBlock | null {
  let block: ThrottleBlock | null = null;
  for (const scope of ['account', 'address'] as const) {
    const wait = remainingLockMs(policies[scope], counts[scope], now);
    if (wait > 0 && (!block || wait > block.retryAfterMs)) block = { scope, retryAfterMs: wait };
  }
  return block;
}

/**
 * The throttling key of a client address: the address itself for IPv4, its
 * /64 network for IPv6 (one host usually holds a whole /64), with an
 * IPv4-mapped IPv6 address (`::ffff:1.2.3.4`) read as the IPv4 address.
 */
export function addressKey(address: string | undefined): string {
  if (!address) return 'unknown';
  const lower = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return mapped[1]!;
  if (!lower.includes(':')) return lower;
  const groups = expandIpv6(lower.split('%')[0]!);
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : lower;
}

function expandIpv6(address: string): string[] | null {
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  // An embedded IPv4 address, allowed only as the last part, takes two groups.
  const last = [...head, ...tail].at(-1);
  if ([...head, ...tail].some((p) => p.includes('.') && p !== last)) return null;
  const groups = (parts: string[]) => parts.flatMap((p) => (p.includes('.') ? ['0', '0'] : [p]));
  const h = groups(head);
  const t = groups(tail);
  const missing = 8 - h.length - t.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return null;
  const all = [...h, ...Array<string>(missing).fill('0'), ...t];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return all.map((g) => g.replace(/^0+(?=.)/, ''));
}
