/**
 * Vector search over a shared `BruteForceIndex` in worker threads: the rows
 * are cut into one slice per thread, each thread scans its slice of the
 * shared column block (no copy) and answers its top k, and the best k of
 * those are the answer, the same rows as one scan of all rows. The event
 * loop is free meanwhile (BM25 of the same hybrid query runs beside it), and
 * on two cores a 100k-chunk scan takes about half as long (bench/rag).
 *
 * Small indexes (below `minRows`) are scanned in the calling thread, where
 * posting would cost more than it saves. A write to the index while a scan
 * is out (the write version moved) or a worker that fails makes this search
 * run in the calling thread instead: an answer is always exact and current.
 */
import { Worker } from 'node:worker_threads';
import { queryPlan, type BruteForceIndex, type ScanResult, type VectorHit } from '../domain/vector-index.js';
import type { ScanJob, ScanReply } from './vector-scan.worker.js';
import { compiledWorkerUrl } from '../../worker-url.js';

export interface VectorScanPoolOptions {
  /** Worker threads; the rows are cut into this many slices. */
  threads: number;
  /** Indexes with fewer rows are scanned in the calling thread. */
  minRows?: number;
  /** Told once per failure that made a search fall back to the calling thread. */
  onFallback?: (reason: string) => void;
  /** The worker module (default: vector-scan.worker.js beside this one). */
  workerUrl?: URL;
  /** Bytes of blocks a worker may be sent before it is replaced by a fresh one (see ScanThread); default 256 MiB. */
  recycleBytes?: number;
}

/** The compiled worker next to this module; under the test runner (TypeScript sources) the build's copy. */
const workerUrl = () => compiledWorkerUrl(import.meta.url, './vector-scan.worker.js');

type Pending = { resolve: (r: ScanResult) => void; reject: (e: Error) => void };

/** One worker and the scans it owes; `retiring`: it takes no more and ends once it owes none. */
interface Live {
  worker: Worker;
  pending: Map<number, Pending>;
  retiring: boolean;
}

/**
 * One worker thread, started on first use and again after it dies. A worker
 * holds on to every shared block it was sent until its own garbage
 * collection runs, which its tiny allocations rarely cause: so once it has
 * been sent `recycleBytes` of blocks it never had (an owner's index loaded
 * again after another replica wrote, an index grown), it is retired (ended
 * when its scans are answered, which frees them all) and a fresh one serves.
 */
class ScanThread {
  private live: Live | null = null;
  private nextId = 0;
  private sent = new WeakSet<SharedArrayBuffer>();
  private sentBytes = 0;
  /** Workers started so far. */
  started = 0;

  constructor(
    private readonly url: URL,
    private readonly recycleBytes: number,
  ) {}

  private spawn(): Live {
    const worker = new Worker(this.url);
    this.started++;
    const live: Live = { worker, pending: new Map(), retiring: false };
    worker.on('message', (reply: ScanReply) => {
      const p = live.pending.get(reply.id);
      if (!p) return;
      live.pending.delete(reply.id);
      if (live.pending.size === 0) {
        worker.unref();
        if (live.retiring) void worker.terminate();
      }
      if ('error' in reply) p.reject(new Error(`vector scan failed: ${reply.error}`));
      else p.resolve({ rows: reply.rows, scores: reply.scores });
    });
    const died = (why: string) => {
      if (this.live === live) this.live = null;
      for (const p of live.pending.values()) p.reject(new Error(`vector scan thread ${why}`));
      live.pending.clear();
    };
    // Idle, never what keeps the process alive; while a scan is out, it is (see scan).
    worker.unref();
    worker.on('error', (err) => died(`failed: ${err.message}`));
    worker.on('exit', (code) => died(`exited (${code})`));
    return live;
  }

  private retire(): void {
    const old = this.live;
    this.live = null;
    this.sent = new WeakSet();
    this.sentBytes = 0;
    if (!old) return;
    old.retiring = true;
    if (old.pending.size === 0) void old.worker.terminate();
  }

  scan(job: Omit<ScanJob, 'id'>): Promise<ScanResult> {
    const block = job.data.buffer as SharedArrayBuffer;
    if (!this.sent.has(block)) {
      const bytes = block.byteLength + job.groups.byteLength;
      if (this.sentBytes > 0 && this.sentBytes + bytes > this.recycleBytes) this.retire();
      this.sent.add(block);
      this.sentBytes += bytes;
    }
    const live = (this.live ??= this.spawn());
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      live.pending.set(id, { resolve, reject });
      live.worker.ref();
      live.worker.postMessage({ ...job, id });
    });
  }

  async close(): Promise<void> {
    const live = this.live;
    this.live = null;
    if (live) await live.worker.terminate();
  }
}

export class VectorScanPool {
  private readonly threads: ScanThread[];
  private readonly minRows: number;
  private closed = false;

  constructor(private readonly options: VectorScanPoolOptions) {
    if (!Number.isInteger(options.threads) || options.threads < 1) throw new Error(`threads must be a whole number ≥ 1, got ${options.threads}`);
    const url = options.workerUrl ?? workerUrl();
    this.threads = Array.from({ length: options.threads }, () => new ScanThread(url, options.recycleBytes ?? 256 * 2 ** 20));
    this.minRows = options.minRows ?? 20_000;
  }

  get size(): number {
    return this.threads.length;
  }

  /** Worker threads started so far (more than `size` once workers were replaced). */
  get workersStarted(): number {
    return this.threads.reduce((a, t) => a + t.started, 0);
  }

  /** The k rows of `index` most similar to `query`, restricted to `groups` when given (see BruteForceIndex.search). */
  async search(index: BruteForceIndex, query: Float32Array, k: number, groups?: Iterable<string>): Promise<VectorHit[]> {
    const block = index.block;
    if (this.closed || !index.shared || block.size < this.minRows || k < 1) return index.search(query, k, groups);
    const plan = queryPlan(query);
    const allowed = index.allowedMask(groups);
    const slice = Math.ceil(block.size / this.threads.length);
    let results: ScanResult[];
    try {
      results = await Promise.all(
        this.threads.map((t, i) =>
          t.scan({ data: block.data, groups: block.groups, capacity: block.capacity, ...plan, k, from: i * slice, to: Math.min(block.size, (i + 1) * slice), ...(allowed ? { allowed } : {}) }),
        ),
      );
    } catch (err) {
      this.options.onFallback?.((err as Error).message);
      return index.search(query, k, groups);
    }
    // Written meanwhile (rows moved or replaced): the slices may disagree with the ids now; scan again here.
    if (index.block.version !== block.version) return index.search(query, k, groups);
    return index.hits(results, k);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map((t) => t.close()));
  }
}
