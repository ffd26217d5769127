/**
 * Dot paths into JSON responses (`data.search.edges`, `node.owner.login`,
 * `results[0].name`, `results.0.name`) and the field-path notation used in
 * error reports (`endpoints.search.parameters[0].name`).
 */

export type PathSegment = string | number;

const SEGMENT = /^([^.[\]\s]+)((?:\[\d+\])*)$/;

/**
 * Splits a dot path into segments. `[n]` after a key is an array index; a
 * purely numeric segment is used as an index on arrays and as a key on
 * objects. Returns `undefined` when the path is malformed (empty segments,
 * whitespace, unbalanced brackets). The array is the caller's to keep.
 */
export function parseDotPath(path: string): PathSegment[] | undefined {
  const segments = compileDotPath(path);
  return segments ? [...segments] : undefined;
}

/** Parsed paths by text (`null`: malformed). Mappings use the same few paths on every record of every call. */
const COMPILED = new Map<string, readonly PathSegment[] | null>();
/** Beyond this many distinct paths the cache starts over (paths come from definitions, so this is rarely reached). */
export const MAX_COMPILED_DOT_PATHS = 4096;

/**
 * `parseDotPath` for the hot path: the same frozen segment array for the
 * same text, parsed once per process (bounded cache).
 */
export function compileDotPath(path: string): readonly PathSegment[] | undefined {
  let segments = COMPILED.get(path);
  if (segments === undefined) {
    const parsed = splitDotPath(path);
    segments = parsed ? Object.freeze(parsed) : null;
    if (COMPILED.size >= MAX_COMPILED_DOT_PATHS) COMPILED.clear();
    COMPILED.set(path, segments);
  }
  return segments ?? undefined;
}

function splitDotPath(path: string): PathSegment[] | undefined {
  if (path.length === 0) return undefined;
  const segments: PathSegment[] = [];
  for (const part of path.split('.')) {
    const m = SEGMENT.exec(part);
    if (!m) return undefined;
    segments.push(m[1] as string);
    for (const idx of m[2]?.match(/\d+/g) ?? []) segments.push(Number(idx));
  }
  return segments;
}

const DIGITS = /^\d+$/;

/**
 * Reads a value at `path`; `undefined` when any step is missing. Only own
 * properties are followed, so `__proto__` or `constructor` never reach
 * prototype objects.
 */
export function getByDotPath(root: unknown, path: string | readonly PathSegment[]): unknown {
  const segments = typeof path === 'string' ? compileDotPath(path) : path;
  if (!segments) return undefined;
  let current: unknown = root;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i] as PathSegment;
    if (current === null || typeof current !== 'object') return undefined;
    if (Array.isArray(current)) {
      const index = typeof seg === 'number' ? seg : DIGITS.test(seg) ? Number(seg) : NaN;
      if (!Number.isInteger(index) || index >= current.length) return undefined;
      current = current[index];
    } else {
      const key = typeof seg === 'string' ? seg : String(seg);
      if (!Object.hasOwn(current, key)) return undefined;
      current = (current as Record<string, unknown>)[key];
    }
  }
  return current;
}

/** `['endpoints', 'search', 'parameters', 0, 'name']` → `endpoints.search.parameters[0].name`. */
export function formatFieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out.length === 0 ? String(seg) : `.${String(seg)}`;
  }
  return out;
}
