/**
 * Checking an account's password under login throttling: used by login and
 * by the password confirmation of account deletion. Per attempt:
 *
 *   1. one at a time per account on this replica (KeyedQueue), so parallel
 *      guesses at one account see each other's failures;
 *   2. the account's and the client address's failure counters (PostgreSQL,
 *      shared by replicas) → 429 `too_many_attempts` with Retry-After while
 *      either is locked; nothing is hashed then, and locks this replica has
 *      seen are answered from memory (LockCache) without asking PostgreSQL;
 *   3. bcrypt in the worker pool — against a dummy hash when the email is
 *      unknown, so unknown and known emails cost and count the same;
 *   4. a failure counts against both keys; a success clears the account's.
 *
 * A refused attempt (429 too_many_attempts) is answered after a pause of
 * `rejectDelayMs` at most (and at most half the remaining lock, so the
 * Retry-After it carries is still ahead when it arrives): a timer, not
 * CPU, for the gateway, and a client guessing in a loop is slowed to one
 * attempt per pause per connection instead of as many 429s as the gateway
 * can serve. At most MAX_DELAYED refusals wait at once; past that they are
 * answered at once.
 */
import type { Logger } from '@af/service-kit';
import { AppError } from '@af/service-kit';
import { throttleVerdict, type FailureCount, type ThrottlePolicy, type ThrottleScope } from '../domain/login-throttle.js';
import { storedKey, type LoginFailuresRepository, type ThrottleKey } from '../infra/login-failures.repository.js';
import type { PasswordHasher } from '../infra/password-hasher.js';
import { KeyedQueue } from './keyed-queue.js';
import { LockCache } from './lock-cache.js';

export interface PasswordCheckOptions {
  policies: Record<ThrottleScope, ThrottlePolicy>;
  /** Attempts of one account allowed to wait behind the running one on a replica. */
  maxWaitingPerAccount: number;
  /** Longest pause before a 429 too_many_attempts answer (0 = none). */
  rejectDelayMs: number;
}

/** Prune decayed counters at most this often (per replica). */
const PRUNE_EVERY_MS = 10 * 60_000;
/** Locks remembered per replica. */
const LOCK_CACHE_SIZE = 10_000;
/** Refusals held back at once per replica. */
const MAX_DELAYED = 1000;

export class PasswordCheck {
  private readonly queue: KeyedQueue;
  private lastPrune = 0;
  private readonly locks = new LockCache(LOCK_CACHE_SIZE);
  private delayed = 0;

  constructor(
    private readonly failures: LoginFailuresRepository,
    private readonly hasher: PasswordHasher,
    private readonly options: PasswordCheckOptions,
    private readonly log: Logger,
  ) {
    this.queue = new KeyedQueue(options.maxWaitingPerAccount);
  }

  /**
   * Whether `password` is the password of the account `email`, asked from
   * client address `address` (already a throttling key, see addressKey).
   * `storedHash` loads the account's hash (null: no such account) — only once
   * the throttle has let the attempt through, so a refused flood costs no
   * account lookups.
   */
  async verify(email: string, storedHash: () => Promise<string | null>, password: string, address: string): Promise<boolean> {
    try {
      return await this.check(email, storedHash, password, address);
    } catch (err) {
      if (isTooManyAttempts(err)) await this.holdBack(err.retryAfterMs ?? 0);
      throw err;
    }
  }

  private check(email: string, storedHash: () => Promise<string | null>, password: string, address: string): Promise<boolean> {
    const account: ThrottleKey = { scope: 'account', value: email };
    const client: ThrottleKey = { scope: 'address', value: address };
    return this.queue.run(
      `account:${email}`,
      async () => {
        this.refuseKnownLock(account, client);
        const { counts, now } = await this.failures.read([account, client]);
        this.rememberLocks([account, client], counts, now);
        const block = throttleVerdict(this.options.policies, counts, now);
        if (block) throw tooManyAttempts(block.scope, block.retryAfterMs);
        const ok = await this.hasher.verify(password, await storedHash(), address);
        if (ok) {
          if (counts.account) await this.failures.clear(account);
          return true;
        }
        const after = await this.failures.recordFailure([account, client], this.options.policies.account.resetAfterMs);
        this.rememberLocks([account, client], after.counts, after.now);
        this.log.info({ scope: 'login' }, 'password check failed');
        this.maybePrune();
        return false;
      },
      () => tooManyAttempts('account', 1000),
    );
  }

  private async holdBack(lockMs: number): Promise<void> {
    const ms = Math.min(this.options.rejectDelayMs, Math.floor(lockMs / 2));
    if (ms <= 0 || this.delayed >= MAX_DELAYED) return;
    this.delayed += 1;
    try {
      await new Promise((r) => setTimeout(r, ms));
    } finally {
      this.delayed -= 1;
    }
  }

  /** 429 straight away when this replica already knows one of the keys is locked. */
  private refuseKnownLock(...keys: ThrottleKey[]): void {
    const now = Date.now();
    let worst: { scope: ThrottleScope; ms: number } | null = null;
    for (const k of keys) {
      const ms = this.locks.remaining(storedKey(k), now);
      if (ms > 0 && (!worst || ms > worst.ms)) worst = { scope: k.scope, ms };
    }
    if (worst) throw tooManyAttempts(worst.scope, worst.ms);
  }

  /** Cache the locks `counts` imply (computed on the database's clock, kept on ours). */
  private rememberLocks(keys: ThrottleKey[], counts: Partial<Record<ThrottleScope, FailureCount>>, dbNow: number): void {
    const now = Date.now();
    for (const k of keys) {
      const ms = throttleVerdict(this.options.policies, { [k.scope]: counts[k.scope] }, dbNow)?.retryAfterMs ?? 0;
      this.locks.lock(storedKey(k), ms, now);
    }
  }

  private maybePrune(): void {
    const now = Date.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    const resetAfter = Math.max(this.options.policies.account.resetAfterMs, this.options.policies.address.resetAfterMs);
    this.failures.prune(resetAfter).catch((err: unknown) => this.log.warn({ err }, 'pruning login_failures failed'));
  }
}

function isTooManyAttempts(err: unknown): err is AppError {
  return err instanceof AppError && err.code === 'RESOURCE_EXHAUSTED' && err.violations.some((v) => v.code === 'too_many_attempts');
}

/** 429 naming what is locked, with the wait in the message and in Retry-After. */
export function tooManyAttempts(scope: ThrottleScope, retryAfterMs: number): AppError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const who = scope === 'account' ? 'for this account' : 'from this client address';
  return new AppError('RESOURCE_EXHAUSTED', `too many failed login attempts ${who}; retry in ${seconds} s`, {
    retryAfterMs: Math.max(1, Math.round(retryAfterMs)),
    violations: [{ field: scope === 'account' ? 'email' : '(client address)', reason: `too many failed attempts; retry in ${seconds} s`, code: 'too_many_attempts' }],
  });
}
