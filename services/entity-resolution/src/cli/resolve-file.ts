/**
 * Bulk resolution of a JSONL file with the service's own pipeline: the
 * in-memory Resolver around the same `resolveOne` the service runs. Shared
 * by the service's `er` binary and `af er resolve`.
 *
 * Batch mode reads the whole input first (bad lines reported with their
 * number and skipped), counts name frequencies over all of it (as Splink
 * computes its term-frequency tables), then resolves record by record.
 * Output: one line per good record, `{record_id, cluster_id, decided}` where
 * `decided` is "review" when the record's best match fell in the review band
 * (its cluster is then its own).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { normaliseRecord, type NormalisedRecord } from '../domain/normalise.js';
import { Resolver } from '../domain/resolver.js';
import { parseLine } from './record-line.js';

export { parseLine, type LineResult } from './record-line.js';

export interface ResolveFileOptions {
  inPath: string;
  outPath: string;
  /** Called while resolving with the records done so far and the total (at most a few times a second). */
  onProgress?: (done: number, total: number) => void;
  /** Called once per bad line, which is skipped. */
  onBadLine?: (line: number, reason: string) => void;
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
  const input = createReadStream(opts.inPath);
  const opened = new Promise<void>((resolve, reject) => {
    input.once('open', () => resolve());
    input.once('error', reject);
  });
  await opened;
  const lines = createInterface({ input, crlfDelay: Infinity });
  const records: NormalisedRecord[] = [];
  const seen = new Set<string>();
  let n = 0;
  let bad = 0;
  for await (const text of lines) {
    n++;
    const parsed = parseLine(text, n);
    if (!parsed) continue;
    if (!parsed.ok) {
      bad++;
      opts.onBadLine?.(parsed.line, parsed.reason);
      continue;
    }
    if (seen.has(parsed.record.recordId)) {
      bad++;
      opts.onBadLine?.(n, `record_id ${JSON.stringify(parsed.record.recordId)} appeared on an earlier line`);
      continue;
    }
    seen.add(parsed.record.recordId);
    records.push(normaliseRecord(parsed.record).record);
  }
  seen.clear();

  const resolver = new Resolver();
  resolver.primeFrequencies(records);
  const review = new Set<string>();
  let last = 0;
  for (let i = 0; i < records.length; i++) {
    const res = resolver.add(records[i]!);
    if (res.decision === 'flag_review') review.add(res.recordId);
    const now = Date.now();
    if (opts.onProgress && now - last > 200) {
      last = now;
      opts.onProgress(i + 1, records.length);
    }
  }
  opts.onProgress?.(records.length, records.length);

  // Clusters are final only at the end: a later record may join an earlier one's cluster.
  const out = createWriteStream(opts.outPath);
  const clusterSet = new Set<string>();
  for (const c of resolver.clusters()) {
    clusterSet.add(c.clusterId);
    const line = `${JSON.stringify({ record_id: c.recordId, cluster_id: c.clusterId, decided: review.has(c.recordId) ? 'review' : 'auto' })}\n`;
    if (!out.write(line)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((err?: Error | null) => (err ? reject(err) : resolve())),
  );
  return {
    records: records.length,
    badLines: bad,
    clusters: clusterSet.size,
    review: review.size,
    seconds: (Date.now() - t0) / 1000,
  };
}
