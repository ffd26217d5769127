/**
 * Compile JSON-Logic (see json-logic.types.ts) into plain closures once, so
 * evaluation is a chain of function calls with no parsing, lookups by
 * operator name or allocation on the hot path.
 *
 * Inside `some`/`all`/`none` the predicate runs in the element's scope: a
 * variable whose root is the alias (default `item`) or `""` is the element;
 * otherwise an own property of the element wins, then enclosing elements,
 * then the root scope.
 */
import { ExprError } from '../expr-error.js';
import type { Scope } from '../scope.js';
import {
  compileVar,
  typeName,
  invalid,
  type Compiled,
  type Frame,
  type Getter,
  type Predicate,
} from './compile-var.js';
import { charge, conditionLimits, withBudget } from './budget.js';
import { DEFAULT_ALIAS, type JsonLogic } from './json-logic.types.js';
import { compareValues, contains, isEmpty, isIn, looseEquals, strictEquals, truthy } from './values.js';

export type { Frame, Getter, Predicate };

const MAX_DEPTH = 512;
/**
 * Operators that may scan an array (`in`, `contains`, equality of arrays or
 * objects, `[*]` projections) a condition may hold and still run without a
 * budget when it has no quantifier: its cost is then at most this many passes
 * over the data it reads, which the input and output size caps bound.
 */
export const UNBUDGETED_SCANS = 16;
const UNARY = new Set(['!', '!!', 'exists', 'is_empty']);

/** Limits a compilation applies (defaults: {@link conditionLimits}). */
export interface LogicLimits {
  /** `some`/`all`/`none` allowed inside one another's predicate. */
  maxQuantifierDepth?: number;
  /** Steps per evaluation; `Infinity` compiles without counting. */
  maxSteps?: number;
}

/** Compiles a tree; `quantifiers` counts the enclosing quantifier predicates. */
class LogicCompiler {
  private depth = 0;
  private quantifiers = 0;
  /** Whether the tree has a quantifier, and how many operators that may scan an array: see {@link needsBudget}. */
  private sawQuantifier = false;
  private scans = 0;

  /** Only a condition whose cost can multiply needs a budget (a quantifier, or many array scans). */
  get needsBudget(): boolean {
    return this.sawQuantifier || this.scans > UNBUDGETED_SCANS;
  }

  constructor(
    private readonly maxQuantifierDepth: number,
    private readonly counting: boolean,
  ) {}

  value(node: JsonLogic, loc: string): Compiled {
    if (node === null || typeof node !== 'object') return { get: () => node, constant: { value: node } };
    if (++this.depth > MAX_DEPTH) throw invalid(`condition nests deeper than ${MAX_DEPTH} levels`, loc);
    try {
      if (Array.isArray(node)) return this.array(node, loc);
      const keys = Object.keys(node);
      if (keys.length !== 1) {
        throw invalid(
          `a JSON-Logic rule must have exactly one operator, found ${keys.length ? keys.join(', ') : 'none'}`,
          loc,
        );
      }
      const op = keys[0]!;
      const args = node[op]!;
      if (op === 'literal') return { get: () => args, constant: { value: args } };
      if (op === 'var') {
        // A `[*]` projection walks an array.
        if (JSON.stringify(args).includes('*')) this.scans++;
        return compileVar(args, `${loc ? `${loc}.` : ''}var`, this.quantifiers > 0, (n, l) =>
          this.value(n, l),
        );
      }
      const pred = this.operator(op, args, loc ? `${loc}.${op}` : op);
      return { get: pred };
    } finally {
      this.depth--;
    }
  }

  bool(node: JsonLogic, loc: string): Predicate {
    const c = this.value(node, loc);
    if (c.constant) {
      const b = truthy(c.constant.value);
      return () => b;
    }
    if (isOperatorNode(node)) return c.get as Predicate;
    const get = c.get;
    return (s, f) => truthy(get(s, f));
  }

  private array(items: JsonLogic[], loc: string): Compiled {
    const parts = items.map((item, k) => this.value(item, `${loc}[${k}]`));
    if (parts.every((p) => p.constant)) {
      const value = parts.map((p) => p.constant!.value);
      return { get: () => value, constant: { value } };
    }
    const getters = parts.map((p) => p.get);
    return { get: (s, f) => getters.map((g) => g(s, f)) };
  }

