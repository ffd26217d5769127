/**
 * Field paths of `transform_data` operations: `name`, `address.city`,
 * `tags[0]`, `authors[*].name`, `["odd key"].x` — the reference grammar of
 * `@af/expr` with the record itself as the root. Reading goes through
 * `resolvePath`, which reads own properties only, so `__proto__`,
 * `constructor` or `toString` never reach a prototype. Paths that write
 * (aggregate group keys, output names) are plain names and may not be one of
 * the names that would reach a prototype when assigned.
 */
import { ExprError, parsePath, resolvePath, type PathSegment } from '@af/expr';
import { TransformError } from './transform-error.js';

/** A parsed read path; `segments` start with the top-level field. */
export interface FieldPath {
  readonly text: string;
  readonly segments: PathSegment[];
}

/** A parsed write path: plain property names, outermost first. */
export interface WritePath {
  readonly text: string;
  readonly read: FieldPath;
  readonly names: readonly string[];
}

/** Names that would touch a prototype when assigned. */
const RESERVED_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Parses `raw` as a field path; `at` names the param for errors. */
export function parseFieldPath(raw: unknown, at: string): FieldPath {
  if (typeof raw !== 'string' || raw.length === 0) {
    throw new TransformError(at, 'must be a non-empty field path such as "name" or "address.city"');
  }
  try {
    const { root, path } = parsePath(raw);
    return { text: raw, segments: [{ kind: 'prop', name: root }, ...path] };
  } catch (err) {
    if (err instanceof ExprError) throw new TransformError(at, `invalid field path: ${err.message}`);
    throw err;
  }
}

/** Parses a path the executor writes to: dot-separated plain names, none reserved. */
export function parseWritePath(raw: unknown, at: string): WritePath {
  const read = parseFieldPath(raw, at);
  const names: string[] = [];
  for (const seg of read.segments) {
    if (seg.kind !== 'prop') {
      throw new TransformError(
        at,
        `'${read.text}' is written to the output, so it must be names joined by dots (no [index] or [*])`,
      );
    }
    checkOutputName(seg.name, at);
    names.push(seg.name);
  }
  return { text: read.text, read, names };
}

/** Rejects empty output names and names that would reach a prototype. */
export function checkOutputName(name: unknown, at: string): asserts name is string {
  if (typeof name !== 'string' || name.length === 0)
    throw new TransformError(at, 'an output name must be a non-empty string');
  if (RESERVED_NAMES.has(name)) throw new TransformError(at, `'${name}' cannot be used as an output name`);
}

/**
 * The value at `path` in `row` (`undefined` when missing); the row itself
 * when no path is given, so operations also work on arrays of scalars.
 */
export function readField(row: unknown, path: FieldPath | undefined): unknown {
  if (path === undefined) return row;
  const { found, value } = resolvePath(row, path.segments);
  return found ? value : undefined;
}

/** Sets `names` in `target`, creating plain objects on the way (callers check paths do not collide). */
export function writeField(target: Record<string, unknown>, names: readonly string[], value: unknown): void {
  let cur = target;
  for (let k = 0; k < names.length - 1; k++) {
    const name = names[k]!;
    if (!Object.prototype.hasOwnProperty.call(cur, name)) cur[name] = {};
    cur = cur[name] as Record<string, unknown>;
  }
  cur[names[names.length - 1]!] = value;
}

/** True when one write path equals or contains the other (`a` vs `a.b`), which would overwrite data. */
export function writePathsCollide(a: readonly string[], b: readonly string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let k = 0; k < n; k++) if (a[k] !== b[k]) return false;
  return true;
}
