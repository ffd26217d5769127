/**
 * Condition objects of the workflow seed (§4 ConditionalEvaluator) →
 * JSON-Logic:
 *   - `{ field, operator, value }` with every operator of the seed plus the
 *     playbook transform spellings (`eq`, `gt`, …);
 *   - `{ and: [...] }`, `{ or: [...] }`, `{ not: {...} }` nesting;
 *   - expression strings (`executeIf: "step3.result == true"`) wherever a
 *     condition is expected;
 *   - any JSON-Logic rule (validated when compiled).
 * `field` may be written bare (`step1.data.score`) or as a reference
 * (`{{step1.data.score}}`); a `value` that is exactly one reference is read
 * from the scope, any other value is a literal.
 */
import { ExprError } from '../expr-error.js';
import { formatPath, parsePath } from '../path.js';
import { extractReferences } from '../reference.js';
import { LOGIC_OPERATORS, type JsonLogic } from './json-logic.types.js';
import { parseConditionText } from './parser.js';

type Build = (field: JsonLogic, value: JsonLogic) => JsonLogic;

const cmp =
  (op: string): Build =>
  (f, v) => ({ [op]: [f, v] });
const negate =
  (b: Build): Build =>
  (f, v) => ({ '!': b(f, v) });

const BINARY: ReadonlyMap<string, Build> = new Map<string, Build>([
  ...['==', 'equals', 'eq'].map((k) => [k, cmp('==')] as const),
  ...['!=', 'not_equals', 'ne', 'neq'].map((k) => [k, cmp('!=')] as const),
  ...['>', 'greater_than', 'gt'].map((k) => [k, cmp('>')] as const),
  ...['>=', 'greater_than_or_equal', 'gte'].map((k) => [k, cmp('>=')] as const),
  ...['<', 'less_than', 'lt'].map((k) => [k, cmp('<')] as const),
  ...['<=', 'less_than_or_equal', 'lte'].map((k) => [k, cmp('<=')] as const),
  ['contains', cmp('contains')],
  ['not_contains', negate(cmp('contains'))],
  ['in', cmp('in')],
  ['not_in', negate(cmp('in'))],
]);

const UNARY: ReadonlyMap<string, (field: JsonLogic) => JsonLogic> = new Map<
  string,
  (field: JsonLogic) => JsonLogic
>([
  ['exists', (f: JsonLogic) => ({ exists: f })],
  ['not_exists', (f: JsonLogic) => ({ '!': { exists: f } })],
  ['is_empty', (f: JsonLogic) => ({ is_empty: f })],
  ['is_not_empty', (f: JsonLogic) => ({ '!': { is_empty: f } })],
]);

/** Every operator name a condition object accepts. */
export const CONDITION_OBJECT_OPERATORS: readonly string[] = [...BINARY.keys(), ...UNARY.keys()];

const JSON_LOGIC_OPS = new Set<string>(LOGIC_OPERATORS);
const SIMPLE_KEYS = new Set(['field', 'operator', 'value']);

function at(loc: string, key: string | number): string {
  return typeof key === 'number' ? `${loc}[${key}]` : loc ? `${loc}.${key}` : key;
}

function invalid(message: string, path: string): ExprError {
  return new ExprError('invalid_condition', `${path ? `${path}: ` : ''}${message}`, { path });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `step.x`, `{step.x}` or `{{ step.x }}` → canonical path text. */
function fieldPath(field: unknown, loc: string): string {
  if (typeof field !== 'string' || field.trim() === '')
    throw invalid('field must be a non-empty path string', loc);
  const text = field.trim();
  try {
    if (text.startsWith('{')) {
      const refs = extractReferences(text);
      const ref = refs[0];
      if (refs.length !== 1 || ref!.start !== 0 || ref!.end !== text.length) {
        throw invalid(`field '${field}' must be a single reference`, loc);
      }
      return formatPath(ref!.root, ref!.path);
    }
    const { root, path } = parsePath(text);
    return formatPath(root, path);
  } catch (e) {
    if (e instanceof ExprError && e.code !== 'invalid_condition') {
      throw new ExprError('invalid_condition', `${loc}: ${e.message}`, {
        path: loc,
        position: e.position,
        expected: e.expected,
      });
    }
    throw e;
  }
}

function needsQuoting(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.some(needsQuoting);
  return true;
}

/** A compared value: a whole reference reads the scope; anything else is a literal. */
function valueLogic(value: unknown, loc: string): JsonLogic {
  if (value === undefined) throw invalid('value is required for this operator', loc);
  if (typeof value === 'string' && value.startsWith('{')) {
    let refs;
    try {
      refs = extractReferences(value);
    } catch (e) {
      const err = e as ExprError;
      throw new ExprError('invalid_condition', `${loc}: ${err.message}`, {
        path: loc,
        position: err.position,
        expected: err.expected,
      });
    }
    const ref = refs[0];
    if (refs.length === 1 && ref!.start === 0 && ref!.end === value.length)
      return { var: formatPath(ref!.root, ref!.path) };
  }
  if (typeof value === 'number' && !Number.isFinite(value))
    throw invalid('value must be a finite number', loc);
  if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') {
    throw invalid(`value of type ${typeof value} is not JSON`, loc);
  }
  return needsQuoting(value) ? { literal: value as JsonLogic } : (value as JsonLogic);
}

