/**
 * A total, deterministic order over JSON values, and a canonical key for
 * equality, used by sort, min/max, deduplicate and group-by.
 *
 * Why not `compareValues` of `@af/expr`: conditions may answer "not
 * comparable", a sort may not. Order of kinds: booleans (false < true) <
 * numbers and numeric strings (compared as numbers, so "10" > "9" > 2) <
 * other strings (by UTF-16 code units, locale-independent, so ISO dates order
 * correctly) < arrays (element by element) < objects (by canonical key).
 * `null`, missing and NaN are "no value": callers put them last.
 *
 * Equality for dedupe and grouping is strict on kind (`1` and `"1"` differ),
 * structural for arrays and objects (key order ignored), and treats missing as
 * `null`.
 */

/** Kind ranks; NONE (null, missing, NaN) sorts after everything. */
const BOOL = 0;
const NUM = 1;
const STR = 2;
const ARR = 3;
const OBJ = 4;
export const NONE = 5;

/** A value prepared once for repeated comparison. */
export interface SortKey {
  readonly rank: number;
  readonly num: number;
  readonly str: string;
  readonly raw: unknown;
}

/** Number of a numeric string, the same rule `@af/expr` uses (`Number(s)` unless blank). */
export function numericString(s: string): number {
  return s.trim() === '' ? NaN : Number(s);
}

/** Finite number for sum/avg: numbers and numeric strings; anything else is not a number. */
export function toFiniteNumber(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? numericString(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** Prepares `v` for {@link compareSortKeys}. */
export function sortKey(v: unknown): SortKey {
  if (v === null || v === undefined) return { rank: NONE, num: 0, str: '', raw: v };
  switch (typeof v) {
    case 'boolean':
      return { rank: BOOL, num: v ? 1 : 0, str: '', raw: v };
    case 'number':
      return Number.isNaN(v)
        ? { rank: NONE, num: 0, str: '', raw: v }
        : { rank: NUM, num: v, str: '', raw: v };
    case 'string': {
      const n = numericString(v);
      return Number.isNaN(n) ? { rank: STR, num: 0, str: v, raw: v } : { rank: NUM, num: n, str: '', raw: v };
    }
    case 'object':
      if (v instanceof Date) {
        const t = v.getTime();
        return Number.isNaN(t)
          ? { rank: NONE, num: 0, str: '', raw: v }
          : { rank: NUM, num: t, str: '', raw: v };
      }
      return Array.isArray(v)
        ? { rank: ARR, num: 0, str: '', raw: v }
        : { rank: OBJ, num: 0, str: canonicalKey(v), raw: v };
    default:
      // bigint, symbol, function: not JSON; order them among strings by their text.
      return { rank: STR, num: 0, str: String(v), raw: v };
  }
}

/** Ascending comparison of two prepared keys; NONE is greater than everything. */
export function compareSortKeys(a: SortKey, b: SortKey): number {
  if (a.rank !== b.rank) return a.rank - b.rank;
  switch (a.rank) {
    case BOOL:
    case NUM:
      return a.num === b.num ? 0 : a.num < b.num ? -1 : 1;
    case STR:
    case OBJ:
      return a.str === b.str ? 0 : a.str < b.str ? -1 : 1;
    case ARR:
      return compareArrays(a.raw as unknown[], b.raw as unknown[]);
    default:
      return 0;
  }
}

/** Ascending comparison of two raw values in the total order. */
export function compareTotal(a: unknown, b: unknown): number {
  return compareSortKeys(sortKey(a), sortKey(b));
}

function compareArrays(a: readonly unknown[], b: readonly unknown[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareTotal(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/**
 * A string equal for exactly the values that are equal for dedupe/grouping.
 * Every part is self-delimiting (JSON-quoted strings, bracketed containers),
 * so keys of different values never collide.
 */
export function canonicalKey(v: unknown): string {
  if (v === null || v === undefined) return 'n';
  switch (typeof v) {
    case 'boolean':
      return v ? 't' : 'f';
    case 'number':
      // -0 and 0 are the same value here, as in JSON.
      return `d${v === 0 ? 0 : v}`;
    case 'string':
      return `s${JSON.stringify(v)}`;
    case 'object': {
      if (v instanceof Date) return `D${v.getTime()}`;
      if (Array.isArray(v)) return `[${v.map(canonicalKey).join(',')}]`;
      const rec = v as Record<string, unknown>;
      const keys = Object.keys(rec)
        .filter((k) => rec[k] !== undefined)
        .sort();
      return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalKey(rec[k])}`).join(',')}}`;
    }
    default:
      return `x${JSON.stringify(String(v))}`;
  }
}
