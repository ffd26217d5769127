/**
 * Fusing the dense and lexical candidate lists. Pure functions: lists in,
 * one ranking out.
 *
 * - `reciprocalRankFusion` (Cormack et al. 2009): each list adds
 *   weight / (k + rank) for every item it ranks. Scores of different scales
 *   (cosine, BM25) never need calibrating against each other; the weights
 *   say how far each retriever is trusted (equal weights: plain RRF).
 * - `scoreFusion` (relative score fusion, "CombSUM" of min-max normalised
 *   scores): each list's scores are rescaled to [0, 1] over its own
 *   candidates (best 1, worst 0, a list of equal scores: all 1) and added
 *   with the list's weight; an item a list did not return gets 0 from it.
 *   Unlike ranks it keeps the gaps: a BM25 score far above the rest (an
 *   identifier matched) stays far above.
 */

export interface Ranked {
  id: string;
}

export interface Scored extends Ranked {
  score: number;
}

export interface Fused {
  id: string;
  score: number;
  /** 1-based rank in each list, absent where the list did not return the item. */
  ranks: Array<number | undefined>;
}

export type FusionMethod = 'rrf' | 'score';

export interface FusionSettings {
  method: FusionMethod;
  /** One weight per list (absent: 1). */
  weights: readonly number[];
  /** The RRF constant (default 60). */
  k?: number;
}

const byScore = (a: Fused, b: Fused) => b.score - a.score || a.id.localeCompare(b.id);

function collect(lists: Ranked[][], add: (f: Fused, li: number, i: number) => void): Fused[] {
  const by = new Map<string, Fused>();
  lists.forEach((list, li) => {
    list.forEach((item, i) => {
      let f = by.get(item.id);
      if (!f) {
        f = { id: item.id, score: 0, ranks: lists.map(() => undefined) };
        by.set(item.id, f);
      }
      if (f.ranks[li] !== undefined) return;
      f.ranks[li] = i + 1;
      add(f, li, i);
    });
  });
  return [...by.values()];
}

export function reciprocalRankFusion(lists: Ranked[][], k = 60, weights: readonly number[] = []): Fused[] {
  return collect(lists, (f, li, i) => {
    f.score += (weights[li] ?? 1) / (k + i + 1);
  })
    .filter((f) => f.score > 0)
    .sort(byScore);
}

export function scoreFusion(lists: Scored[][], weights: readonly number[] = []): Fused[] {
  const bounds = lists.map((l) => {
    let lo = Infinity;
    let hi = -Infinity;
    for (const x of l) {
      if (!Number.isFinite(x.score)) throw new Error(`score of ${x.id} is not a finite number`);
      lo = Math.min(lo, x.score);
      hi = Math.max(hi, x.score);
    }
    return { lo, span: hi - lo };
  });
  return collect(lists, (f, li, i) => {
    const { lo, span } = bounds[li]!;
    const norm = span > 0 ? (lists[li]![i]!.score - lo) / span : 1;
    f.score += (weights[li] ?? 1) * norm;
  })
    .filter((f) => f.ranks.some((r, li) => r !== undefined && (weights[li] ?? 1) > 0))
    .sort(byScore);
}

/** The fusion `s` names, over lists best first. */
export function fuse(lists: Scored[][], s: FusionSettings): Fused[] {
  if (s.weights.some((w) => !(w >= 0))) throw new Error(`fusion weights must be non-negative numbers, got ${s.weights.join(', ')}`);
  return s.method === 'score' ? scoreFusion(lists, s.weights) : reciprocalRankFusion(lists, s.k ?? 60, s.weights);
}

/**
 * Confidence of one hit in [0, 1]: its dense similarity, raised when the
 * lexical list agrees (both methods found it) and by how high it ranks there.
 */
export function hitConfidence(cosine: number | undefined, ranks: Array<number | undefined>): number {
  const dense = Math.max(0, Math.min(1, cosine ?? 0));
  const agree = ranks.filter((r) => r !== undefined).length / Math.max(1, ranks.length);
  const best = Math.min(...ranks.map((r) => r ?? Infinity));
  const rankBoost = Number.isFinite(best) ? 1 / Math.sqrt(best) : 0;
  return Math.round((0.45 * dense + 0.35 * agree + 0.2 * rankBoost) * 1000) / 1000;
}
