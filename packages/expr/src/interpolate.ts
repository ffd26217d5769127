/**
 * Resolving references inside strings and JSON-like values.
 *
 * A string that is exactly one reference (`"{a.b}"`, `"{{ a.b }}"`) resolves
 * to the referenced value with its type intact; references embedded in text
 * are stringified (strings as-is, `null`/`undefined` as `''`, Dates as ISO,
 * objects and arrays as JSON). Templates are parsed once and cached.
 */
import { ExprError } from './expr-error.js';
import { MISSING, formatPath } from './path.js';
import { extractReferences, isPlainObject, type Reference } from './reference.js';
import { resolveInScope, resolveRoot, type Scope } from './scope.js';

/** Options of {@link interpolate}. */
export interface InterpolateOptions {
  /** Unresolved references become `undefined` (whole value) or `''` (embedded) instead of throwing. */
  lenient?: boolean;
}

/** A template parsed once; call it with a scope to render. */
export type CompiledTemplate = ((scope: Scope, opts?: InterpolateOptions) => unknown) & {
  readonly references: readonly Reference[];
};

/** Turn a resolved value into text for embedding in a string. */
export function stringifyValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? '' : v.toISOString();
  return JSON.stringify(v) ?? '';
}

/** Explain which part of a reference is missing, e.g. "'pull' has no 'count'". */
function unresolved(ref: Reference, scope: Scope): ExprError {
  let detail = `'${ref.root}' is not defined`;
  if (resolveRoot(scope, ref.root) !== MISSING) {
    for (let k = ref.path.length - 1; k >= 0; k--) {
      if (resolveInScope(scope, ref.root, ref.path.slice(0, k)) !== MISSING) {
        const at = formatPath(ref.root, ref.path.slice(0, k));
        const next = formatPath('_', ref.path.slice(k, k + 1)).slice(1);
        detail = `'${at}' has no '${next.replace(/^\./, '')}'`;
        break;
      }
    }
  }
  return new ExprError('unresolved_reference', `Unresolved reference '{${ref.raw}}': ${detail}`, {
    reference: ref.raw,
    position: ref.start,
  });
}

function lookup(ref: Reference, scope: Scope): unknown {
  return resolveInScope(scope, ref.root, ref.path);
}

/** Parse `template` once into a renderer. Throws `ExprError` on malformed references. */
export function compileTemplate(template: string): CompiledTemplate {
  const refs = extractReferences(template);
  let fn: (scope: Scope, opts?: InterpolateOptions) => unknown;
  if (refs.length === 0) {
    fn = () => template;
  } else if (refs.length === 1 && refs[0]!.start === 0 && refs[0]!.end === template.length) {
    const ref = refs[0]!;
    fn = (scope, opts) => {
      const v = lookup(ref, scope);
      if (v !== MISSING) return v;
      if (opts?.lenient) return undefined;
      throw unresolved(ref, scope);
    };
  } else {
    const literals: string[] = [];
    let at = 0;
    for (const r of refs) {
      literals.push(template.slice(at, r.start));
      at = r.end;
    }
    literals.push(template.slice(at));
    fn = (scope, opts) => {
      let out = literals[0]!;
      for (let k = 0; k < refs.length; k++) {
        const ref = refs[k]!;
        const v = lookup(ref, scope);
        if (v === MISSING) {
          if (!opts?.lenient) throw unresolved(ref, scope);
        } else {
          out += stringifyValue(v);
        }
        out += literals[k + 1]!;
      }
      return out;
    };
  }
  return Object.assign(fn, { references: refs as readonly Reference[] });
}

const CACHE_LIMIT = 2_000;
const cache = new Map<string, CompiledTemplate>();

function cachedTemplate(template: string): CompiledTemplate {
  let t = cache.get(template);
  if (!t) {
    t = compileTemplate(template);
    // A bounded cache: drop everything when full rather than track recency.
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(template, t);
  }
  return t;
}

/**
 * Resolve every reference in `value` (strings, arrays and plain objects are
 * walked; keys are left alone; other values are returned as they are).
 * Throws `ExprError('unresolved_reference')` naming the reference unless
 * `opts.lenient`. Errors inside structures carry the location in `path`.
 */
export function interpolate(value: unknown, scope: Scope, opts?: InterpolateOptions): unknown {
  return interpolateAt(value, scope, opts, '');
}

function interpolateAt(
  value: unknown,
  scope: Scope,
  opts: InterpolateOptions | undefined,
  loc: string,
): unknown {
  if (typeof value === 'string') {
    if (value.indexOf('{') < 0) return value;
    try {
      return cachedTemplate(value)(scope, opts);
    } catch (e) {
      if (e instanceof ExprError && loc && e.path === undefined) {
        throw new ExprError(e.code, `${loc}: ${e.message}`, {
          position: e.position,
          expected: e.expected,
          reference: e.reference,
          path: loc,
        });
      }
      throw e;
    }
  }
  if (Array.isArray(value)) {
    return value.map((item, idx) => interpolateAt(item, scope, opts, `${loc}[${idx}]`));
  }
  if (isPlainObject(value)) {
    // fromEntries defines own data properties, so a "__proto__" key stays a key.
    return Object.fromEntries(
      Object.keys(value).map((k) => [k, interpolateAt(value[k], scope, opts, loc ? `${loc}.${k}` : k)]),
    );
  }
  return value;
}
