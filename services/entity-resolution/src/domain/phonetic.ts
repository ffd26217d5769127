/**
 * American Soundex (letter + three digits). Chosen over Metaphone for its
 * stability under the single-letter typos the blocker must survive; the
 * scorer uses it only as one agreement level among several.
 */
const CODES: Record<string, string> = {
  b: '1',
  f: '1',
  p: '1',
  v: '1',
  c: '2',
  g: '2',
  j: '2',
  k: '2',
  q: '2',
  s: '2',
  x: '2',
  z: '2',
  d: '3',
  t: '3',
  l: '4',
  m: '5',
  n: '5',
  r: '6',
};

export function soundex(word: string): string {
  const w = word.toLowerCase().replace(/[^a-z]/g, '');
  if (!w) return '';
  let out = w.charAt(0).toUpperCase();
  let prev = CODES[w.charAt(0)] ?? '';
  for (let i = 1; i < w.length && out.length < 4; i++) {
    const ch = w.charAt(i);
    const code = CODES[ch] ?? '';
    // h and w do not separate equal codes; vowels do.
    if (ch === 'h' || ch === 'w') continue;
    if (code && code !== prev) out += code;
    prev = code;
  }
  return out.padEnd(4, '0');
}
