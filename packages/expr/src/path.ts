/**
 * Reference paths: `root.prop[0][*].name`, their parser, printer and the
 * own-property-only resolver shared by interpolation and conditions.
 *
 * Grammar (whitespace is not allowed inside a path):
 *   path    := head segment*
 *   head    := name | quoted
 *   segment := '.' name | '.' '*' | '[' int ']' | '[' '*' ']' | '[' quoted ']'
 *   name    := [A-Za-z0-9_$-]+
 *   int     := '-'? [0-9]+          (negative counts from the end of an array)
 *   quoted  := "..." | '...'        (JSON-style escapes)
 */
import { charge } from './condition/budget.js';
import { ExprError } from './expr-error.js';

/** One step of a path after the root. */
export type PathSegment =
  { kind: 'prop'; name: string } | { kind: 'index'; index: number } | { kind: 'wildcard' };

/** A parsed path: the root name and the segments after it. */
export interface ParsedPath {
  root: string;
  path: PathSegment[];
}

/** Marker for "nothing there"; never leaks out of the package. */
export const MISSING: unique symbol = Symbol('missing');
export type Missing = typeof MISSING;

const hasOwn = Object.prototype.hasOwnProperty;

/** Longest reference text accepted (characters, braces excluded). */
export const MAX_REFERENCE_LENGTH = 1024;
/** Most segments (`.name`, `[0]`, `[*]`, …) after the root of one reference. */
export const MAX_REFERENCE_SEGMENTS = 64;

/** `text` cut to `max` characters for messages, with the full length when cut. */
export function clip(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

function tooLong(text: string, offset: number, reason: string): ExprError {
  const head = text.length <= 60 ? text : `${text.slice(0, 60)}…`;
  return new ExprError('reference_too_long', `Reference '${head}' is too long: ${reason}`, {
    position: offset,
    expected: 'a shorter reference',
    reference: head,
  });
}

const NAME_RE = /^[A-Za-z0-9_$-]+$/;

/** True when `c` may appear in an unquoted name. */
export function isNameChar(c: string | undefined): boolean {
  if (c === undefined) return false;
  const code = c.charCodeAt(0);
  return (
    (code >= 48 && code <= 57) || // 0-9
    (code >= 65 && code <= 90) || // A-Z
    (code >= 97 && code <= 122) || // a-z
    c === '_' ||
    c === '$' ||
    c === '-'
  );
}

/**
 * Parse `text` as a path. Throws `ExprError('invalid_reference')` with the
 * offending position (relative to `text` plus `offset`) and what was expected.
 */
export function parsePath(text: string, offset = 0): ParsedPath {
  // Checked first: every later step (messages, suggestions, resolution) grows with the length.
  if (text.length > MAX_REFERENCE_LENGTH) {
    throw tooLong(text, offset, `${text.length} characters; the limit is ${MAX_REFERENCE_LENGTH}`);
  }
  let i = 0;
  const fail = (expected: string): never => {
    const found = i < text.length ? `'${text[i]}'` : 'end of path';
    throw new ExprError(
      'invalid_reference',
      `Invalid reference '${clip(text)}': expected ${expected} at ${offset + i}, found ${found}`,
      {
        position: offset + i,
        expected,
        reference: clip(text),
      },
    );
  };
  const readName = (): string => {
    const start = i;
    while (i < text.length && isNameChar(text[i])) i++;
    if (i === start) fail('a name');
    return text.slice(start, i);
  };
  const readQuoted = (): string => {
    const quote = text[i]!;
    const start = i;
    i++;
    let out = '';
    while (i < text.length && text[i] !== quote) {
      if (text[i] === '\\') {
        const esc = text[i + 1];
        if (esc === undefined) fail('an escaped character');
        if (esc === 'u') {
          const hex = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
            i += 2;
            fail('four hex digits');
          }
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
          continue;
        }
        out +=
          esc === 'n'
            ? '\n'
            : esc === 't'
              ? '\t'
              : esc === 'r'
                ? '\r'
                : esc === 'b'
                  ? '\b'
                  : esc === 'f'
                    ? '\f'
                    : esc;
        i += 2;
      } else {
        out += text[i];
        i++;
      }
    }
    if (i >= text.length) {
      i = start;
      fail(`a closing ${quote}`);
    }
    i++;
    return out;
  };

  let root: string;
  if (text[i] === '[' && (text[i + 1] === '"' || text[i + 1] === "'")) {
    i++;
    root = readQuoted();
    if (text[i] !== ']') fail("']'");
    i++;
  } else {
    root = readName();
  }
  const path: PathSegment[] = [];
  while (i < text.length) {
    if (path.length >= MAX_REFERENCE_SEGMENTS) {
      throw tooLong(text, offset, `more than ${MAX_REFERENCE_SEGMENTS} segments after '${clip(root, 40)}'`);
    }
    const c = text[i];
    if (c === '.') {
      i++;
      if (text[i] === '*') {
        i++;
        path.push({ kind: 'wildcard' });
      } else {
        path.push({ kind: 'prop', name: readName() });
      }
    } else if (c === '[') {
      i++;
      const d = text[i];
      if (d === '*') {
        i++;
        path.push({ kind: 'wildcard' });
      } else if (d === '"' || d === "'") {
        path.push({ kind: 'prop', name: readQuoted() });
      } else {
        const start = i;
        if (text[i] === '-') i++;
        const digitsStart = i;
        while (i < text.length && text[i]! >= '0' && text[i]! <= '9') i++;
        if (i === digitsStart) {
          i = start;
          fail("an index, '*' or a quoted key");
        }
        path.push({ kind: 'index', index: Number(text.slice(start, i)) });
      }
      if (text[i] !== ']') fail("']'");
      i++;
    } else {
      fail("'.', '[' or end of path");
    }
  }
  return { root, path };
}

