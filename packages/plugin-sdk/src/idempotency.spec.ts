import { canonical, IdempotencyCache } from './idempotency.js';

const scope = (key: string, inputs: unknown = { a: 1 }) => ({ tool: 't', key, config: { url: 'u' }, inputs });

describe('IdempotencyCache', () => {
  it('forgets results after the TTL', async () => {
    let now = 1_000;
    const cache = new IdempotencyCache({ ttlMs: 100 }, () => now);
    let runs = 0;
    const fn = async () => ({ n: ++runs });
    expect(await cache.run(scope('k'), fn)).toEqual({ n: 1 });
    now += 50;
    expect(await cache.run(scope('k'), fn)).toEqual({ n: 1 });
    now += 100;
    expect(await cache.run(scope('k'), fn)).toEqual({ n: 2 });
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const cache = new IdempotencyCache({ maxEntries: 2 });
    let runs = 0;
    const fn = async () => ({ n: ++runs });
    await cache.run(scope('a'), fn);
    await cache.run(scope('b'), fn);
    await cache.run(scope('c'), fn);
    expect(cache.size).toBe(2);
    expect(await cache.run(scope('c'), fn)).toEqual({ n: 3 });
    expect(await cache.run(scope('a'), fn)).toEqual({ n: 4 });
  });

  it('treats inputs with the same content in another key order as the same', async () => {
    const cache = new IdempotencyCache();
    await cache.run(scope('k', { a: 1, b: [1, { c: 2, d: 3 }] }), async () => ({}));
    await expect(
      cache.run(scope('k', { b: [1, { d: 3, c: 2 }], a: 1 }), async () => ({ other: true })),
    ).resolves.toEqual({});
  });
});

describe('canonical', () => {
  it('sorts keys, keeps array order and drops undefined', () => {
    expect(canonical({ b: 1, a: [2, 1], c: undefined, d: null })).toBe('{"a":[2,1],"b":1,"d":null}');
    expect(canonical(undefined)).toBe('null');
  });
});
