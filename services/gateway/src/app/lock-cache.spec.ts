import { LockCache } from './lock-cache.js';

describe('LockCache', () => {
  it('remembers a lock until it ends', () => {
    const c = new LockCache(10);
    c.lock('a', 1000, 5000);
    expect(c.remaining('a', 5000)).toBe(1000);
    expect(c.remaining('a', 5999)).toBe(1);
    expect(c.remaining('a', 6000)).toBe(0);
    expect(c.size).toBe(0);
    expect(c.remaining('never', 0)).toBe(0);
  });

  it('ignores empty locks and replaces a key', () => {
    const c = new LockCache(10);
    c.lock('a', 0, 0);
    expect(c.size).toBe(0);
    c.lock('a', 100, 0);
    c.lock('a', 500, 0);
    expect(c.remaining('a', 0)).toBe(500);
  });

  it('stays within its bound: expired entries first, then the oldest', () => {
    const c = new LockCache(3);
    c.lock('short', 10, 0);
    c.lock('b', 1000, 0);
    c.lock('c', 1000, 0);
    c.lock('d', 1000, 20);
    expect(c.size).toBe(3);
    expect(c.remaining('b', 20)).toBeGreaterThan(0);
    c.lock('e', 1000, 30);
    expect(c.size).toBe(3);
    expect(c.remaining('b', 30)).toBe(0);
    expect(['c', 'd', 'e'].map((k) => c.remaining(k, 30) > 0)).toEqual([true, true, true]);
  });
});
