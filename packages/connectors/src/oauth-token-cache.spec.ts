import type { StoredOAuthToken } from './connector-type.js';
import { InMemoryOAuthTokenCache, tokenNeedsRefresh } from './oauth-token-cache.js';

describe('tokenNeedsRefresh', () => {
  it('is true for no token or one expiring within the buffer; false without an expiry', () => {
    expect(tokenNeedsRefresh(undefined, 0, 0)).toBe(true);
    expect(tokenNeedsRefresh({ accessToken: 'a' }, 120_000, 1e12)).toBe(false);
    expect(tokenNeedsRefresh({ accessToken: 'a', expiresAt: 1000 }, 100, 899)).toBe(false);
    expect(tokenNeedsRefresh({ accessToken: 'a', expiresAt: 1000 }, 100, 900)).toBe(true);
  });
});

describe('InMemoryOAuthTokenCache', () => {
  let now = 0;
  const cache = () => new InMemoryOAuthTokenCache(() => now);
  const issue = (n: number, ttl = 1000): StoredOAuthToken => ({
    accessToken: `at-${n}`,
    expiresAt: now + ttl,
    refreshToken: `rt-${n}`,
  });

  beforeEach(() => {
    now = 0;
  });

  it('refreshes when empty, then serves the stored token until it is within the buffer', async () => {
    const c = cache();
    const refresh = jest.fn(async (current: StoredOAuthToken | undefined) => issue(current ? 2 : 1));

    expect((await c.getOrRefresh('k', 100, refresh)).accessToken).toBe('at-1');
    now = 899;
    expect((await c.getOrRefresh('k', 100, refresh)).accessToken).toBe('at-1');
    now = 900;
    expect((await c.getOrRefresh('k', 100, refresh)).accessToken).toBe('at-2');
    expect(refresh).toHaveBeenCalledTimes(2);
    expect(refresh.mock.calls[1]?.[0]).toMatchObject({ accessToken: 'at-1', refreshToken: 'rt-1' });
  });

  it('force refreshes a fresh token', async () => {
    const c = cache();
    let n = 0;
    const refresh = async () => issue(++n);
    await c.getOrRefresh('k', 0, refresh);
    expect((await c.getOrRefresh('k', 0, refresh, { force: true })).accessToken).toBe('at-2');
  });

  it('runs one refresh at a time per key; waiters see the refreshed token without refreshing', async () => {
    const c = cache();
    let active = 0;
    let calls = 0;
    const refresh = async () => {
      active++;
      calls++;
      expect(active).toBe(1);
      await new Promise((r) => setTimeout(r, 5));
      active--;
      return issue(calls);
    };
    const got = await Promise.all(Array.from({ length: 6 }, () => c.getOrRefresh('k', 0, refresh)));
    expect(got.map((t) => t.accessToken)).toEqual(Array(6).fill('at-1'));
    expect(calls).toBe(1);
  });

  it('keeps keys independent, and a failed refresh stores nothing and does not block the next one', async () => {
    const c = cache();
    await expect(c.getOrRefresh('a', 0, async () => Promise.reject(new Error('down')))).rejects.toThrow(
      'down',
    );
    expect(c.peek('a')).toBeUndefined();
    expect((await c.getOrRefresh('a', 0, async () => issue(1))).accessToken).toBe('at-1');
    expect((await c.getOrRefresh('b', 0, async () => issue(9))).accessToken).toBe('at-9');
  });

  it('hands out copies, so a caller cannot change the stored token', async () => {
    const c = cache();
    const t = await c.getOrRefresh('k', 0, async () => issue(1));
    t.accessToken = 'mutated';
    expect(c.peek('k')?.accessToken).toBe('at-1');
    c.set('k', { accessToken: 'manual' });
    expect((await c.getOrRefresh('k', 0, async () => issue(2))).accessToken).toBe('manual');
  });
});
