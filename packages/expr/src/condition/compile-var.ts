/**
 * Compiling a JSON-Logic `var` into a getter. Variables read own properties
 * only; inside `some`/`all`/`none` the element scope is searched first (see
 * compile-logic.ts).
 */
import { ExprError } from '../expr-error.js';
import { MISSING, parsePath, walkPath, type PathSegment } from '../path.js';
import { isBuiltin, resolveInScope, type Scope } from '../scope.js';
import type { JsonLogic } from './json-logic.types.js';

/** Current element of an enclosing quantifier. */
export interface Frame {
  el: unknown;
  i: number;
  alias: string;
  up: Frame | null;
}

export type Getter = (s: Scope, f: Frame | null) => unknown;
export type Predicate = (s: Scope, f: Frame | null) => boolean;

/** A compiled node: its getter, and its value when it is a constant. */
export interface Compiled {
  get: Getter;
  /** Set when the node is a constant (a literal, or built only from literals). */
  constant?: { value: unknown };
}

const hasOwn = Object.prototype.hasOwnProperty;

/** An `invalid_condition` error located at a JSON-Logic path. */
export function invalid(message: string, path: string): ExprError {
  return new ExprError('invalid_condition', path ? `${message} at ${path}` : message, { path });
}

/** Short type name for messages: null, array, object, string, … */
export function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Split a `var` path: the reference grammar, or plain dot-splitting for anything else JSON-Logic allows. */
function varPath(text: string): { root: string; path: PathSegment[] } {
  try {
    return parsePath(text);
  } catch (e) {
    if (e instanceof ExprError && e.code === 'reference_too_long') throw e;
    const [root = '', ...rest] = text.split('.');
    return { root, path: rest.map((name) => ({ kind: 'prop', name }) as PathSegment) };
  }
}

/** The hot case `a.b.c`: plain own-property steps through objects, no projection. */
function propsGetter(root: string, path: PathSegment[], dflt: Getter): Getter {
  const names = path.map((p) => (p as { name: string }).name);
  return (s, f) => {
    const vars = s.vars;
    if (vars == null || !hasOwn.call(vars, root)) return dflt(s, f);
    let v: unknown = vars[root];
    for (let k = 0; k < names.length; k++) {
      if (v === null || typeof v !== 'object') {
        // Strings (`.length`, `.0`) and dead ends take the general walker.
        const w = walkPath(v, path, k);
        return w === MISSING ? dflt(s, f) : w;
      }
      const name = names[k]!;
      if (!hasOwn.call(v, name)) return dflt(s, f);
      v = (v as Record<string, unknown>)[name];
    }
    return v;
  };
}

/** Compile a `var` argument (path, optional default) into a getter. */
export function compileVar(
  arg: JsonLogic,
  loc: string,
  inQuantifier: boolean,
  sub: (n: JsonLogic, l: string) => Compiled,
): Compiled {
  let pathArg: JsonLogic = arg;
  let fallback: Getter | undefined;
  if (Array.isArray(arg)) {
    if (arg.length > 2) throw invalid('var takes a path and an optional default', loc);
    pathArg = arg.length === 0 ? '' : arg[0]!;
    if (arg.length === 2) fallback = sub(arg[1]!, `${loc}[1]`).get;
  }
  if (pathArg === null) pathArg = '';
  if (typeof pathArg === 'number') pathArg = String(pathArg);
  if (typeof pathArg !== 'string')
    throw invalid(`var path must be a string or number, got ${typeName(pathArg)}`, loc);
  const dflt: Getter = fallback ?? (() => undefined);

  if (pathArg === '') {
    return { get: (s, f) => (f ? f.el : s.vars) };
  }
  const { root, path } = varPath(pathArg);
  const builtin = isBuiltin(root);

  const fromRoot: Getter = builtin
    ? (s, f) => {
        const v = resolveInScope(s, root, path);
        return v === MISSING ? dflt(s, f) : v;
      }
    : path.length === 0
      ? (s, f) => {
          const vars = s.vars;
          return vars != null && hasOwn.call(vars, root) ? vars[root] : dflt(s, f);
        }
      : path.every((p) => p.kind === 'prop')
        ? propsGetter(root, path, dflt)
        : (s, f) => {
            const vars = s.vars;
            if (vars == null || !hasOwn.call(vars, root)) return dflt(s, f);
            const v = walkPath(vars[root], path);
            return v === MISSING ? dflt(s, f) : v;
          };
  if (!inQuantifier) return { get: fromRoot };

  return {
    get: (s, f) => {
      for (let fr = f; fr !== null; fr = fr.up) {
        const el = fr.el;
        let base: unknown = MISSING;
        if (root === fr.alias) base = el;
        else if (el !== null && typeof el === 'object' && hasOwn.call(el, root))
          base = (el as Record<string, unknown>)[root];
        if (base !== MISSING) {
          const v = path.length === 0 ? base : walkPath(base, path);
          return v === MISSING ? dflt(s, f) : v;
        }
      }
      return fromRoot(s, f);
    },
  };
}
