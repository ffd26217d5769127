import { addressKey, liveFailures, lockMs, remainingLockMs, throttleVerdict, type ThrottlePolicy } from './login-throttle.js';

const policy: ThrottlePolicy = { freeFailures: 5, baseDelayMs: 1000, maxDelayMs: 900_000, resetAfterMs: 3_600_000 };

describe('lockMs', () => {
  it('is free below the allowance, then doubles from the base up to the cap', () => {
    expect([0, 1, 4].map((n) => lockMs(policy, n))).toEqual([0, 0, 0]);
    expect([5, 6, 7, 8, 14].map((n) => lockMs(policy, n))).toEqual([1000, 2000, 4000, 8000, 512_000]);
    expect(lockMs(policy, 15)).toBe(900_000);
    expect(lockMs(policy, 10_000)).toBe(900_000);
  });
  it('with one free failure locks after the first', () => {
    expect(lockMs({ ...policy, freeFailures: 1 }, 1)).toBe(1000);
  });
});

describe('decay and remaining lock', () => {
  const count = { failures: 7, lastFailureAt: 1_000_000 };
  it('counts failures until resetAfterMs after the last one, then zero', () => {
    expect(liveFailures(policy, count, 1_000_000 + 3_599_999)).toBe(7);
    expect(liveFailures(policy, count, 1_000_000 + 3_600_000)).toBe(0);
    expect(liveFailures(policy, undefined, 0)).toBe(0);
  });
  it('waits lock(n) from the last failure', () => {
    expect(remainingLockMs(policy, count, 1_000_000)).toBe(4000);
    expect(remainingLockMs(policy, count, 1_003_000)).toBe(1000);
    expect(remainingLockMs(policy, count, 1_004_000)).toBe(0);
    expect(remainingLockMs(policy, { failures: 4, lastFailureAt: 1_000_000 }, 1_000_000)).toBe(0);
  });
});

describe('throttleVerdict', () => {
  const policies = { account: policy, address: { ...policy, freeFailures: 20 } };
  it('lets an attempt through when neither key is locked', () => {
    expect(throttleVerdict(policies, {}, 0)).toBeNull();
    expect(throttleVerdict(policies, { account: { failures: 4, lastFailureAt: 0 }, address: { failures: 19, lastFailureAt: 0 } }, 0)).toBeNull();
  });
  it('blocks on the account or on the address, whichever waits longer', () => {
    expect(throttleVerdict(policies, { account: { failures: 5, lastFailureAt: 0 } }, 200)).toEqual({ scope: 'account', retryAfterMs: 800 });
    expect(throttleVerdict(policies, { address: { failures: 20, lastFailureAt: 0 } }, 0)).toEqual({ scope: 'address', retryAfterMs: 1000 });
    expect(
      throttleVerdict(policies, { account: { failures: 5, lastFailureAt: 0 }, address: { failures: 22, lastFailureAt: 0 } }, 0),
    ).toEqual({ scope: 'address', retryAfterMs: 4000 });
  });
});

describe('addressKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:DB8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:aaaa::1', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::ffff:1.2.3.4:5', '::ffff:1.2.3.4:5'],
    [undefined, 'unknown'],
  ])('%p → %p', (input, key) => expect(addressKey(input)).toBe(key));
});
