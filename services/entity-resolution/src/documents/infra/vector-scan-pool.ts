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
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { queryPlan, type BruteForceIndex, type ScanResult, type VectorHit } from '../domain/vector-index.js';
import type { ScanJob, ScanReply } from './vector-scan.worker.js';

export interface VectorScanPoolOptions {
  /** Worker threads; the rows are cut into this many slices. */
  threads: number;
  /** Indexes with fewer rows are scanned in the calling thread. */
  minRows?: number;
  /** Told once per failure that made a search fall back to the calling thread. */
  onFallback?: (reason: string) => void;
  /** The worker module (default: vector-scan.worker.js beside this one). */
  workerUrl?: URL;
}

/** The compiled worker next to this module; under the test runner (TypeScript sources) the build's copy. */
function workerUrl(): URL {
  const here = new URL('./vector-scan.worker.js', import.meta.url);
  const path = fileURLToPath(here);
  return existsSync(path) ? here : pathToFileURL(path.replace(/\/src\/(?=documents\/infra\/vector-scan\.worker\.js$)/, '/dist/'));
}

type Pending = { resolve: (r: ScanResult) => void; reject: (e: Error) => void };

class ScanThread {
  private worker: Worker | null = null;
  constructor(private readonly url: URL) {}

  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  private spawn(): Worker {
    const worker = new Worker(this.url);
    worker.on('message', (reply: ScanReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if ('error' in reply) p.reject(new Error(`vector scan failed: ${reply.error}`));
      else p.resolve({ rows: reply.rows, scores: reply.scores });
    });
    const died = (why: string) => {
      if (this.worker === worker) this.worker = null;
      for (const p of this.pending.values()) p.reject(new Error(`vector scan thread ${why}`));
      this.pending.clear();
    };
    // Never what keeps the process alive.
    worker.unref();
    worker.on('error', (err) => died(`failed: ${err.message}`));
    worker.on('exit', (code) => died(`exited (${code})`));
    return worker;
  }

  scan(job: Omit<ScanJob, 'id'>): Promise<ScanResult> {
    this.worker ??= this.spawn();
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker!.postMessage({ ...job, id });
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}

export class VectorScanPool {
  private readonly threads: ScanThread[];
  private readonly minRows: number;
  private closed = false;

  constructor(private readonly options: VectorScanPoolOptions) {
    if (!Number.isInteger(options.threads) || options.threads < 1) throw new Error(`threads must be a whole number ≥ 1, got ${options.threads}`);
    const url = options.workerUrl ?? workerUrl();
    this.threads = Array.from({ length: options.threads }, () => new ScanThread(url));
    this.minRows = options.minRows ?? 20_000;
  }

  get size(): number {
    return this.threads.length;
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
