/**
 * Tokenising shared by the embedder, the chunker (token estimates) and query
 * analysis. Lower-cased word tokens with a light English suffix strip, so
 * "invoices" and "invoice" meet in the offline embedder's feature space.
 */

const STOP = new Set(
  'a an and are as at be but by for from has have how i in is it its of on or that the this to was were what when where which who why will with does did do can you your our we they their there these those about into than then so if not no yes my me'.split(
    ' ',
  ),
);

/** True for the small English stop-word list the lexical features skip. */
export const isStopWord = (w: string) => STOP.has(w);

/** Word tokens (letters/digits), lower-cased. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:[.'’-][\p{L}\p{N}]+)*/gu) ?? [];
}

/** A light stemmer: plural and common verb endings only (predictable, language-agnostic enough). */
export function stem(w: string): string {
  if (w.length <= 4 || /\d/.test(w)) return w;
  if (w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.endsWith('ing') && w.length > 6) return w.slice(0, -3);
  if (w.endsWith('ed') && w.length > 5) return w.slice(0, -2);
  if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us')) return w.slice(0, -1);
  return w;
}

/** Content terms: stemmed words without stop words. */
export function terms(text: string): string[] {
  return words(text)
    .filter((w) => !STOP.has(w))
    .map(stem);
}

/**
 * Token estimate for chunk sizing: words plus punctuation runs, scaled the
 * way BPE tokenisers split English (≈ 1.3 tokens a word). Close enough to
 * keep chunks near the target without shipping a tokeniser vocabulary.
 */
export function estimateTokens(text: string): number {
  const w = text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
  const p = text.match(/[^\s\p{L}\p{N}]+/gu)?.length ?? 0;
  return Math.ceil(w * 1.3 + p * 0.5);
}

/** Sentences of a paragraph (abbreviation-naive, good enough for extractive descriptions). */
export function sentences(text: string): string[] {
  return (text.replace(/\s+/g, ' ').match(/[^.!?]+(?:[.!?]+|$)/g) ?? [])
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
