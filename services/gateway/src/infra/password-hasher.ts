/**
 * bcrypt hashing and verification in a small pool of worker threads, so a
 * flood of logins costs the pool's threads, not the event loop every other
 * request runs on. Admission is bounded (see WorkPool): a full queue answers
 * 503 and one client address may hold only a few jobs (429), each with a
 * Retry-After. Hashes are standard `$2b$` bcrypt, so hashes stored before the
 * pool existed verify unchanged.
 */
import { randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { AppError } from '@af/service-kit';
import type { HashJob, HashReply } from './password-hash.worker.js';
import { WorkPool, type Runner } from './work-pool.js';

export interface PasswordHasherOptions {
  workers: number;
  maxQueued: number;
  perOwnerLimit: number;
  rounds: number;
  /** Nice value of the worker threads (0–19; higher yields more to the event loop). */
  nice: number;
}

/** One worker thread, restarted if it dies; one job at a time (the pool guarantees it). */
class WorkerRunner implements Runner<HashJob, string | boolean> {
  private worker: Worker | null = null;
  private nextId = 0;
  private current: { id: number; resolve: (v: string | boolean) => void; reject: (e: unknown) => void } | null = null;
  private closed = false;

  constructor(private readonly nice: number) {}

  private spawn(): Worker {
    const worker = new Worker(new URL('./password-hash.worker.js', import.meta.url), { workerData: { nice: this.nice } });
    worker.on('message', (reply: HashReply) => {
      const cur = this.current;
      if (!cur || cur.id !== reply.id) return;
      this.current = null;
      if (reply.ok) cur.resolve(reply.value);
      else cur.reject(new AppError('INTERNAL', `password hashing failed (${reply.error})`));
    });
    const died = (why: string) => {
      if (this.worker === worker) this.worker = null;
      const cur = this.current;
      this.current = null;
      cur?.reject(new AppError('UNAVAILABLE', `password hashing worker ${why}; retry`, { retryAfterMs: 1000 }));
    };
    // Never what keeps the process alive: shutdown terminates it anyway.
    worker.unref();
    worker.on('error', () => died('failed'));
    worker.on('exit', () => died('exited'));
    return worker;
  }

  run(job: HashJob): Promise<string | boolean> {
    if (this.closed) return Promise.reject(new AppError('UNAVAILABLE', 'gateway is shutting down'));
    this.worker ??= this.spawn();
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.current = { id, resolve, reject };
      this.worker!.postMessage({ ...job, id });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}

export class PasswordHasher {
  private readonly runners: WorkerRunner[];
  private readonly pool: WorkPool<HashJob, string | boolean>;
  private dummy: Promise<string> | null = null;

  constructor(private readonly options: PasswordHasherOptions) {
    this.runners = Array.from({ length: options.workers }, () => new WorkerRunner(options.nice));
    this.pool = new WorkPool(this.runners, { maxQueued: options.maxQueued, perOwnerLimit: options.perOwnerLimit });
    // Ready before the first unknown email, so that one costs no more than the others.
    void this.dummyHash('(gateway)').catch(() => undefined);
  }

  /** bcrypt hash of `password`, computed on behalf of `owner` (the client address). */
  async hash(password: string, owner: string): Promise<string> {
    return (await this.pool.submit({ op: 'hash', password, rounds: this.options.rounds }, owner)) as string;
  }

  /**
   * Whether `password` matches `hash`. With `hash` null (no such account) it
   * compares against a hash of a random password at the same cost, so an
   * unknown email takes as long as a wrong password.
   */
  async verify(password: string, hash: string | null, owner: string): Promise<boolean> {
    const against = hash ?? (await this.dummyHash(owner));
    const ok = (await this.pool.submit({ op: 'verify', password, hash: against }, owner)) as boolean;
    return hash !== null && ok;
  }

  private dummyHash(owner: string): Promise<string> {
    this.dummy ??= this.hash(randomBytes(18).toString('base64'), owner).catch((err: unknown) => {
      this.dummy = null;
      throw err;
    });
    return this.dummy;
  }

  async close(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.close()));
  }
}
