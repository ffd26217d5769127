/**
 * Bulk resolution split by entity type: records of different types are never
 * merged and their term statistics are counted per type, so the PERSON
 * records and the ORG records are resolved by two `Resolver`s, each in its own
 * worker thread (or one after the other in the calling thread with
 * `threads: 1` / `ER_THREADS=1`). The result does not depend on the number of
 * threads. Records of a type are resolved in their input order; the combined
 * result is in input order again.
 *
 * Use: `prime` every record (batch mode: term frequencies over the whole input,
 * skip for incremental counting), then `add` every record, awaiting `ready()`
 * whenever `busy` (so the input is not queued in memory faster than it is
 * resolved), then `await finish()`. Records are normalised in the threads.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Decision } from './decision.js';
import type { ErRecord } from './record.js';
import { DECISIONS, Partition, type PartitionResult, type PartitionReview } from './resolve-partition.js';
import type { ResolverOptions } from './resolver.js';
import type { FromWorker, ToWorker, WorkerInput } from './resolve-worker.js';
import { compiledWorkerUrl } from '../worker-url.js';

export interface ParallelResolveOptions {
  /** 1: every type in the calling thread; 2 or more: one worker thread per type. Default: `ER_THREADS`, else up to 2 as the machine has cores. */
  threads?: number;
  resolver?: ResolverOptions;
  /** Called with the records resolved so far (all types) as threads report them. */
  onProgress?: (done: number) => void;
  /** Records per message to a worker (default 100: a small batch's records die young in the worker's heap). */
  batchSize?: number;
  /** Keep every record's id for `clusters()` / `recordIds` (default true; false saves their memory, positions remain). */
  keepRecordIds?: boolean;
  /** The worker script (default: the compiled `resolve-worker.js` beside this module). */
  workerUrl?: URL;
}

/** The thread count `threads` (or `ER_THREADS`) asks for; by default 2 on a machine with two or more cores. */
export function resolveThreads(threads?: number): number {
  const env = process.env['ER_THREADS'];
  const asked = threads ?? (env ? Number(env) : undefined);
  if (asked !== undefined) {
    if (!Number.isInteger(asked) || asked < 1) throw new Error(`threads must be a positive integer, got ${asked}`);
    return asked;
  }
  return Math.min(2, availableParallelism());
}

/** The compiled worker beside this module; from the TypeScript sources (tests), the build's copy. */
const defaultWorkerUrl = () => compiledWorkerUrl(import.meta.url, './resolve-worker.js');

/**
 * A review item of the combined result: a partition's, with `position` and `candidatePosition`
 * as input positions among all added records.
 */
export type ReviewItem = PartitionReview;

export interface PartitionStats {
  type: string;
  records: number;
  /** Seconds the partition spent normalising, counting names (prime) and resolving. */
  normaliseSeconds: number;
  primeSeconds: number;
  resolveSeconds: number;
}

/** The combined result, in input order (positions are input positions among the added records). */
export class ParallelResolution {
  constructor(
    readonly size: number,
    /** Every record's id in input order (empty with `keepRecordIds: false`). */
    readonly recordIds: readonly string[],
    /** Input position of every record's cluster root. */
    readonly roots: Int32Array,
    private readonly decisionCodes: Uint8Array,
    /** Milliseconds of each record's `Resolver.add`. */
    readonly latencyMs: Float64Array,
    readonly reviews: readonly ReviewItem[],
    readonly partitions: readonly PartitionStats[],
    readonly threads: number,
  ) {}

  decision(position: number): Decision {
    return DECISIONS[this.decisionCodes[position]!]!;
  }

  /** Every record's cluster (the record id of its root), in input order. */
  clusters(): Array<{ recordId: string; clusterId: string }> {
    if (this.recordIds.length !== this.size) throw new Error('record ids were not kept (keepRecordIds: false)');
    return this.recordIds.map((recordId, i) => ({ recordId, clusterId: this.recordIds[this.roots[i]!]! }));
  }
}

interface Engine {
  readonly pending: number;
  readonly done: number;
  send(op: 'prime' | 'add', records: ErRecord[]): void;
  finish(): Promise<PartitionResult>;
  stop(): Promise<void>;
}

