/**
 * The offline deterministic embedder: no model, no download. A text's vector
 * is the signed feature hashing (FNV-1a) of its stemmed terms, term bigrams
 * and each word's character 3- to 5-grams, log-TF weighted and L2-normalised.
 * Same text, same vector, on every machine; near-duplicates and word-form
 * variants land close, synonyms do not (it is lexical, not semantic: a
 * configured langchain model is the semantic option).
 */
import { stem, words } from './text.js';

export const HASHED_EMBEDDER_NAME = 'offline-hashed-ngram-v1';

function fnv1a(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export class HashedEmbedder {
  readonly name = HASHED_EMBEDDER_NAME;

  constructor(readonly dimensions = 512) {}

  embed(text: string): Float32Array {
    const feats = new Map<string, number>();
    const add = (f: string, w: number) => feats.set(f, (feats.get(f) ?? 0) + w);
    const ws = words(text).map(stem);
    for (let i = 0; i < ws.length; i++) {
      const w = ws[i]!;
      add(`w:${w}`, 1);
      if (i + 1 < ws.length) add(`b:${w} ${ws[i + 1]}`, 0.5);
      const padded = `^${w}$`;
      for (let n = 3; n <= 5; n++)
        for (let j = 0; j + n <= padded.length; j++) add(`c:${padded.slice(j, j + n)}`, 0.15);
    }
    const v = new Float32Array(this.dimensions);
    for (const [f, tf] of feats) {
      const h = fnv1a(f);
      const sign = h & 0x80000000 ? -1 : 1;
      v[h % this.dimensions]! += sign * (1 + Math.log(1 + tf));
    }
    let norm = 0;
    for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
    norm = Math.sqrt(norm);
    if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
    return v;
  }
}
