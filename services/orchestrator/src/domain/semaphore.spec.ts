import { KeyedLimiter, Semaphore } from './semaphore.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('Semaphore', () => {
  it('lets `limit` holders in and serves waiters first come, first served', async () => {
    const sem = new Semaphore(2);
    const order: string[] = [];
    const r1 = await sem.acquire();
    const r2 = await sem.acquire();
    const w3 = sem.acquire().then((r) => (order.push('3'), r));
    const w4 = sem.acquire().then((r) => (order.push('4'), r));
    await tick();
    expect([sem.inUse, sem.waiting, order]).toEqual([2, 2, []]);
    r1();
    r1(); // a second release does nothing
    await tick();
    expect(order).toEqual(['3']);
    r2();
    await tick();
    expect(order).toEqual(['3', '4']);
    (await w3)();
    (await w4)();
    expect([sem.inUse, sem.waiting]).toEqual([0, 0]);
  });

  it('run() releases on success and on failure', async () => {
    const sem = new Semaphore(1);
    await expect(sem.run(async () => 5)).resolves.toBe(5);
    await expect(sem.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(sem.inUse).toBe(0);
  });

  it('a waiter whose signal aborts leaves the queue', async () => {
    const sem = new Semaphore(1);
    const release = await sem.acquire();
    const ac = new AbortController();
    const waiting = sem.acquire(ac.signal);
    ac.abort(new Error('lease lost'));
    await expect(waiting).rejects.toThrow('lease lost');
    expect(sem.waiting).toBe(0);
    release();
    expect(sem.inUse).toBe(0);
    await expect(sem.acquire(ac.signal)).rejects.toThrow('lease lost');
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
    expect(() => new Semaphore(1.5)).toThrow(RangeError);
  });
});

describe('KeyedLimiter', () => {
  it('limits each key on its own and forgets idle keys', async () => {
    const limiter = new KeyedLimiter((key) => (key === 'slow' ? 1 : 2));
    let active = { slow: 0, fast: 0 };
    let peak = { slow: 0, fast: 0 };
    const job = (key: 'slow' | 'fast') =>
      limiter.run(key, async () => {
        active[key]++;
        peak = { ...peak, [key]: Math.max(peak[key], active[key]) };
        await new Promise((r) => setTimeout(r, 5));
        active[key]--;
      });
    await Promise.all([...Array.from({ length: 4 }, () => job('slow')), ...Array.from({ length: 6 }, () => job('fast'))]);
    expect(peak).toEqual({ slow: 1, fast: 2 });
    expect(limiter.size).toBe(0);
    active = { slow: 0, fast: 0 };
  });
});
