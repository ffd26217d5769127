/**
 * Weighted reciprocal rank fusion (Cormack et al. 2009): each list adds
 * weight / (k + rank) for every item it ranks. Scores of different scales
 * (cosine, BM25) never need calibrating against each other, which is why it
 * is the default; the weights say how far each retriever is trusted (equal
 * weights are plain RRF).
 */

export interface Ranked {
  id: string;
}

export interface Fused {
  id: string;
  score: number;
  /** 1-based rank in each list, absent where the list did not return the item. */
  ranks: Array<number | undefined>;
}

export function reciprocalRankFusion(lists: Ranked[][], k = 60, weights: readonly number[] = []): Fused[] {
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
      f.score += (weights[li] ?? 1) / (k + i + 1);
    });
  });
  return [...by.values()].filter((f) => f.score > 0).sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
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
