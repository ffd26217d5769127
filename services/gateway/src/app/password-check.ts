/**
 * Checking an account's password under login throttling: used by login and
 * by the password confirmation of account deletion. Per attempt:
 *
 *   1. one at a time per account on this replica (KeyedQueue), so parallel
 *      guesses at one account see each other's failures;
 *   2. the account's and the client address's failure counters (PostgreSQL,
 *      shared by replicas) → 429 `too_many_attempts` with Retry-After while
 *      either is locked; nothing is hashed then;
 *   3. bcrypt in the worker pool — against a dummy hash when the email is
 *      unknown, so unknown and known emails cost and count the same;
 *   4. a failure counts against both keys; a success clears the account's.
 */
import type { Logger } from '@af/service-kit';
import { AppError } from '@af/service-kit';
import { throttleVerdict, type ThrottlePolicy, type ThrottleScope } from '../domain/login-throttle.js';
import type { LoginFailuresRepository, ThrottleKey } from '../infra/login-failures.repository.js';
import type { PasswordHasher } from '../infra/password-hasher.js';
import { KeyedQueue } from './keyed-queue.js';

export interface PasswordCheckOptions {
  policies: Record<ThrottleScope, ThrottlePolicy>;
  /** Attempts of one account allowed to wait behind the running one on a replica. */
  maxWaitingPerAccount: number;
}

/** Prune decayed counters at most this often (per replica). */
const PRUNE_EVERY_MS = 10 * 60_000;

export class PasswordCheck {
  private readonly queue: KeyedQueue;
  private lastPrune = 0;

  constructor(
    private readonly failures: LoginFailuresRepository,
    private readonly hasher: PasswordHasher,
    private readonly options: PasswordCheckOptions,
    private readonly log: Logger,
  ) {
    this.queue = new KeyedQueue(options.maxWaitingPerAccount);
  }

  /**
   * Whether `password` is the password of the account `email` (whose stored
   * hash is `hash`, null when there is no such account), asked from client
   * address `address` (already a throttling key, see addressKey).
   */
  verify(email: string, hash: string | null, password: string, address: string): Promise<boolean> {
    const account: ThrottleKey = { scope: 'account', value: email };
    const client: ThrottleKey = { scope: 'address', value: address };
    return this.queue.run(
      `account:${email}`,
      async () => {
        const { counts, now } = await this.failures.read([account, client]);
        const block = throttleVerdict(this.options.policies, counts, now);
        if (block) throw tooManyAttempts(block.scope, block.retryAfterMs);
        const ok = await this.hasher.verify(password, hash, address);
        if (ok) {
          if (counts.account) await this.failures.clear(account);
          return true;
        }
        await this.failures.recordFailure([account, client], this.options.policies.account.resetAfterMs);
        this.log.info({ scope: 'login' }, 'password check failed');
        this.maybePrune();
        return false;
      },
      () => tooManyAttempts('account', 1000),
    );
  }

  private maybePrune(): void {
    const now = Date.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    const resetAfter = Math.max(this.options.policies.account.resetAfterMs, this.options.policies.address.resetAfterMs);
    this.failures.prune(resetAfter).catch((err: unknown) => this.log.warn({ err }, 'pruning login_failures failed'));
  }
}

/** 429 naming what is locked, with the wait in the message and in Retry-After. */
export function tooManyAttempts(scope: ThrottleScope, retryAfterMs: number): AppError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const who = scope === 'account' ? 'for this account' : 'from this client address';
  return new AppError('RESOURCE_EXHAUSTED', `too many failed login attempts ${who}; retry in ${seconds} s`, {
    retryAfterMs: seconds * 1000,
    violations: [{ field: scope === 'account' ? 'email' : '(client address)', reason: `too many failed attempts; retry in ${seconds} s`, code: 'too_many_attempts' }],
  });
}
