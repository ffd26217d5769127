/**
 * A bounded pool of runners (worker threads, for password hashing): at most
 * one job per runner at a time, at most `maxQueued` jobs waiting, and at most
 * `perOwnerLimit` jobs (running or waiting) per owner — the client address —
 * so one client flooding it cannot fill the queue for everyone. Runner
 * agnostic, so the admission rules are tested without threads.
 */
import { AppError } from '@af/service-kit';

/** One execution context (e.g. a worker thread); `run` is called with one job at a time. */
export interface Runner<J, R> {
  run(job: J): Promise<R>;
}

export interface WorkPoolOptions {
  /** Jobs allowed to wait for a free runner. */
  maxQueued: number;
  /** Jobs one owner may have running or waiting. */
  perOwnerLimit: number;
}

interface Pending<J, R> {
  job: J;
  owner: string;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

/** Refused admissions carry a Retry-After of one second: the pool drains in well under that. */
const RETRY_AFTER_MS = 1000;

export class WorkPool<J, R> {
  private readonly idle: Runner<J, R>[];
  private readonly queue: Pending<J, R>[] = [];
  private readonly perOwner = new Map<string, number>();

  constructor(
    runners: Runner<J, R>[],
    private readonly options: WorkPoolOptions,
  ) {
    if (runners.length === 0) throw new Error('WorkPool needs at least one runner');
    this.idle = [...runners];
  }

  /** Jobs waiting for a runner. */
  get queued(): number {
    return this.queue.length;
  }

  /**
   * Run `job` for `owner` on the next free runner. RESOURCE_EXHAUSTED
   * (`too_many_attempts`) when the owner already has its share in the pool,
   * UNAVAILABLE (`busy`) when the queue is full; both with a Retry-After.
   */
  submit(job: J, owner: string): Promise<R> {
    const mine = this.perOwner.get(owner) ?? 0;
    if (mine >= this.options.perOwnerLimit) {
      return Promise.reject(
        new AppError('RESOURCE_EXHAUSTED', 'too many password checks in progress from this client address; retry shortly', {
          retryAfterMs: RETRY_AFTER_MS,
          violations: [{ field: '(client address)', reason: 'too many password checks in progress', code: 'too_many_attempts' }],
        }),
      );
    }
    if (this.idle.length === 0 && this.queue.length >= this.options.maxQueued) {
      return Promise.reject(
        new AppError('UNAVAILABLE', 'password checking is busy; retry shortly', {
          retryAfterMs: RETRY_AFTER_MS,
          violations: [{ field: '(server)', reason: 'password checking is busy', code: 'busy' }],
        }),
      );
    }
    this.perOwner.set(owner, mine + 1);
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ job, owner, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const runner = this.idle.pop()!;
      const item = this.queue.shift()!;
      runner.run(item.job).then(item.resolve, item.reject).finally(() => {
        const left = (this.perOwner.get(item.owner) ?? 1) - 1;
        if (left > 0) this.perOwner.set(item.owner, left);
        else this.perOwner.delete(item.owner);
        this.idle.push(runner);
        this.pump();
      });
    }
  }
}