/** A type resolved in the calling thread. */
class LocalEngine implements Engine {
  private readonly partition: Partition;
  readonly pending = 0;
  constructor(
    type: string,
    opts: ResolverOptions,
    private readonly progress: (resolved: boolean) => void,
  ) {
    this.partition = new Partition(type, opts);
  }
  get done(): number {
    return this.partition.size;
  }
  send(op: 'prime' | 'add', records: ErRecord[]): void {
    if (op === 'prime') for (const r of records) this.partition.prime(r);
    else {
      for (const r of records) this.partition.add(r);
      this.progress(true);
    }
  }
  finish(): Promise<PartitionResult> {
    return Promise.resolve(this.partition.finish());
  }
  stop(): Promise<void> {
    return Promise.resolve();
  }
}

/** A type resolved in a worker thread. */
class WorkerEngine implements Engine {
  private readonly worker: Worker;
  private sent = 0;
  private handled = 0;
  done = 0;
  private result: PartitionResult | undefined;
  private waiting: { resolve: (r: PartitionResult) => void; reject: (e: Error) => void } | undefined;

  constructor(
    readonly type: string,
    opts: ResolverOptions,
    url: URL,
    private readonly progress: (resolved: boolean) => void,
    private readonly failed: (err: Error) => void,
  ) {
    this.worker = new Worker(url, { workerData: { type, resolver: opts } satisfies WorkerInput });
    this.worker.on('message', (msg: FromWorker) => {
      if (msg.op === 'progress') {
        const resolved = msg.done !== this.done;
        this.done = msg.done;
        this.handled = msg.handled;
        this.progress(resolved);
      } else {
        this.result = msg.result;
        this.waiting?.resolve(msg.result);
      }
    });
    this.worker.on('error', (err: Error) => this.fail(`failed: ${err.message}`));
    this.worker.on('exit', (code) => {
      if (!this.result) this.fail(`exited (code ${code}) before it finished`);
    });
  }

  get pending(): number {
    return this.sent - this.handled;
  }

  send(op: 'prime' | 'add', records: ErRecord[]): void {
    this.sent += records.length;
    this.worker.postMessage({ op, records } satisfies ToWorker);
  }

  finish(): Promise<PartitionResult> {
    if (this.result) return Promise.resolve(this.result);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.worker.postMessage({ op: 'end' } satisfies ToWorker);
    });
  }

  /** Ends the thread (its heap is freed once the returned promise settles). */
  async stop(): Promise<void> {
    await this.worker.terminate();
  }

  private fail(why: string): void {
    if (this.result) return;
    const err = new Error(`entity resolution worker (${this.type}) ${why}`);
    this.waiting?.reject(err);
    this.waiting = undefined;
    this.failed(err);
  }
}

const HIGH_WATER = 8;

