/**
 * "Did you mean …?" support: the nearest candidate by edit distance, used for
 * every `suggestedFix` that names an existing step, field, action or input.
 */

/** Levenshtein distance with an early exit once `max` is exceeded (returns max + 1). */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = new Array<number>(b.length + 1);
  let cur = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = cur[0];
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/**
 * The candidate closest to `name`, or undefined when nothing is plausibly what
 * was meant. "Plausible" = distance at most max(2, a third of the length), so a
 * short name is not "corrected" into an unrelated one; a case-insensitive match
 * always wins.
 */
export function nearestName(name: string, candidates: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  const limit = Math.max(2, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    if (candidate === name) return candidate;
    if (candidate.toLowerCase() === lower) return candidate;
    const d = editDistance(lower, candidate.toLowerCase(), bestDistance);
    // Prefix matches (`pull` for `pull_990_data`) are likely typos of truncation.
    const c = candidate.toLowerCase();
    const prefix = Math.min(c.length, lower.length) >= 3 && (c.startsWith(lower) || lower.startsWith(c));
    const effective = prefix ? Math.min(d, limit) : d;
    if (effective < bestDistance || (effective === bestDistance && best !== undefined && candidate < best)) {
      best = candidate;
      bestDistance = effective;
    }
  }
  return bestDistance <= limit ? best : undefined;
}
