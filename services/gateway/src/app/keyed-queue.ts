/**
 * Runs tasks one at a time per key (per account, for logins): two guesses at
 * one account on one replica are checked in turn, so the second sees the
 * first's failure instead of racing past the throttle. At most `maxWaiting`
 * tasks wait per key; more are refused at once.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, { tail: Promise<unknown>; size: number }>();

  constructor(private readonly maxWaiting: number) {}

  /** `task()` after every earlier task of `key`; `refuse()`'s error when `key` already has too many waiting. */
  run<T>(key: string, task: () => Promise<T>, refuse: () => Error): Promise<T> {
    const entry = this.tails.get(key) ?? { tail: Promise.resolve(), size: 0 };
    // size counts the running task too.
    if (entry.size > this.maxWaiting) return Promise.reject(refuse());
    entry.size += 1;
    const result = entry.tail.then(task);
    entry.tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, entry);
    void entry.tail.then(() => {
      entry.size -= 1;
      if (entry.size === 0 && this.tails.get(key) === entry) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with tasks running or waiting. */
  get activeKeys(): number {
    return this.tails.size;
  }
}