export class ParallelResolver {
  readonly threads: number;
  private readonly batchSize: number;
  private readonly engines = new Map<string, Engine>();
  private readonly buffers = new Map<string, { op: 'prime' | 'add'; records: ErRecord[] }>();
  private readonly types: string[] = [];
  private order = new Uint8Array(1024);
  private readonly recordIds: string[] = [];
  private count = 0;
  private phase: 'prime' | 'add' | 'finished' = 'prime';
  private failure: Error | undefined;
  private waiters: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];

  constructor(private readonly opts: ParallelResolveOptions = {}) {
    this.threads = resolveThreads(opts.threads);
    this.batchSize = opts.batchSize ?? 100;
  }

  /** Count the record's name value (batch mode); every `prime` comes before the first `add`. */
  prime(record: ErRecord): void {
    if (this.phase !== 'prime') throw new Error('prime() after add()');
    this.push('prime', record);
  }

  add(record: ErRecord): void {
    if (this.phase === 'finished') throw new Error('add() after finish()');
    if (this.phase === 'prime') {
      // Every type's counts go out before its first record to resolve.
      for (const type of this.buffers.keys()) this.flush(type);
      this.phase = 'add';
    }
    const t = this.typeIndex(record.entityType);
    const n = this.count++;
    if (n === this.order.length) {
      const next = new Uint8Array(n * 2);
      next.set(this.order);
      this.order = next;
    }
    this.order[n] = t;
    if (this.opts.keepRecordIds !== false) this.recordIds.push(record.recordId);
    this.push('add', record);
  }

  /** Whether a worker has more records queued (to count or resolve) than it needs to stay busy: await `ready()` then. */
  get busy(): boolean {
    if (this.failure) return true;
    for (const e of this.engines.values()) if (e.pending >= HIGH_WATER * this.batchSize) return true;
    return false;
  }

  /** Resolves when no worker is `busy`; rejects when a worker failed. */
  ready(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** Records resolved so far, all types. */
  get done(): number {
    let d = 0;
    for (const e of this.engines.values()) d += e.done;
    return d;
  }

  /**
   * A whole input in one call: every record primed, then every record added (with the
   * back-pressure of `busy` / `ready()`), then `finish()`. For inputs held in memory;
   * a streamed input calls `prime`, `add` and `finish` itself.
   */
  async resolveAll(records: readonly ErRecord[]): Promise<ParallelResolution> {
    for (const r of records) {
      this.prime(r);
      if (this.busy) await this.ready();
    }
    for (const r of records) {
      this.add(r);
      if (this.busy) await this.ready();
    }
    return this.finish();
  }

  async finish(): Promise<ParallelResolution> {
    if (this.failure) throw this.failure;
    if (this.phase === 'finished') throw new Error('finish() called twice');
    this.phase = 'finished';
    for (const type of this.buffers.keys()) this.flush(type);
    let results: PartitionResult[];
    try {
      results = await Promise.all(this.types.map((type) => this.engines.get(type)!.finish()));
    } catch (err) {
      await this.stopAll();
      throw this.failure ?? err;
    }
    // The threads' heaps are gone before the combined result is built.
    await this.stopAll();
    return this.combine(results);
  }

  private combine(results: PartitionResult[]): ParallelResolution {
    const n = this.count;
    const order = this.order;
    // Input position of each partition's records.
    const positions = results.map((r) => new Int32Array(r.records));
    const next = new Int32Array(results.length);
    for (let i = 0; i < n; i++) {
      const t = order[i]!;
      positions[t]![next[t]!++] = i;
    }
    results.forEach((r, t) => {
      if (next[t] !== r.records)
        throw new Error(`the ${r.type} partition resolved ${r.records} records, ${next[t]} were sent`);
    });
    const roots = new Int32Array(n);
    const decisions = new Uint8Array(n);
    const latency = new Float64Array(n);
    next.fill(0);
    for (let i = 0; i < n; i++) {
      const t = order[i]!;
      const k = next[t]!++;
      const r = results[t]!;
      roots[i] = positions[t]![r.roots[k]!]!;
      decisions[i] = r.decisions[k]!;
      latency[i] = r.latencyMs[k]!;
    }
    const reviews: ReviewItem[] = results
      .flatMap((r, t) =>
        r.reviews.map((v) => ({
          ...v,
          position: positions[t]![v.position]!,
          candidatePosition: positions[t]![v.candidatePosition]!,
        })),
      )
      .sort((a, b) => a.position - b.position);
    const partitions = results.map((r) => ({
      type: r.type,
      records: r.records,
      normaliseSeconds: r.normaliseMs / 1000,
      primeSeconds: r.primeMs / 1000,
      resolveSeconds: r.resolveMs / 1000,
    }));
    return new ParallelResolution(n, this.recordIds, roots, decisions, latency, reviews, partitions, this.threads);
  }

  private typeIndex(type: string): number {
    let t = this.types.indexOf(type);
    if (t < 0) {
      t = this.types.length;
      this.types.push(type);
      this.engines.set(type, this.engine(type));
    }
    return t;
  }

  private engine(type: string): Engine {
    const progress = (resolved: boolean) => this.progress(resolved);
    const opts = this.opts.resolver ?? {};
    if (this.threads === 1) return new LocalEngine(type, opts, progress);
    return new WorkerEngine(type, opts, this.opts.workerUrl ?? defaultWorkerUrl(), progress, (err) =>
      this.fail(err),
    );
  }

  private push(op: 'prime' | 'add', record: ErRecord): void {
    if (this.failure) throw this.failure;
    if (op === 'prime') this.typeIndex(record.entityType);
    const type = record.entityType;
    let buf = this.buffers.get(type);
    if (buf && buf.op !== op) {
      this.flush(type);
      buf = undefined;
    }
    if (!buf) this.buffers.set(type, (buf = { op, records: [] }));
    buf.records.push(record);
    if (buf.records.length >= this.batchSize) this.flush(type);
  }

  private flush(type: string): void {
    const buf = this.buffers.get(type);
    if (!buf || buf.records.length === 0) return;
    this.buffers.delete(type);
    this.engines.get(type)!.send(buf.op, buf.records);
  }

  private progress(resolved: boolean): void {
    if (resolved) this.opts.onProgress?.(this.done);
    if (this.waiters.length > 0 && !this.busy) {
      const w = this.waiters;
      this.waiters = [];
      for (const x of w) x.resolve();
    }
  }

  private fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    void this.stopAll();
    const w = this.waiters;
    this.waiters = [];
    for (const x of w) x.reject(err);
  }

  private async stopAll(): Promise<void> {
    await Promise.all([...this.engines.values()].map((e) => e.stop()));
  }
}
