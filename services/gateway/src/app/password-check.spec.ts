import type { Logger } from '@af/service-kit';
import type { FailureCount, ThrottleScope } from '../domain/login-throttle.js';
import { storedKey, type ThrottleKey } from '../infra/login-failures.repository.js';
import { PasswordCheck } from './password-check.js';

/** In-memory stand-in for LoginFailuresRepository (same decay rule), on a settable clock. */
class FakeFailures {
  now = 1_000_000;
  rows = new Map<string, FailureCount>();
  reads = 0;

  async read(keys: ThrottleKey[]) {
    this.reads += 1;
    return { counts: this.countsOf(keys), now: this.now };
  }
  async recordFailure(keys: ThrottleKey[], resetAfterMs: number) {
    for (const k of keys) {
      const row = this.rows.get(storedKey(k));
      const fresh = !row || this.now - row.lastFailureAt >= resetAfterMs;
      this.rows.set(storedKey(k), { failures: fresh ? 1 : row.failures + 1, lastFailureAt: this.now });
    }
    return { counts: this.countsOf(keys), now: this.now };
  }
  async clear(k: ThrottleKey) {
    this.rows.delete(storedKey(k));
  }
  async prune() {
    return 0;
  }
  private countsOf(keys: ThrottleKey[]) {
    const counts: Partial<Record<ThrottleScope, FailureCount>> = {};
    for (const k of keys) {
      const row = this.rows.get(storedKey(k));
      if (row) counts[k.scope] = row;
    }
    return counts;
  }
}

const known = async () => 'hash';
const unknown = async () => null;
const log = { info: jest.fn(), warn: jest.fn() } as unknown as Logger;
const backoff = { baseDelayMs: 60_000, maxDelayMs: 600_000, resetAfterMs: 3_600_000 };

function setup(rejectDelayMs = 0) {
  const failures = new FakeFailures();
  const hasher = { verify: jest.fn(async (password: string, hash: string | null) => hash !== null && password === 'right') };
  const check = new PasswordCheck(failures as any, hasher as any, {
    policies: { account: { freeFailures: 2, ...backoff }, address: { freeFailures: 3, ...backoff } },
    maxWaitingPerAccount: 8,
    rejectDelayMs,
  }, log);
  return { failures, hasher, check };
}

describe('PasswordCheck', () => {
  it('locks the account after its free failures, without looking it up or hashing while locked', async () => {
    const { check, hasher } = setup();
    const lookup = jest.fn(known);
    expect(await check.verify('a@x.io', lookup, 'wrong', '10.0.0.1')).toBe(false);
    expect(await check.verify('a@x.io', lookup, 'wrong', '10.0.0.2')).toBe(false);
    const err = await check.verify('a@x.io', lookup, 'right', '10.0.0.3').catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'RESOURCE_EXHAUSTED',
      retryAfterMs: expect.closeTo(60_000, -3),
      violations: [{ field: 'email', code: 'too_many_attempts', reason: 'too many failed attempts; retry in 60 s' }],
    });
    expect((err as Error).message).toBe('too many failed login attempts for this account; retry in 60 s');
    expect(hasher.verify).toHaveBeenCalledTimes(2);
    // Nor is the account looked up.
    expect(lookup).toHaveBeenCalledTimes(2);
  });

  it('locks the address across accounts, unknown emails included', async () => {
    const { check } = setup();
    for (const email of ['u1@x.io', 'u2@x.io', 'u3@x.io']) expect(await check.verify(email, unknown, 'x', '10.0.0.9')).toBe(false);
    await expect(check.verify('u4@x.io', unknown, 'x', '10.0.0.9')).rejects.toMatchObject({ violations: [expect.objectContaining({ field: '(client address)' })] });
    expect(await check.verify('u4@x.io', unknown, 'x', '10.0.0.10')).toBe(false);
  });

  it('answers a lock it has seen from memory, and asks the database again once it is over', async () => {
    const { check, failures } = setup();
    await check.verify('a@x.io', known, 'wrong', '10.0.0.1');
    await check.verify('a@x.io', known, 'wrong', '10.0.0.1');
    const reads = failures.reads;
    await expect(check.verify('a@x.io', known, 'right', '10.0.0.5')).rejects.toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
    expect(failures.reads).toBe(reads);
  });

  it('clears the account after a success, not the address', async () => {
    const { check, failures } = setup();
    await check.verify('a@x.io', known, 'wrong', '10.0.0.1');
    expect(await check.verify('a@x.io', known, 'right', '10.0.0.1')).toBe(true);
    expect(failures.rows.get(storedKey({ scope: 'account', value: 'a@x.io' }))).toBeUndefined();
    expect(failures.rows.get(storedKey({ scope: 'address', value: '10.0.0.1' }))).toEqual({ failures: 1, lastFailureAt: failures.now });
  });

  it('holds a refusal back for rejectDelayMs at most, and at most half the lock', async () => {
    const { check } = setup(300);
    await check.verify('a@x.io', known, 'wrong', '10.0.0.1');
    await check.verify('a@x.io', known, 'wrong', '10.0.0.1');
    const t = performance.now();
    await expect(check.verify('a@x.io', known, 'wrong', '10.0.0.1')).rejects.toMatchObject({ code: 'RESOURCE_EXHAUSTED' });
    const held = performance.now() - t;
    expect(held).toBeGreaterThanOrEqual(290);
    expect(held).toBeLessThan(2000);
  });

  it('checks concurrent attempts at one account in turn', async () => {
    const { check, hasher } = setup();
    const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => check.verify('a@x.io', known, 'wrong', `10.0.1.${i}`)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected']);
    expect(hasher.verify).toHaveBeenCalledTimes(2);
  });
});
