/**
 * Value semantics shared by every condition dialect: truthiness, loose and
 * strict equality, ordering, membership. Deliberately narrower than
 * JavaScript's coercions so results are predictable:
 *   - `==` is JavaScript-like only where it helps workflows: a number equals
 *     its numeric string (`2 == "2"`), a boolean equals its text (`true ==
 *     "true"`) and 0/1, `null == undefined`; arrays/objects compare deeply.
 *   - ordering (`<` …) compares numbers, numeric strings against numbers,
 *     strings with strings (so ISO dates order correctly) and Dates; anything
 *     else (null, booleans, objects) is not comparable and yields false.
 */
import { charge } from './budget.js';

/** JSON-Logic truthiness: like JavaScript, except that an empty array is false. */
export function truthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  return Boolean(v);
}

function numericString(s: string): number {
  if (s.trim() === '') return NaN;
  return Number(s);
}

/** Deep structural equality; `loose` applies {@link looseEquals} to leaves. */
function deepEquals(a: object, b: object, loose: boolean): boolean {
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  const eq = loose ? looseEquals : strictEquals;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    charge(a.length);
    for (let i = 0; i < a.length; i++) if (!eq(a[i], b[i])) return false;
    return true;
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  charge(ka.length);
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!eq((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** `===` with deep comparison of arrays and objects. */
export function strictEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null)
    return deepEquals(a, b, false);
  return false;
}

/** The `==` of conditions (see the module comment). */
export function looseEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || a === undefined || b === null || b === undefined) {
    return (a === null || a === undefined) && (b === null || b === undefined);
  }
  const ta = typeof a;
  const tb = typeof b;
  if (ta === tb) return ta === 'object' ? deepEquals(a as object, b as object, true) : false;
  if (ta === 'number' && tb === 'string') return a === numericString(b as string);
  if (ta === 'string' && tb === 'number') return numericString(a as string) === b;
  if (ta === 'boolean' && tb === 'string') return String(a) === b;
  if (ta === 'string' && tb === 'boolean') return a === String(b);
  if (ta === 'boolean' && tb === 'number') return Number(a) === b;
  if (ta === 'number' && tb === 'boolean') return a === Number(b);
  return false;
}

/**
 * Order `a` against `b`: negative, zero or positive, or NaN when the two are
 * not comparable (every ordering operator is then false).
 */
export function compareValues(a: unknown, b: unknown): number {
  const ta = typeof a;
  const tb = typeof b;
  if (ta === 'number' && tb === 'number') return (a as number) - (b as number);
  if (ta === 'string' && tb === 'string') return a === b ? 0 : (a as string) < (b as string) ? -1 : 1;
  if (ta === 'number' && tb === 'string') return (a as number) - numericString(b as string);
  if (ta === 'string' && tb === 'number') return numericString(a as string) - (b as number);
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  return NaN;
}

/** `needle in haystack`: array membership (loose equality) or substring of a string. */
export function isIn(needle: unknown, haystack: unknown): boolean {
  if (Array.isArray(haystack)) {
    charge(haystack.length);
    for (const item of haystack) if (looseEquals(needle, item)) return true;
    return false;
  }
  if (typeof haystack === 'string' && (typeof needle === 'string' || typeof needle === 'number')) {
    return haystack.includes(String(needle));
  }
  return false;
}

/** `contains(haystack, needle)`: substring for strings and numbers, membership for arrays. */
export function contains(haystack: unknown, needle: unknown): boolean {
  if (Array.isArray(haystack)) return isIn(needle, haystack);
  if (typeof haystack === 'string' || typeof haystack === 'number') {
    if (needle === null || needle === undefined || typeof needle === 'object') return false;
    return String(haystack).includes(String(needle));
  }
  return false;
}

/** Defined means neither `undefined` nor `null`. */
export function exists(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/** Empty: undefined, null, `''`, `[]` or an object without own keys. `0` and `false` are not empty. */
export function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object' && !(v instanceof Date)) return Object.keys(v).length === 0;
  return false;
}
