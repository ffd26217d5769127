/**
 * Exact cosine search over unit vectors in one contiguous Float32Array
 * (brute force: a dot product per row, a bounded min-heap for the top k).
 * Measured against an HNSW graph in bench/rag: at the sizes one user's
 * library reaches it answers well inside the latency target with perfect
 * recall, no index build, and deletes that are just a swap with the last row.
 */

export interface VectorHit {
  id: string;
  score: number;
}

export class BruteForceIndex {
  private data: Float32Array;
  private ids: string[] = [];
  private readonly pos = new Map<string, number>();

  constructor(
    readonly dimensions: number,
    capacity = 1024,
  ) {
    this.data = new Float32Array(dimensions * capacity);
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
      if ((at + 1) * this.dimensions > this.data.length) {
        const grown = new Float32Array(Math.max(this.data.length * 2, (at + 1) * this.dimensions));
        grown.set(this.data);
        this.data = grown;
      }
      this.ids.push(id);
      this.pos.set(id, at);
    }
    this.data.set(vector, at * this.dimensions);
  }

  remove(id: string): boolean {
    const at = this.pos.get(id);
    if (at === undefined) return false;
    const last = this.ids.length - 1;
    if (at !== last) {
      const lastId = this.ids[last]!;
      this.data.copyWithin(at * this.dimensions, last * this.dimensions, (last + 1) * this.dimensions);
      this.ids[at] = lastId;
      this.pos.set(lastId, at);
    }
    this.ids.pop();
    this.pos.delete(id);
    return true;
  }

  /** The k rows most similar to `query` (dot product = cosine for unit vectors) that pass `accept`. */
  search(query: Float32Array, k: number, accept?: (id: string) => boolean): VectorHit[] {
    const d = this.dimensions;
    const heapIds: number[] = [];
    const heapScores: number[] = [];
    const data = this.data;
    for (let row = 0; row < this.ids.length; row++) {
      let s = 0;
      const off = row * d;
      for (let j = 0; j < d; j++) s += data[off + j]! * query[j]!;
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
      .sort((a, b) => b.score - a.score);
  }
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
