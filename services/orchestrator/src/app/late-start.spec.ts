import { LateStart } from './late-start.js';

/** A promise settled by hand. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('LateStart', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('writes no start when the work answers within the grace period', async () => {
    const start = jest.fn(async () => undefined);
    const late = new LateStart(start, 50);
    const work = deferred<string>();
    const answer = late.around(work.promise);
    jest.advanceTimersByTime(49);
    work.resolve('out');
    await expect(answer).resolves.toBe('out');
    jest.advanceTimersByTime(1_000);
    expect(start).not.toHaveBeenCalled();
    expect(late.committed).toBe(false);
  });

  it('writes the start once when the grace period ends first, and answers only after it is committed', async () => {
    const commit = deferred<void>();
    const start = jest.fn(() => commit.promise);
    const late = new LateStart(start, 50);
    const work = deferred<string>();
    let settled = false;
    const answer = late.around(work.promise).then((v: string) => ((settled = true), v));
    jest.advanceTimersByTime(50);
    expect(start).toHaveBeenCalledTimes(1);
    expect(late.committed).toBe(true);
    work.resolve('out');
    await Promise.resolve();
    await Promise.resolve();
    expect(settled).toBe(false);
    commit.resolve();
    await expect(answer).resolves.toBe('out');
    jest.advanceTimersByTime(1_000);
    expect(start).toHaveBeenCalledTimes(1);
  });

  it("passes the work's error on, after a start written meanwhile", async () => {
    const start = jest.fn(async () => undefined);
    const late = new LateStart(start, 10);
    const work = deferred<string>();
    const answer = late.around(work.promise);
    jest.advanceTimersByTime(10);
    work.reject(new Error('call failed'));
    await expect(answer).rejects.toThrow('call failed');
    expect(late.committed).toBe(true);
  });

  it("lets the start's failure (a lost lease) win over the work's answer", async () => {
    const late = new LateStart(async () => Promise.reject(new Error('lease lost')), 10);
    const work = deferred<string>();
    const answer = late.around(work.promise);
    jest.advanceTimersByTime(10);
    work.resolve('out');
    await expect(answer).rejects.toThrow('lease lost');
  });
});
