/** String similarity measures of the scorer; all return a value in [0, 1]. */

let matchedBuf = new Uint8Array(64);

/** Jaro similarity (transpositions counted over matched characters within the match window). */
export function jaro(a: string, b: string): number {
  if (a === b) return 1;
  const la = a.length;
  const lb = b.length;
  if (la === 0 || lb === 0) return 0;
  const window = Math.max(0, Math.floor(Math.max(la, lb) / 2) - 1);
  // Scratch flags reused across calls (the scorer calls this millions of times in a bulk load).
  if (matchedBuf.length < la + lb) matchedBuf = new Uint8Array(2 * (la + lb));
  const matchedA = matchedBuf.fill(0, 0, la + lb);
  const matchedB = matchedBuf.subarray(la, la + lb);
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
 * Whether the optimal-string-alignment distance (insertions, deletions,
 * substitutions, adjacent transpositions) between `a` and `b` is at most `k`.
 * Banded, with an early exit: cheap for the small k the scorer asks about.
 */
export function withinEdits(a: string, b: string, k: number): boolean {
  if (a === b) return true;
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > k) return false;
  if (k === 1) return withinOneEdit(a, b);
  if (rowBuf.length < 3 * (lb + 1)) rowBuf = new Int32Array(6 * (lb + 1));
  // Three rows of scratch reused across calls: i - 2, i - 1 and i.
  let prev2 = rowBuf.subarray(0, lb + 1).fill(0);
  let prev = rowBuf.subarray(lb + 1, 2 * (lb + 1));
  for (let j = 0; j <= lb; j++) prev[j] = j;
  let cur = rowBuf.subarray(2 * (lb + 1), 3 * (lb + 1)).fill(0);
  for (let i = 1; i <= la; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= lb; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (
        i > 1 &&
        j > 1 &&
        a.charCodeAt(i - 1) === b.charCodeAt(j - 2) &&
        a.charCodeAt(i - 2) === b.charCodeAt(j - 1)
      )
        v = Math.min(v, prev2[j - 2]! + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > k) return false;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[lb]! <= k;
}

let rowBuf = new Int32Array(96);

/**
 * Distance at most one, in one pass: one insertion or deletion (lengths one apart), or one
 * substitution or one adjacent transposition (equal lengths). The same answer as the banded table.
 */
function withinOneEdit(a: string, b: string): boolean {
  const la = a.length;
  const lb = b.length;
  if (la !== lb) {
    const [s, l] = la < lb ? [a, b] : [b, a];
    let i = 0;
    while (i < s.length && s.charCodeAt(i) === l.charCodeAt(i)) i++;
    for (let j = i; j < s.length; j++) if (s.charCodeAt(j) !== l.charCodeAt(j + 1)) return false;
    return true;
  }
  let i = 0;
  while (i < la && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === la) return true;
  // One substitution at i, or a transposition of i and i + 1; the rest equal.
  let rest = i + 1;
  if (
    i + 1 < la &&
    a.charCodeAt(i) === b.charCodeAt(i + 1) &&
    a.charCodeAt(i + 1) === b.charCodeAt(i) &&
    a.charCodeAt(i) !== a.charCodeAt(i + 1)
  )
    rest = i + 2;
  for (let j = rest; j < la; j++) if (a.charCodeAt(j) !== b.charCodeAt(j)) return false;
  return true;
}

/** Two words are one word with a typo: Jaro–Winkler ≥ 0.9, or one edit apart when both have four letters or more. */
export function sameWord(x: string, y: string): boolean {
  if (x === y) return true;
  if (x.length >= 4 && y.length >= 4 && withinEdits(x, y, 1)) return true;
  return jaroWinkler(x, y) >= 0.9;
}

/**
 * Token-set similarity: tokens are paired greedily, exact first, then by
 * `sameWord` (so one typo per word still pairs), score = 2·paired / (|A| + |B|).
 * Word order and duplicated words do not matter.
 */
export function tokenSet(a: readonly string[], b: readonly string[]): number {
  const A = [...new Set(a)];
  const B = [...new Set(b)];
  if (A.length === 0 && B.length === 0) return 1;
  if (A.length === 0 || B.length === 0) return 0;
  const used = new Uint8Array(B.length);
  let paired = 0;
  const open: string[] = [];
  for (const x of A) {
    const j = B.indexOf(x);
    if (j >= 0) {
      used[j] = 1;
      paired++;
    } else open.push(x);
  }
  for (const x of open) {
    for (let j = 0; j < B.length; j++) {
      if (used[j] || !sameWord(x, B[j]!)) continue;
      used[j] = 1;
      paired++;
      break;
    }
  }
  return (2 * paired) / (A.length + B.length);
}