/** Print a root and segments back to the canonical path text. */
export function formatPath(root: string, path: readonly PathSegment[]): string {
  let out = NAME_RE.test(root) ? root : `[${JSON.stringify(root)}]`;
  for (const seg of path) {
    if (seg.kind === 'prop') out += NAME_RE.test(seg.name) ? `.${seg.name}` : `[${JSON.stringify(seg.name)}]`;
    else if (seg.kind === 'index') out += `[${seg.index}]`;
    else out += '[*]';
  }
  return out;
}

/**
 * Walk `path` from `value`, reading own properties only (so `__proto__`,
 * `constructor` and `prototype` never reach a prototype). Returns `MISSING`
 * when a step does not exist. `[*]` projects the rest of the path over an
 * array's elements (or an object's own values), skipping elements where the
 * rest is missing and flattening nested projections.
 */
export function walkPath(value: unknown, path: readonly PathSegment[], from = 0): unknown {
  let cur: unknown = value;
  for (let k = from; k < path.length; k++) {
    const seg = path[k]!;
    if (cur === null || cur === undefined) return MISSING;
    const t = typeof cur;
    if (t !== 'object' && t !== 'string') return MISSING;
    if (seg.kind === 'prop') {
      if (!hasOwn.call(cur, seg.name)) return MISSING;
      cur = (cur as Record<string, unknown>)[seg.name];
    } else if (seg.kind === 'index') {
      if (Array.isArray(cur) || t === 'string') {
        const arr = cur as ArrayLike<unknown>;
        const idx = seg.index < 0 ? arr.length + seg.index : seg.index;
        if (idx < 0 || idx >= arr.length) return MISSING;
        cur = arr[idx];
      } else {
        const key = String(seg.index);
        if (seg.index < 0 || !hasOwn.call(cur, key)) return MISSING;
        cur = (cur as Record<string, unknown>)[key];
      }
    } else {
      if (t !== 'object') return MISSING;
      const items = Array.isArray(cur) ? cur : Object.values(cur as object);
      // A projection inside a condition costs one step per element (no-op outside an evaluation).
      charge(items.length);
      const nested = hasWildcard(path, k + 1);
      const out: unknown[] = [];
      for (const item of items) {
        const v = walkPath(item, path, k + 1);
        if (v === MISSING) continue;
        if (nested && Array.isArray(v)) out.push(...v);
        else out.push(v);
      }
      return out;
    }
  }
  return cur;
}

function hasWildcard(path: readonly PathSegment[], from: number): boolean {
  for (let k = from; k < path.length; k++) if (path[k]!.kind === 'wildcard') return true;
  return false;
}

/**
 * Resolve `path` against `root` (own properties only; `[*]` projects over
 * arrays). `found` is false when any step is missing.
 */
export function resolvePath(root: unknown, path: PathSegment[]): { found: boolean; value: unknown } {
  const v = walkPath(root, path);
  return v === MISSING ? { found: false, value: undefined } : { found: true, value: v };
}