  private args(op: string, raw: JsonLogic, loc: string, min: number, max: number): JsonLogic[] {
    const list = Array.isArray(raw) ? raw : [raw];
    if (list.length < min || list.length > max) {
      const want = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
      throw invalid(`'${op}' takes ${want} argument(s), got ${list.length}`, loc);
    }
    return list;
  }

  private operator(op: string, raw: JsonLogic, loc: string): Predicate {
    if (UNARY.has(op)) {
      const [arg] = this.args(op, raw, loc, 1, 1);
      if (op === '!') {
        const b = this.bool(arg!, `${loc}[0]`);
        return (s, f) => !b(s, f);
      }
      if (op === '!!') return this.bool(arg!, `${loc}[0]`);
      const g = this.value(arg!, `${loc}[0]`).get;
      if (op === 'exists') {
        return (s, f) => {
          const v = g(s, f);
          return v !== undefined && v !== null;
        };
      }
      return (s, f) => isEmpty(g(s, f));
    }
    switch (op) {
      case 'and':
      case 'or':
        return this.logical(op, this.args(op, raw, loc, 0, Infinity), loc);
      case '==':
      case '!=':
      case '===':
      case '!==': {
        this.scans++;
        const [a, b] = this.args(op, raw, loc, 2, 2).map((n, k) => this.value(n, `${loc}[${k}]`).get) as [
          Getter,
          Getter,
        ];
        const eq = op.length === 3 ? strictEquals : looseEquals;
        return op[0] === '=' ? (s, f) => eq(a(s, f), b(s, f)) : (s, f) => !eq(a(s, f), b(s, f));
      }
      case '<':
      case '<=':
      case '>':
      case '>=':
        return this.ordering(op, this.args(op, raw, loc, 2, op[0] === '<' ? 3 : 2), loc);
      case 'in':
      case 'contains': {
        this.scans++;
        const [a, b] = this.args(op, raw, loc, 2, 2).map((n, k) => this.value(n, `${loc}[${k}]`).get) as [
          Getter,
          Getter,
        ];
        return op === 'in' ? (s, f) => isIn(a(s, f), b(s, f)) : (s, f) => contains(a(s, f), b(s, f));
      }
      case 'between': {
        const [x, lo, hi] = this.args(op, raw, loc, 3, 3).map(
          (n, k) => this.value(n, `${loc}[${k}]`).get,
        ) as [Getter, Getter, Getter];
        return (s, f) => {
          const v = x(s, f);
          return compareValues(lo(s, f), v) <= 0 && compareValues(v, hi(s, f)) < 0;
        };
      }
      case 'some':
      case 'all':
      case 'none':
        return this.quantifier(op, this.args(op, raw, loc, 2, 3), loc);
      default:
        throw new ExprError('unknown_operator', `Unknown operator '${op}' at ${loc}`, { path: loc });
    }
  }

  private logical(op: 'and' | 'or', items: JsonLogic[], loc: string): Predicate {
    const preds = items.map((n, k) => this.bool(n, `${loc}[${k}]`));
    if (preds.length === 0) return op === 'and' ? () => true : () => false;
    if (preds.length === 1) return preds[0]!;
    if (preds.length === 2) {
      const [a, b] = preds as [Predicate, Predicate];
      return op === 'and' ? (s, f) => a(s, f) && b(s, f) : (s, f) => a(s, f) || b(s, f);
    }
    return op === 'and'
      ? (s, f) => {
          for (const p of preds) if (!p(s, f)) return false;
          return true;
        }
      : (s, f) => {
          for (const p of preds) if (p(s, f)) return true;
          return false;
        };
  }

  private ordering(op: string, items: JsonLogic[], loc: string): Predicate {
    const test: (c: number) => boolean =
      op === '<' ? (c) => c < 0 : op === '<=' ? (c) => c <= 0 : op === '>' ? (c) => c > 0 : (c) => c >= 0;
    const parts = items.map((n, k) => this.value(n, `${loc}[${k}]`));
    if (parts.length === 3) {
      const [a, b, c] = parts.map((p) => p.get) as [Getter, Getter, Getter];
      return (s, f) => {
        const mid = b(s, f);
        return test(compareValues(a(s, f), mid)) && test(compareValues(mid, c(s, f)));
      };
    }
    const [left, right] = parts as [Compiled, Compiled];
    const a = left.get;
    // Fast path for the common `x > 0` shape: a number literal on the right.
    if (right.constant && typeof right.constant.value === 'number') {
      const k = right.constant.value;
      switch (op) {
        case '<':
          return (s, f) => {
            const v = a(s, f);
            return typeof v === 'number' ? v < k : compareValues(v, k) < 0;
          };
        case '<=':
          return (s, f) => {
            const v = a(s, f);
            return typeof v === 'number' ? v <= k : compareValues(v, k) <= 0;
          };
        case '>':
          return (s, f) => {
            const v = a(s, f);
            return typeof v === 'number' ? v > k : compareValues(v, k) > 0;
          };
        default:
          return (s, f) => {
            const v = a(s, f);
            return typeof v === 'number' ? v >= k : compareValues(v, k) >= 0;
          };
      }
    }
    const b = right.get;
    return (s, f) => test(compareValues(a(s, f), b(s, f)));
  }

