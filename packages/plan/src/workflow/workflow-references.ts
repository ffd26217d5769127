/**
 * References in workflow_steps (`{{step1.data[*].from}}`, `executeIf:
 * "step3.result == true"`, `{field: "step2.data.priority", …}`).
 *
 * In the seed a step's output is a StepOutput envelope whose payload is
 * `.data`, while the IR stores a node's output directly; so `stepX.data…`
 * is rewritten to `stepX…` here. A conditional's output is `{result}`
 * (`step3.result`), which needs no rewrite.
 */
import { extractReferences, formatPath, normalizeCondition, parsePath, type JsonLogic, type PathSegment } from '@af/expr';

/** Drops a leading `.data` after a step root. */
export function stripData(root: string, path: readonly PathSegment[], stepIds: ReadonlySet<string>): PathSegment[] {
  const first = path[0];
  if (stepIds.has(root) && first?.kind === 'prop' && first.name === 'data') return path.slice(1);
  return [...path];
}

/** Rewrites every `{{stepX.data…}}` / `{stepX.data…}` in a JSON-like value. Malformed references are left for the validator. */
export function rewriteDataRefs<T>(value: T, stepIds: ReadonlySet<string>): T {
  if (typeof value === 'string') {
    if (!value.includes('{')) return value;
    let refs;
    try {
      refs = extractReferences(value);
    } catch {
      return value;
    }
    let out: string = value;
    for (let k = refs.length - 1; k >= 0; k--) {
      const r = refs[k]!;
      const path = stripData(r.root, r.path, stepIds);
      if (path.length === r.path.length) continue;
      const text = formatPath(r.root, path);
      out = out.slice(0, r.start) + (r.form === 'double' ? `{{${text}}}` : `{${text}}`) + out.slice(r.end);
    }
    return out as T;
  }
  if (Array.isArray(value)) return value.map((v) => rewriteDataRefs(v, stepIds)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = rewriteDataRefs(v, stepIds);
    return out as T;
  }
  return value;
}

function rewriteVarPath(text: string, stepIds: ReadonlySet<string>): string {
  try {
    const { root, path } = parsePath(text);
    const stripped = stripData(root, path, stepIds);
    return stripped.length === path.length ? text : formatPath(root, stripped);
  } catch {
    return text;
  }
}

/** Rewrites the `var` paths of a JSON-Logic rule. */
export function rewriteLogic(logic: JsonLogic, stepIds: ReadonlySet<string>): JsonLogic {
  if (logic === null || typeof logic !== 'object') return logic;
  if (Array.isArray(logic)) return logic.map((l) => rewriteLogic(l, stepIds));
  const out: Record<string, JsonLogic> = {};
  for (const [op, arg] of Object.entries(logic)) {
    if (op === 'var') {
      if (typeof arg === 'string') out[op] = rewriteVarPath(arg, stepIds);
      else if (Array.isArray(arg) && typeof arg[0] === 'string') out[op] = [rewriteVarPath(arg[0], stepIds), ...arg.slice(1).map((a) => rewriteLogic(a, stepIds))];
      else out[op] = arg;
    } else if (op === 'literal') {
      out[op] = arg;
    } else {
      out[op] = rewriteLogic(arg, stepIds);
    }
  }
  return out as JsonLogic;
}

/** A workflow condition (object, expression string or JSON-Logic) as JSON-Logic with rewritten paths, plus the roots it reads. */
export function workflowCondition(source: string | Record<string, unknown>, stepIds: ReadonlySet<string>): { logic: JsonLogic; roots: string[] } {
  const normalized = normalizeCondition(source, { dialect: 'object' });
  const roots = new Set<string>();
  for (const v of normalized.variables) {
    try {
      roots.add(parsePath(v).root);
    } catch {
      roots.add(v.split(/[.[]/)[0]!);
    }
  }
  return { logic: rewriteLogic(normalized.logic, stepIds), roots: [...roots] };
}
