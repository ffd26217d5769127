/** String similarity measures of the scorer; all return a value in [0, 1]. */

/** Jaro similarity (transpositions counted over matched characters within the match window). */
export function jaro(a: string, b: string): number {
  if (a === b) return 1;
  const la = a.length;
  const lb = b.length;
  if (la === 0 || lb === 0) return 0;
  const window = Math.max(0, Math.floor(Math.max(la, lb) / 2) - 1);
  const matchedA = new Uint8Array(la);
  const matchedB = new Uint8Array(lb);
  let matches = 0;
  for (let i = 0; i < la; i++) {
    const lo = Math.max(0, i - window);
    const hi = Math.min(lb - 1, i + window);
    for (let j = lo; j <= hi; j++) {
      if (matchedB[j] || a.charCodeAt(i) !== b.charCodeAt(j)) continue;
      matchedA[i] = 1;
      matchedB[j] = 1;
      matches++;
      break;
    }
  }
  if (matches === 0) return 0;
  let t = 0;
  for (let i = 0, j = 0; i < la; i++) {
    if (!matchedA[i]) continue;
    while (!matchedB[j]) j++;
    if (a.charCodeAt(i) !== b.charCodeAt(j)) t++;
    j++;
  }
  return (matches / la + matches / lb + (matches - t / 2) / matches) / 3;
}

/** Jaro–Winkler with the usual prefix scale 0.1 over at most four shared leading characters. */
export function jaroWinkler(a: string, b: string): number {
  const j = jaro(a, b);
  let prefix = 0;
  while (prefix < 4 && prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  return j + prefix * 0.1 * (1 - j);
}

/**
 * Token-set similarity: tokens are paired greedily by Jaro–Winkler ≥ 0.9
 * (so one typo per word still pairs), score = 2·paired / (|A| + |B|).
 * Word order and duplicated words do not matter.
 */
export function tokenSet(a: readonly string[], b: readonly string[]): number {
  const A = [...new Set(a)];
  const B = [...new Set(b)];
  if (A.length === 0 && B.length === 0) return 1;
  if (A.length === 0 || B.length === 0) return 0;
  const used = new Uint8Array(B.length);
  let paired = 0;
  for (const x of A) {
    let best = -1;
    let bestScore = 0.9;
    for (let j = 0; j < B.length; j++) {
      if (used[j]) continue;
      const y = B[j]!;
      const s = x === y ? 1 : jaroWinkler(x, y);
      if (s >= bestScore) {
        bestScore = s;
        best = j;
        if (s === 1) break;
      }
    }
    if (best >= 0) {
      used[best] = 1;
      paired++;
    }
  }
  return (2 * paired) / (A.length + B.length);
}
