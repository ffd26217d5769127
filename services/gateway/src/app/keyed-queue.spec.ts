import { KeyedQueue } from './keyed-queue.js';

const later = () => {
  let resolve!: () => void;
  const p = new Promise<void>((r) => (resolve = r));
  return { p, resolve };
};

describe('KeyedQueue', () => {
  it('runs tasks of one key one after the other, other keys alongside', async () => {
    const q = new KeyedQueue(5);
    const order: string[] = [];
    const gate = later();
    const a1 = q.run('a', async () => { order.push('a1 start'); await gate.p; order.push('a1 end'); }, () => new Error('full'));
    const a2 = q.run('a', async () => { order.push('a2'); }, () => new Error('full'));
    const b1 = q.run('b', async () => { order.push('b1'); }, () => new Error('full'));
    await b1;
    expect(order).toEqual(['a1 start', 'b1']);
    gate.resolve();
    await Promise.all([a1, a2]);
    expect(order).toEqual(['a1 start', 'b1', 'a1 end', 'a2']);
    await new Promise((r) => setImmediate(r));
    expect(q.activeKeys).toBe(0);
  });

  it('goes on after a failed task and passes its error to the caller', async () => {
    const q = new KeyedQueue(5);
    const failed = q.run('a', async () => { throw new Error('boom'); }, () => new Error('full'));
    const next = q.run('a', async () => 'ok', () => new Error('full'));
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ok');
  });

  it('refuses when a key has more than maxWaiting tasks behind the running one', async () => {
    const q = new KeyedQueue(2);
    const gate = later();
    const running = q.run('a', () => gate.p, () => new Error('full'));
    const w1 = q.run('a', async () => 1, () => new Error('full'));
    const w2 = q.run('a', async () => 2, () => new Error('full'));
    await expect(q.run('a', async () => 3, () => new Error('full'))).rejects.toThrow('full');
    await expect(q.run('b', async () => 'other key', () => new Error('full'))).resolves.toBe('other key');
    gate.resolve();
    await expect(Promise.all([running, w1, w2])).resolves.toEqual([undefined, 1, 2]);
    await new Promise((r) => setImmediate(r));
    await expect(q.run('a', async () => 4, () => new Error('full'))).resolves.toBe(4);
  });
});
