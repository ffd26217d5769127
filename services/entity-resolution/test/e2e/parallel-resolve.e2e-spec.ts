/**
 * ParallelResolver with real worker threads (the compiled worker in dist/):
 * the same clusters, decisions and review items as one thread, worker
 * failures as rejections, and `resolveFile` (the `er` binary and
 * `af er resolve`) with bad lines on two threads.
 * Needs `pnpm --filter @af/entity-resolution build`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolveFile } from '../../src/cli/resolve-file.js';
import { generateRecords } from '../../src/domain/generator.js';
import type { ErRecord } from '../../src/domain/record.js';
import { ParallelResolver, type ParallelResolution } from '../../src/domain/parallel-resolve.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'er-parallel-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function resolve(raw: ErRecord[], threads: number, batchSize?: number): Promise<ParallelResolution> {
  return new ParallelResolver({ threads, ...(batchSize ? { batchSize } : {}) }).resolveAll(raw);
}

it('gives on two threads exactly what one thread gives', async () => {
  const raw = [...generateRecords({ records: 4000, seed: 11, corruption: 'medium' })];
  expect(new Set(raw.map((r) => r.entityType))).toEqual(new Set(['PERSON', 'ORG']));
  const one = await resolve(raw, 1);
  // Small batches: many messages, and the queue limit is reached.
  const two = await resolve(raw, 2, 50);
  expect(two.threads).toBe(2);
  expect(two.clusters()).toEqual(one.clusters());
  expect(Array.from(two.roots)).toEqual(Array.from(one.roots));
  expect(raw.map((_, i) => two.decision(i))).toEqual(raw.map((_, i) => one.decision(i)));
  expect(two.reviews).toEqual(one.reviews);
  expect(two.clusters().map((c) => c.recordId)).toEqual(raw.map((r) => r.recordId));
  expect(new Set(two.clusters().map((c) => c.clusterId)).size).toBeLessThan(raw.length);
});

it('rejects with the worker error when a worker throws, and does not hang', async () => {
  const p = new ParallelResolver({ threads: 2, batchSize: 1 });
  p.add({ recordId: 'a', entityType: 'ORG', name: 'Acme Inc' });
  p.add({ recordId: 'b', entityType: 'PERSON', name: null as unknown as string });
  await expect(p.finish()).rejects.toThrow(/^entity resolution worker \(PERSON\) failed: .*null/);
});

it('rejects when a worker exits without its result', async () => {
  const script = join(dir, 'exits.mjs');
  writeFileSync(script, 'process.exit(3);\n');
  const p = new ParallelResolver({ threads: 2, workerUrl: pathToFileURL(script) });
  p.add({ recordId: 'a', entityType: 'ORG', name: 'Acme Inc' });
  await expect(p.finish()).rejects.toThrow('entity resolution worker (ORG) exited (code 3) before it finished');
  // A failure seen while the input is still going in stops it there.
  const q = new ParallelResolver({ threads: 2, batchSize: 1, workerUrl: pathToFileURL(script) });
  q.add({ recordId: 'a', entityType: 'ORG', name: 'Acme Inc' });
  await new Promise((r) => setTimeout(r, 500));
  expect(q.busy).toBe(true);
  await expect(q.ready()).rejects.toThrow('exited (code 3)');
  expect(() => q.add({ recordId: 'b', entityType: 'ORG', name: 'Acme Inc' })).toThrow('exited (code 3)');
});

it('resolves a file with bad lines on two threads as on one', async () => {
  const raw = [...generateRecords({ records: 1500, seed: 5, corruption: 'medium' })];
  const lines = raw.map((r) =>
    JSON.stringify({
      record_id: r.recordId,
      entity_type: r.entityType,
      name: r.name,
      ...(r.externalIds && Object.keys(r.externalIds).length ? { external_ids: r.externalIds } : {}),
      ...(r.city ? { city: r.city } : {}),
      ...(r.state ? { state: r.state } : {}),
    }),
  );
  lines.splice(10, 0, 'not json');
  lines.splice(500, 0, JSON.stringify({ record_id: 'x', entity_type: 'SHIP', name: 'Nautilus' }));
  lines.splice(900, 0, lines[20]!);
  writeFileSync(join(dir, 'in.jsonl'), `${lines.join('\n')}\n`);
  const run = async (threads: number) => {
    const bad: Array<[number, string]> = [];
    const progress: number[] = [];
    const out = join(dir, `out-${threads}.jsonl`);
    const summary = await resolveFile({
      inPath: join(dir, 'in.jsonl'),
      outPath: out,
      threads,
      onBadLine: (line, reason) => bad.push([line, reason]),
      onProgress: (done, total) => progress.push(done / total),
    });
    return { summary, bad, progress, out: readFileSync(out, 'utf8') };
  };
  const one = await run(1);
  const two = await run(2);
  expect(two.bad).toEqual([
    [11, 'not JSON'],
    [501, 'entity_type: entity_type must be PERSON or ORG'],
    [901, `record_id ${JSON.stringify(raw[19]!.recordId)} appeared on an earlier line`],
  ]);
  expect(two.bad).toEqual(one.bad);
  expect(two.out).toBe(one.out);
  expect({ ...two.summary, seconds: 0 }).toEqual({ ...one.summary, seconds: 0 });
  expect(two.summary.records).toBe(1500);
  expect(two.progress.at(-1)).toBe(1);
  const first = JSON.parse(two.out.split('\n')[0]!) as Record<string, unknown>;
  expect(Object.keys(first)).toEqual(['record_id', 'cluster_id', 'decided']);
  expect(first['record_id']).toBe(raw[0]!.recordId);
});
