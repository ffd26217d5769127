/**
 * Counting semaphores for the engine's concurrency limits: nodes of one run
 * executing at once (RUN_CONCURRENCY), and calls to one connector at once
 * (CONNECTOR_CONCURRENCY, per replica). Waiters are served first come, first
 * served, so nodes start in the order the scheduler offered them.
 */

export class Semaphore {
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`semaphore limit must be a positive integer, got ${limit}`);
  }

  /** Slots taken right now. */
  get inUse(): number {
    return this.active;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Resolves with a release function once a slot is free (call it exactly
   * once; later calls do nothing). Rejects if `signal` aborts first.
   */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) throw abortError(signal);
    if (this.active < this.limit) {
      this.active++;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const entry = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = this.queue.indexOf(entry);
        if (i >= 0) this.queue.splice(i, 1);
        reject(abortError(signal!));
      };
      this.queue.push(entry);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    // The releasing holder handed its slot over: `active` was not decremented.
    return this.releaser();
  }

  /** `fn` while holding a slot. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      if (next) next();
      else this.active--;
    };
  }
}

/** One semaphore per key, made on first use and dropped when idle. */
export class KeyedLimiter {
  private readonly byKey = new Map<string, Semaphore>();

  constructor(private readonly limitFor: (key: string) => number) {}

  async run<T>(key: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    let sem = this.byKey.get(key);
    if (!sem) {
      sem = new Semaphore(this.limitFor(key));
      this.byKey.set(key, sem);
    }
    const release = await sem.acquire(signal).catch((err: unknown) => {
      this.dropIfIdle(key, sem!);
      throw err;
    });
    try {
      return await fn();
    } finally {
      release();
      this.dropIfIdle(key, sem);
    }
  }

  /** Calls in progress for `key` (0 when none). */
  inUse(key: string): number {
    return this.byKey.get(key)?.inUse ?? 0;
  }

  /** Keys with a live semaphore (for tests: idle ones are dropped). */
  get size(): number {
    return this.byKey.size;
  }

  private dropIfIdle(key: string, sem: Semaphore): void {
    if (sem.inUse === 0 && sem.waiting === 0 && this.byKey.get(key) === sem) this.byKey.delete(key);
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted while waiting for a concurrency slot');
}
