/**
 * Bulk resolution of a JSONL file with the service's own pipeline: the
 * in-memory Resolver around the same `resolveOne` the service runs. Shared
 * by the service's `er` binary and `af er resolve`.
 *
 * Batch mode reads the whole input first (bad lines reported with their
 * number and skipped), counts name frequencies over all of it (as Splink
 * computes its term-frequency tables), then resolves record by record. The
 * PERSON and the ORG records are resolved on two threads (`ParallelResolver`:
 * types are never merged and their statistics are per type), each type in
 * input order; `threads: 1` or `ER_THREADS=1` keeps it to one thread, with
 * the same result.
 * Output: one line per good record, `{record_id, cluster_id, decided}` where
 * `decided` is "review" when the record's best match fell in the review band
 * (its cluster is then its own) and no later record bridged the two clusters
 * (which answers the question: the record is then "auto", in the candidate's
 * cluster).
 */
import { createWriteStream } from 'node:fs';
import type { Thresholds } from '../domain/decision.js';
import { ParallelResolver } from '../domain/parallel-resolve.js';
import type { ScoringModel } from '../domain/scoring.js';
import { readRecordLines } from './record-line.js';

export { parseLine, readRecordLines, type LineResult } from './record-line.js';
export { fitFile, type FitFileOptions, type FitFileSummary } from './fit-file.js';
export { readModelFile } from '../domain/model-file.js';
export { parseThresholdFlags } from './thresholds.js';

export interface ResolveFileOptions {
  inPath: string;
  outPath: string;
  /** Called while resolving with the records done so far and the total (at most a few times a second). */
  onProgress?: (done: number, total: number) => void;
  /** Called once per bad line, which is skipped. */
  onBadLine?: (line: number, reason: string) => void;
  /** 1: resolve in the calling thread; default: each entity type in its own worker thread (`ER_THREADS` overrides). */
  threads?: number;
  /** The scoring model (a deployment's, from a model file `er fit` wrote); default: the shipped one. */
  model?: ScoringModel;
  /** The auto-merge and review thresholds (default 0.9 and 0.4; see `parseThresholdFlags`). */
  thresholds?: Thresholds;
}

export interface ResolveFileSummary {
  records: number;
  badLines: number;
  clusters: number;
  review: number;
  seconds: number;
}

export async function resolveFile(opts: ResolveFileOptions): Promise<ResolveFileSummary> {
  const t0 = Date.now();
  const { records, badLines: bad } = await readRecordLines(opts.inPath, opts.onBadLine);

  let last = 0;
  const resolver = new ParallelResolver({
    ...(opts.threads !== undefined ? { threads: opts.threads } : {}),
    resolver: {
      ...(opts.model ? { model: opts.model } : {}),
      ...(opts.thresholds ? { thresholds: opts.thresholds } : {}),
    },
    onProgress: (done) => {
      const now = Date.now();
      if (opts.onProgress && now - last > 200) {
        last = now;
        opts.onProgress(done, records.length);
      }
    },
  });
  const resolution = await resolver.resolveAll(records);
  records.length = 0;
  opts.onProgress?.(resolution.size, resolution.size);
  const review = new Set(resolution.reviews.filter((r) => r.open).map((r) => r.position));

  // Clusters are final only at the end: a later record may join an earlier one's cluster.
  const out = createWriteStream(opts.outPath);
  const clusterSet = new Set<string>();
  const ids = resolution.recordIds;
  for (let i = 0; i < ids.length; i++) {
    const clusterId = ids[resolution.roots[i]!]!;
    clusterSet.add(clusterId);
    const line = `${JSON.stringify({ record_id: ids[i], cluster_id: clusterId, decided: review.has(i) ? 'review' : 'auto' })}\n`;
    if (!out.write(line)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((err?: Error | null) => (err ? reject(err) : resolve())),
  );
  return {
    records: resolution.size,
    badLines: bad,
    clusters: clusterSet.size,
    review: review.size,
    seconds: (Date.now() - t0) / 1000,
  };
}
