/**
 * The extractive description used when no model is configured: the two or
 * three sentences that best cover the document's frequent terms (early
 * sentences preferred on ties), in document order.
 */
import { sentences, terms } from './text.js';

export function extractiveDescription(text: string, maxSentences = 3, maxChars = 600): string {
  const all = text
    .split(/\n{1,}/)
    .flatMap((p) => sentences(p))
    .filter((s) => s.split(' ').length >= 4 && s.length <= 400);
  if (!all.length) return text.replace(/\s+/g, ' ').trim().slice(0, maxChars);
  const tf = new Map<string, number>();
  for (const t of terms(text)) tf.set(t, (tf.get(t) ?? 0) + 1);
  const scored = all.slice(0, 200).map((s, i) => {
    const ts = [...new Set(terms(s))];
    const score = ts.reduce((acc, t) => acc + Math.log(1 + (tf.get(t) ?? 0)), 0) / Math.sqrt(ts.length + 1);
    return { s, i, score: score - i * 0.01 };
  });
  const picked = scored
    .sort((a, b) => b.score - a.score)
    .slice(0, maxSentences)
    .sort((a, b) => a.i - b.i);
  let out = '';
  for (const p of picked) {
    if (out && out.length + p.s.length + 1 > maxChars) break;
    out = out ? `${out} ${p.s}` : p.s;
  }
  return out.slice(0, maxChars);
}