function simpleCondition(cond: Record<string, unknown>, loc: string): JsonLogic {
  for (const key of Object.keys(cond)) {
    if (!SIMPLE_KEYS.has(key))
      throw invalid(`unknown key '${key}' (expected field, operator, value)`, at(loc, key));
  }
  const field: JsonLogic = { var: fieldPath(cond['field'], at(loc, 'field')) };
  const operator = cond['operator'];
  if (typeof operator !== 'string') throw invalid('operator must be a string', at(loc, 'operator'));
  const op = operator.trim().toLowerCase();
  const unary = UNARY.get(op);
  if (unary) return unary(field);
  const binary = BINARY.get(op);
  if (!binary) {
    throw new ExprError(
      'unknown_operator',
      `${at(loc, 'operator')}: unknown operator '${operator}' (expected one of ${CONDITION_OBJECT_OPERATORS.join(', ')})`,
      { path: at(loc, 'operator'), expected: CONDITION_OBJECT_OPERATORS.join(', ') },
    );
  }
  const value = valueLogic(cond['value'], at(loc, 'value'));
  if ((op === 'in' || op === 'not_in') && !Array.isArray(value) && !isRecord(value)) {
    throw invalid(`'${op}' needs an array value`, at(loc, 'value'));
  }
  return binary(field, value);
}

/**
 * Normalize a condition object (or expression string) into JSON-Logic.
 * Errors are `ExprError` with `path` naming the offending field, e.g.
 * `and[1].operator`.
 */
export function objectConditionToJsonLogic(cond: unknown, loc = ''): JsonLogic {
  if (typeof cond === 'string') {
    try {
      return parseConditionText(cond).logic;
    } catch (e) {
      const err = e as ExprError;
      if (!loc) throw err;
      throw new ExprError(err.code, `${loc}: ${err.message}`, {
        path: loc,
        position: err.position,
        expected: err.expected,
      });
    }
  }
  if (typeof cond === 'boolean') return cond;
  if (!isRecord(cond)) {
    throw invalid(
      `expected a condition object or expression string, got ${cond === null ? 'null' : Array.isArray(cond) ? 'array' : typeof cond}`,
      loc,
    );
  }
  if (Object.prototype.hasOwnProperty.call(cond, 'field')) return simpleCondition(cond, loc);
  const keys = Object.keys(cond);
  if (keys.length !== 1) {
    throw invalid(
      `a condition needs exactly one of field/operator/value, and, or, not; found ${keys.join(', ') || 'no keys'}`,
      loc,
    );
  }
  const key = keys[0]!;
  const arg = cond[key];
  if (key === 'and' || key === 'or') {
    if (!Array.isArray(arg)) throw invalid(`'${key}' must be an array of conditions`, at(loc, key));
    return { [key]: arg.map((c, i) => objectConditionToJsonLogic(c, at(at(loc, key), i))) };
  }
  if (key === 'not' || key === '!') {
    const inner = Array.isArray(arg) && arg.length === 1 ? arg[0] : arg;
    return { '!': objectConditionToJsonLogic(inner, at(loc, key)) };
  }
  if (JSON_LOGIC_OPS.has(key)) return cond as JsonLogic;
  throw new ExprError('unknown_operator', `${at(loc, key)}: unknown condition key '${key}'`, {
    path: at(loc, key),
  });
}