  private quantifier(op: 'some' | 'all' | 'none', items: JsonLogic[], loc: string): Predicate {
    const aliasArg = items[2] ?? DEFAULT_ALIAS;
    if (typeof aliasArg !== 'string' || !/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(aliasArg)) {
      throw invalid(`'${op}' alias must be an identifier string`, `${loc}[2]`);
    }
    const alias = aliasArg;
    this.sawQuantifier = true;
    if (this.quantifiers >= this.maxQuantifierDepth) {
      const where = loc ? ` at ${loc}` : '';
      throw new ExprError(
        'quantifier_depth_exceeded',
        `${op}()${where} nests quantifiers (some/all/none) ${this.quantifiers + 1} deep; at most ${this.maxQuantifierDepth} may nest`,
        { path: loc },
      );
    }
    const collection = this.value(items[0]!, `${loc}[0]`).get;
    this.quantifiers++;
    let pred: Predicate;
    try {
      pred = this.bool(items[1]!, `${loc}[1]`);
    } finally {
      this.quantifiers--;
    }
    // An absent or empty collection is "no match": false for some/all, true for none.
    const onEmpty = op === 'none';
    const stopOn = op !== 'all'; // some/none stop at the first match, all at the first miss
    const counting = this.counting;
    return (s, f) => {
      const list = collection(s, f);
      if (list === undefined || list === null) return onEmpty;
      if (!Array.isArray(list)) {
        throw invalid(`'${op}' needs an array but the collection is ${typeName(list)}`, `${loc}[0]`);
      }
      if (list.length === 0) return onEmpty;
      const frame: Frame = { el: undefined, i: 0, alias, up: f };
      // One step per element visited, charged when the loop ends (nothing extra per element):
      // nested quantifiers multiply, and the inner loops' charges stop that within one outer element.
      for (let i = 0; i < list.length; i++) {
        frame.el = list[i];
        frame.i = i;
        if (pred(s, frame) === stopOn) {
          if (counting) charge(i + 1);
          return op === 'some';
        }
      }
      if (counting) charge(list.length);
      return op !== 'some';
    };
  }
}

function isOperatorNode(node: JsonLogic): boolean {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return false;
  const op = Object.keys(node)[0];
  return op !== undefined && op !== 'var' && op !== 'literal';
}

function compilerFor(opts: LogicLimits): { compiler: LogicCompiler; maxSteps: number } {
  const defaults = conditionLimits();
  const maxSteps = opts.maxSteps ?? defaults.maxSteps;
  return { compiler: new LogicCompiler(opts.maxQuantifierDepth ?? defaults.maxQuantifierDepth, maxSteps !== Infinity), maxSteps };
}

/**
 * Compile JSON-Logic into a predicate over a scope (truthiness of the
 * result). Each call of the predicate runs with its own step budget.
 */
export function compileLogicPredicate(logic: JsonLogic, opts: LogicLimits = {}): (scope: Scope) => boolean {
  const { compiler, maxSteps } = compilerFor(opts);
  const pred = compiler.bool(logic, '');
  return withBudget(compiler.needsBudget ? maxSteps : Infinity, (scope: Scope) => pred(scope, null));
}

/** Compile JSON-Logic into a value getter (for `evaluateJsonLogic`), with a step budget per call. */
export function compileLogicValue(logic: JsonLogic, opts: LogicLimits = {}): (scope: Scope) => unknown {
  const { compiler, maxSteps } = compilerFor(opts);
  const get = compiler.value(logic, '').get;
  return withBudget(compiler.needsBudget ? maxSteps : Infinity, (scope: Scope) => get(scope, null));
}
