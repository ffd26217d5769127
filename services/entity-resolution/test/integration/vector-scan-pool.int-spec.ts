/**
 * The vector scan pool over real worker threads (the build's compiled
 * worker): the same answers as one scan in this thread, filtered or not,
 * under concurrent searches; a write while a scan is out, a dead worker
 * and a closed pool each still answer exactly and currently.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BruteForceIndex } from '../../src/documents/domain/vector-index.js';
import { VectorScanPool } from '../../src/documents/infra/vector-scan-pool.js';

let seed = 3;
const rnd = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5;
const dims = 48;
const vec = () => Float32Array.from({ length: dims }, rnd);

function makeIndex(rows: number, shared = true) {
  const ix = new BruteForceIndex(dims, 64, shared);
  for (let i = 0; i < rows; i++) ix.upsert(`r${i}`, vec(), `doc-${i % 11}`);
  return ix;
}

describe('VectorScanPool', () => {
  const pool = new VectorScanPool({ threads: 2, minRows: 0 });
  afterAll(() => pool.close());

  it('answers what one scan of all rows answers, with and without a document filter, many searches at once', async () => {
    const ix = makeIndex(9_000);
    const queries = Array.from({ length: 24 }, vec);
    const filters = [undefined, ['doc-3'], ['doc-1', 'doc-7', 'doc-unknown'], []];
    const got = await Promise.all(queries.map((q, i) => pool.search(ix, q, 10, filters[i % filters.length])));
    queries.forEach((q, i) => expect(got[i]).toEqual(ix.search(q, 10, filters[i % filters.length])));
    expect(got[1]!.length).toBe(10);
    expect(got[1]!.every((h) => Number(h.id.slice(1)) % 11 === 3)).toBe(true);
    expect(got[3]).toEqual([]);
  });

  it('k larger than the rows answers every row, best first', async () => {
    const ix = makeIndex(5);
    const q = vec();
    const hits = await pool.search(ix, q, 50);
    expect(hits.map((h) => h.id).sort()).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    expect(hits).toEqual(ix.search(q, 50));
  });

  it('a write while the threads scan: the answer is that of the index after the write', async () => {
    const ix = makeIndex(20_000);
    const q = vec();
    const pending = pool.search(ix, q, 5);
    // Written before the threads answer: the best row now is the query itself, and r0 is gone.
    ix.upsert('new', Float32Array.from(q, (x) => x * 10), 'doc-new');
    ix.remove('r0');
    const hits = await pending;
    expect(hits[0]!.id).toBe('new');
    expect(hits).toEqual(ix.search(q, 5));
  });

  it('an index not in shared memory, or below the row floor, is scanned in this thread with the same answer', async () => {
    const floor = new VectorScanPool({ threads: 2, minRows: 1_000_000, workerUrl: new URL('file:///nonexistent/worker.js') });
    const ix = makeIndex(3_000);
    const plain = makeIndex(3_000, false);
    const q = vec();
    expect(await floor.search(ix, q, 7)).toEqual(ix.search(q, 7));
    expect(await pool.search(plain, q, 7)).toEqual(plain.search(q, 7));
    await floor.close();
  });

  it('a worker that dies: the search runs in this thread, says why once, and the next search starts a new worker', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scan-worker-'));
    const file = join(dir, 'dies.mjs');
    writeFileSync(file, "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => process.exit(3));\n");
    const reasons: string[] = [];
    const broken = new VectorScanPool({ threads: 2, minRows: 0, workerUrl: pathToFileURL(file), onFallback: (r) => reasons.push(r) });
    const ix = makeIndex(2_000);
    const q = vec();
    expect(await broken.search(ix, q, 4)).toEqual(ix.search(q, 4));
    expect(reasons).toEqual([expect.stringContaining('exited (3)')]);
    expect(await broken.search(ix, q, 4)).toEqual(ix.search(q, 4));
    expect(reasons).toHaveLength(2);
    await broken.close();
  });

  it('replaces a worker once it was sent more new blocks than it may hold on to; scans it still owed are answered', async () => {
    // Each index of 2,000 rows × 48 floats is ~390 KB: a worker may see two before it is replaced.
    const small = new VectorScanPool({ threads: 2, minRows: 0, recycleBytes: 1_000_000 });
    const indexes = Array.from({ length: 6 }, () => makeIndex(2_000));
    const q = vec();
    for (let round = 0; round < 2; round++) {
      // All at once: a worker is retired while it still owes scans.
      const got = await Promise.all(indexes.map((ix) => small.search(ix, q, 6)));
      indexes.forEach((ix, i) => expect(got[i]).toEqual(ix.search(q, 6)));
    }
    // 6 new blocks per thread, at most 2 per worker: 3 workers per thread in the first round, more in the second.
    expect(small.workersStarted).toBeGreaterThanOrEqual(6);
    // The same index again and again is no new block: no replacement.
    const before = small.workersStarted;
    for (let i = 0; i < 10; i++) expect(await small.search(indexes[0]!, q, 3)).toEqual(indexes[0]!.search(q, 3));
    expect(small.workersStarted - before).toBeLessThanOrEqual(2);
    await small.close();
  });

  it('a closed pool still answers, in this thread; a bad thread count is refused', async () => {
    const p = new VectorScanPool({ threads: 1, minRows: 0 });
    const ix = makeIndex(1_000);
    const q = vec();
    expect(await p.search(ix, q, 3)).toEqual(ix.search(q, 3));
    await p.close();
    expect(await p.search(ix, q, 3)).toEqual(ix.search(q, 3));
    expect(() => new VectorScanPool({ threads: 0 })).toThrow('threads must be a whole number ≥ 1, got 0');
  });
});
