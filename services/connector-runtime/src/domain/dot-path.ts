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
 * whitespace, unbalanced brackets).
 */
export function parseDotPath(path: string): PathSegment[] | undefined {
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

/**
 * Reads a value at `path`; `undefined` when any step is missing. Only own
 * properties are followed, so `__proto__` or `constructor` never reach
 * prototype objects.
 */
export function getByDotPath(root: unknown, path: string | readonly PathSegment[]): unknown {
  const segments = typeof path === 'string' ? parseDotPath(path) : path;
  if (!segments) return undefined;
  let current: unknown = root;
  for (const seg of segments) {
    if (current === null || typeof current !== 'object') return undefined;
    if (Array.isArray(current)) {
      const index = typeof seg === 'number' ? seg : /^\d+$/.test(seg) ? Number(seg) : NaN;
      if (!Number.isInteger(index) || index >= current.length) return undefined;
      current = current[index];
    } else {
      const key = String(seg);
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
