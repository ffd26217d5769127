/**
 * One entry point for every condition dialect: normalize to JSON-Logic, then
 * compile once into a closure `(scope) => boolean`.
 *
 * Variables missing from the scope read as `undefined` in conditions (so
 * `{x} is defined` and `{step.count} > 0` on a skipped step are simply false);
 * only malformed conditions throw, at compile time, plus `some`/`all`/`none`
 * over a non-array at evaluation time (`invalid_condition`).
 */
import { ExprError } from '../expr-error.js';
import { formatPath, parsePath } from '../path.js';
import type { Scope } from '../scope.js';
import { compileLogicPredicate, compileLogicValue, type LogicLimits } from './compile-logic.js';
import { parseDsl, type PathAlias } from './dsl.js';
import { DEFAULT_ALIAS, type JsonLogic } from './json-logic.types.js';
import { objectConditionToJsonLogic } from './object-condition.js';
import { parseConditionText, type ConditionWarning } from './parser.js';

/**
 * - `playbook`: condition text (`{a.count} > 0 AND {b} is defined`, also `executeIf` strings); default for strings.
 * - `object`: `{field, operator, value}` / and / or / not objects, expression strings, JSON-Logic; default for objects.
 * - `jsonlogic`: JSON-Logic only (strings are string literals).
 * - `dsl`: Condition DSL text with path aliases (facets.* → metadata.runContextSnapshot.facets.*.value.*).
 */
export type ConditionDialect = 'playbook' | 'object' | 'jsonlogic' | 'dsl';

export interface CompileConditionOptions extends LogicLimits {
  dialect?: ConditionDialect;
  /** Path aliases for the `dsl` dialect (default: the facet alias). */
  aliases?: readonly PathAlias[];
}

/** A condition in its one representation. */
export interface NormalizedCondition {
  /** The JSON-Logic the condition compiles to. */
  logic: JsonLogic;
  /** Root variable paths it reads (canonical text, first-use order). */
  variables: string[];
  warnings: ConditionWarning[];
}

/** A compiled condition: call it with a scope. */
export interface CompiledCondition {
  (scope: Scope): boolean;
  /** The JSON-Logic it was compiled from. */
  readonly ast: JsonLogic;
  readonly variables: string[];
  readonly warnings: ConditionWarning[];
}

/** Root-scope variable paths read by a JSON-Logic rule (element-relative ones inside quantifiers excluded). */
export function collectLogicVariables(logic: JsonLogic): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const aliases: string[] = [];
  const visit = (node: JsonLogic): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      node.forEach(visit);
      return;
    }
    for (const op of Object.keys(node)) {
      const arg = node[op]!;
      if (op === 'literal') continue;
      if (op === 'var') {
        const p = Array.isArray(arg) ? arg[0] : arg;
        if (typeof p === 'string' || typeof p === 'number') addVar(String(p));
        if (Array.isArray(arg) && arg.length > 1) visit(arg[1]!);
        continue;
      }
      if ((op === 'some' || op === 'all' || op === 'none') && Array.isArray(arg)) {
        visit(arg[0]!);
        aliases.push(typeof arg[2] === 'string' ? arg[2] : DEFAULT_ALIAS);
        visit(arg[1]!);
        aliases.pop();
        continue;
      }
      visit(arg);
    }
  };
  const addVar = (text: string): void => {
    if (text === '') return;
    let canonical: string;
    let root: string;
    try {
      const parsed = parsePath(text);
      canonical = formatPath(parsed.root, parsed.path);
      root = parsed.root;
    } catch {
      canonical = text;
      root = text.split('.')[0]!;
    }
    if (aliases.includes(root) || seen.has(canonical)) return;
    seen.add(canonical);
    out.push(canonical);
  };
  visit(logic);
  return out;
}

/** Normalize any dialect to JSON-Logic without compiling it. Throws `ExprError`. */
export function normalizeCondition(source: unknown, opts: CompileConditionOptions = {}): NormalizedCondition {
  const dialect = opts.dialect ?? (typeof source === 'string' ? 'playbook' : 'object');
  if (dialect === 'dsl' || dialect === 'playbook') {
    if (typeof source !== 'string') {
      throw new ExprError(
        'invalid_condition',
        `A ${dialect} condition must be a string, got ${source === null ? 'null' : typeof source}`,
      );
    }
    const depth = opts.maxQuantifierDepth !== undefined ? { maxQuantifierDepth: opts.maxQuantifierDepth } : {};
    if (dialect === 'dsl') {
      const r = parseDsl(source, { ...(opts.aliases ? { aliases: opts.aliases } : {}), ...depth });
      return { logic: r.jsonLogic, variables: r.variables, warnings: r.warnings };
    }
    const r = parseConditionText(source, depth);
    return { logic: r.logic, variables: r.variables, warnings: r.warnings };
  }
  const logic = dialect === 'object' ? objectConditionToJsonLogic(source) : asJsonLogic(source);
  return { logic, variables: collectLogicVariables(logic), warnings: [] };
}

function asJsonLogic(v: unknown, depth = 0): JsonLogic {
  if (depth > 512) throw new ExprError('invalid_condition', 'JSON-Logic nests too deeply');
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v))
      throw new ExprError('invalid_condition', `JSON-Logic numbers must be finite, got ${v}`);
    return v;
  }
  if (Array.isArray(v)) {
    v.forEach((x) => asJsonLogic(x, depth + 1));
    return v as JsonLogic;
  }
  if (typeof v === 'object') {
    Object.values(v as object).forEach((x) => asJsonLogic(x, depth + 1));
    return v as JsonLogic;
  }
  throw new ExprError('invalid_condition', `JSON-Logic cannot contain a ${typeof v}`);
}

/**
 * Compile a condition in any dialect into a closure (compile once, evaluate
 * many). Throws `ExprError` for malformed input, with `position`/`expected`
 * for text and `path` for objects, and `quantifier_depth_exceeded` for
 * quantifiers nested past the limit. Each call of the closure has a step
 * budget and throws `condition_budget_exceeded` past it (see budget.ts).
 */
export function compileCondition(source: unknown, opts: CompileConditionOptions = {}): CompiledCondition {
  const normalized = normalizeCondition(source, opts);
  const limits: LogicLimits = {};
  if (opts.maxQuantifierDepth !== undefined) limits.maxQuantifierDepth = opts.maxQuantifierDepth;
  if (opts.maxSteps !== undefined) limits.maxSteps = opts.maxSteps;
  // compileLogicPredicate returns a fresh closure: it carries the metadata itself (no extra call per evaluation).
  const fn = compileLogicPredicate(normalized.logic, limits);
  return Object.assign(fn, {
    ast: normalized.logic,
    variables: normalized.variables,
    warnings: normalized.warnings,
  });
}

/**
 * Evaluate JSON-Logic against `data` (the root of `var` paths) and return
 * the raw result (logical operators yield booleans).
 */
export function evaluateJsonLogic(logic: unknown, data: unknown, scope: Omit<Scope, 'vars'> = {}): unknown {
  return compileLogicValue(asJsonLogic(logic))({ ...scope, vars: data as Record<string, unknown> });
}
