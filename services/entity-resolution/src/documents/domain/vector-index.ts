/**
 * Exact cosine search over unit vectors held column by column: one
 * Float32Array per dimension, a row per chunk. A query adds
 * `q[j] * column[j]` into one score array for every dimension where the
 * query is not zero (four columns per pass over the scores), then a bounded
 * min-heap keeps the top k. The hashed n-gram features are sparse (a
 * question touches ~70 of 512 dimensions), so a search reads only those
 * columns plus the dense ones (100 semantic dimensions of
 * `offline-wordvec-v1`, all of an API embedder's), and a dense query costs
 * less than a row-by-row dot product. Measured
 * in bench/rag against the row-major loop (100 ms → 13 ms at 100k chunks)
 * and an HNSW graph (hnswlib-node: faster, but 45 % of the exact top 8 on
 * this data): exact search with perfect recall, no index build, and
 * deletes that are a swap with the last row.
 */

export interface VectorHit {
  id: string;
  score: number;
}

export class BruteForceIndex {
  private cols: Float32Array[];
  private capacity: number;
  private ids: string[] = [];
  private readonly pos = new Map<string, number>();
  private scratch = new Float32Array(0);

  constructor(
    readonly dimensions: number,
    capacity = 1024,
  ) {
    this.capacity = Math.max(16, capacity);
    this.cols = Array.from({ length: dimensions }, () => new Float32Array(this.capacity));
  }

  get size(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.pos.has(id);
  }

  upsert(id: string, vector: Float32Array): void {
    if (vector.length !== this.dimensions) throw new Error(`vector has ${vector.length} dimensions, the index ${this.dimensions}`);
    let at = this.pos.get(id);
    if (at === undefined) {
      at = this.ids.length;
      if (at >= this.capacity) this.grow(Math.max(this.capacity * 2, at + 1));
      this.ids.push(id);
      this.pos.set(id, at);
    }
    for (let j = 0; j < this.dimensions; j++) this.cols[j]![at] = vector[j]!;
  }

  private grow(capacity: number): void {
    this.cols = this.cols.map((c) => {
      const g = new Float32Array(capacity);
      g.set(c);
      return g;
    });
    this.capacity = capacity;
  }

  remove(id: string): boolean {
    const at = this.pos.get(id);
    if (at === undefined) return false;
    const last = this.ids.length - 1;
    if (at !== last) {
      const lastId = this.ids[last]!;
      for (const c of this.cols) c[at] = c[last]!;
      this.ids[at] = lastId;
      this.pos.set(lastId, at);
    }
    this.ids.pop();
    this.pos.delete(id);
    return true;
  }

  /** The k rows most similar to `query` (dot product = cosine for unit vectors) that pass `accept`. */
  search(query: Float32Array, k: number, accept?: (id: string) => boolean): VectorHit[] {
    const n = this.ids.length;
    if (this.scratch.length < n) this.scratch = new Float32Array(this.capacity);
    const scores = this.scratch.subarray(0, n);
    scores.fill(0);
    // The query's non-zero dimensions, four columns per pass over the scores (a quarter of the
    // score reads and writes; 3x faster than one column per pass at 100k rows, see bench/rag).
    const nz: number[] = [];
    for (let j = 0; j < this.dimensions; j++) if (query[j] !== 0) nz.push(j);
    let i = 0;
    const c = this.cols;
    for (; i + 4 <= nz.length; i += 4) {
      const [a, b, d, e] = [nz[i]!, nz[i + 1]!, nz[i + 2]!, nz[i + 3]!];
      axpy4(scores, c[a]!, c[b]!, c[d]!, c[e]!, query[a]!, query[b]!, query[d]!, query[e]!, n);
    }
    for (; i < nz.length; i++) axpy(scores, c[nz[i]!]!, query[nz[i]!]!, n);
    const heapIds: number[] = [];
    const heapScores: number[] = [];
    for (let row = 0; row < n; row++) {
      const s = scores[row]!;
      if (heapIds.length === k && s <= heapScores[0]!) continue;
      if (accept && !accept(this.ids[row]!)) continue;
      if (heapIds.length < k) {
        heapIds.push(row);
        heapScores.push(s);
        siftUp(heapIds, heapScores, heapIds.length - 1);
      } else {
        heapIds[0] = row;
        heapScores[0] = s;
        siftDown(heapIds, heapScores, 0);
      }
    }
    return heapIds
      .map((row, i) => ({ id: this.ids[row]!, score: heapScores[i]! }))
      .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
  }
}

/** scores += w0 * c0 + … + w3 * c3, over the first n rows. */
function axpy4(
  scores: Float32Array,
  c0: Float32Array,
  c1: Float32Array,
  c2: Float32Array,
  c3: Float32Array,
  w0: number,
  w1: number,
  w2: number,
  w3: number,
  n: number,
): void {
  for (let r = 0; r < n; r++) scores[r]! += w0 * c0[r]! + w1 * c1[r]! + w2 * c2[r]! + w3 * c3[r]!;
}

/** scores += w * column, over the first n rows (kept apart so V8 optimises the loop on its own). */
function axpy(scores: Float32Array, column: Float32Array, w: number, n: number): void {
  for (let r = 0; r < n; r++) scores[r]! += w * column[r]!;
}

function swap(a: number[], b: number[], i: number, j: number) {
  [a[i], a[j]] = [a[j]!, a[i]!];
  [b[i], b[j]] = [b[j]!, b[i]!];
}

function siftUp(ids: number[], s: number[], i: number) {
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (s[p]! <= s[i]!) break;
    swap(ids, s, i, p);
    i = p;
  }
}

function siftDown(ids: number[], s: number[], i: number) {
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let m = i;
    if (l < s.length && s[l]! < s[m]!) m = l;
    if (r < s.length && s[r]! < s[m]!) m = r;
    if (m === i) break;
    swap(ids, s, i, m);
    i = m;
  }
}
