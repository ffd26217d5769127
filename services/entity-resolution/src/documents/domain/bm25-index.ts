/**
 * Okapi BM25 (k1 1.2, b 0.75) over one owner's chunks, in memory: an
 * inverted index per document (lexeme → rows and term frequencies in typed
 * arrays), so indexing or removing a document replaces one segment and a
 * document filter skips whole segments. Corpus statistics (chunk count,
 * average length, document frequencies) are taken over the documents in
 * scope, as the PostgreSQL formulation did. The lexemes come from
 * PostgreSQL's `english` text-search configuration (the stored `tsvector`
 * of each chunk, `to_tsvector` of the question), so stemming and stop words
 * stay PostgreSQL's.
 */

export interface LexicalChunk {
  id: string;
  /** Chunk length in words (the `len` of its row). */
  len: number;
  /** Lexeme → term frequency. */
  terms: Map<string, number>;
}

interface Postings {
  rows: Int32Array;
  tf: Float32Array;
}

interface Segment {
  ids: string[];
  lens: Float32Array;
  totalLen: number;
  postings: Map<string, Postings>;
}

const K1 = 1.2;
const B = 0.75;

export class Bm25Index {
  private readonly segments = new Map<string, Segment>();
  private chunks = 0;

  get size(): number {
    return this.chunks;
  }

  get documents(): number {
    return this.segments.size;
  }

  /** Replaces the chunks of one document (an empty list removes it). */
  setDocument(documentId: string, chunks: LexicalChunk[]): void {
    this.removeDocument(documentId);
    if (!chunks.length) return;
    const lists = new Map<string, { rows: number[]; tf: number[] }>();
    const lens = new Float32Array(chunks.length);
    let totalLen = 0;
    chunks.forEach((c, row) => {
      lens[row] = c.len;
      totalLen += c.len;
      for (const [lex, tf] of c.terms) {
        let l = lists.get(lex);
        if (!l) lists.set(lex, (l = { rows: [], tf: [] }));
        l.rows.push(row);
        l.tf.push(tf);
      }
    });
    const postings = new Map<string, Postings>();
    for (const [lex, l] of lists) postings.set(lex, { rows: Int32Array.from(l.rows), tf: Float32Array.from(l.tf) });
    this.segments.set(documentId, { ids: chunks.map((c) => c.id), lens, totalLen, postings });
    this.chunks += chunks.length;
  }

  removeDocument(documentId: string): void {
    const s = this.segments.get(documentId);
    if (!s) return;
    this.chunks -= s.ids.length;
    this.segments.delete(documentId);
  }

  /** The k best chunks for the (distinct) lexemes, over `documentIds` when given; ties by id. */
  search(lexemes: readonly string[], k: number, documentIds?: readonly string[]): Array<{ id: string; score: number }> {
    const lex = [...new Set(lexemes)];
    if (!lex.length || k <= 0) return [];
    const scope: Segment[] = [];
    if (documentIds) {
      for (const id of new Set(documentIds)) {
        const s = this.segments.get(id);
        if (s) scope.push(s);
      }
    } else scope.push(...this.segments.values());
    let n = 0;
    let totalLen = 0;
    const df = new Float64Array(lex.length);
    for (const s of scope) {
      n += s.ids.length;
      totalLen += s.totalLen;
      lex.forEach((l, i) => (df[i]! += s.postings.get(l)?.rows.length ?? 0));
    }
    if (!n) return [];
    const avglen = Math.max(totalLen / n, 1);
    const idf = Array.from(df, (d) => Math.log(1 + (n - d + 0.5) / (d + 0.5)));
    const top = new TopK(k);
    let scores = new Float64Array(0);
    let touched = new Uint8Array(0);
    for (const s of scope) {
      const m = s.ids.length;
      if (scores.length < m) {
        scores = new Float64Array(m);
        touched = new Uint8Array(m);
      } else {
        scores.fill(0, 0, m);
        touched.fill(0, 0, m);
      }
      let any = false;
      lex.forEach((l, i) => {
        const p = s.postings.get(l);
        if (!p) return;
        any = true;
        const w = idf[i]!;
        const { rows, tf } = p;
        for (let j = 0; j < rows.length; j++) {
          const r = rows[j]!;
          const f = tf[j]!;
          scores[r]! += (w * (f * (K1 + 1))) / (f + K1 * (1 - B + (B * s.lens[r]!) / avglen));
          touched[r] = 1;
        }
      });
      if (!any) continue;
      for (let r = 0; r < m; r++) if (touched[r]) top.offer(s.ids[r]!, scores[r]!);
    }
    return top.sorted();
  }
}

/** A bounded min-heap of (score, id); the worst kept item is at the root. Ties: the smaller id wins. */
class TopK {
  private readonly ids: string[] = [];
  private readonly scores: number[] = [];

  constructor(private readonly k: number) {}

  private worse(i: number, j: number): boolean {
    const a = this.scores[i]!;
    const b = this.scores[j]!;
    return a < b || (a === b && this.ids[i]! > this.ids[j]!);
  }

  private swap(i: number, j: number): void {
    [this.ids[i], this.ids[j]] = [this.ids[j]!, this.ids[i]!];
    [this.scores[i], this.scores[j]] = [this.scores[j]!, this.scores[i]!];
  }

  offer(id: string, score: number): void {
    if (this.ids.length === this.k) {
      const s0 = this.scores[0]!;
      if (score < s0 || (score === s0 && id > this.ids[0]!)) return;
      this.ids[0] = id;
      this.scores[0] = score;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < this.ids.length && this.worse(l, m)) m = l;
        if (r < this.ids.length && this.worse(r, m)) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
      return;
    }
    this.ids.push(id);
    this.scores.push(score);
    let i = this.ids.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.worse(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }

  sorted(): Array<{ id: string; score: number }> {
    return this.ids
      .map((id, i) => ({ id, score: this.scores[i]! }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}

/**
 * Parses PostgreSQL's text form of a tsvector (`'lexeme':1,4 'other':2A`)
 * into lexeme → occurrences; a lexeme without positions counts once.
 */
export function parseTsvector(text: string): { terms: Map<string, number>; len: number } {
  const terms = new Map<string, number>();
  let len = 0;
  const re = /'((?:[^']|'')*)'(?::([0-9A-D,]+))?/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const lex = m[1]!.replace(/''/g, "'").replace(/\\\\/g, '\\');
    const tf = m[2] ? m[2].split(',').length : 1;
    terms.set(lex, tf);
    len += tf;
  }
  return { terms, len };
}
