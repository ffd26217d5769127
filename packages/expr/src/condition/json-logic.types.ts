/**
 * The one representation every condition dialect compiles to: JSON-Logic
 * (https://jsonlogic.com) plus a few named extensions, all listed in
 * {@link LOGIC_OPERATORS}.
 */

/** A JSON-Logic rule or value. */
export type JsonLogic = null | boolean | number | string | JsonLogic[] | { [operator: string]: JsonLogic };

/**
 * Operators the evaluator understands. Standard JSON-Logic: `var`, `and`,
 * `or`, `!`, `!!`, `==`, `!=`, `===`, `!==`, `<`, `<=`, `>`, `>=` (the last
 * four also in the 3-argument "between" form), `in`, `some`, `all`, `none`.
 * Extensions: `exists` (not null/undefined), `is_empty`, `contains`,
 * `between` (`lo <= x < hi`), `literal` (a value taken verbatim), and an
 * optional third argument of `some`/`all`/`none` naming the element alias.
 */
export const LOGIC_OPERATORS = [
  'var',
  'and',
  'or',
  '!',
  '!!',
  '==',
  '!=',
  '===',
  '!==',
  '<',
  '<=',
  '>',
  '>=',
  'in',
  'some',
  'all',
  'none',
  'exists',
  'is_empty',
  'contains',
  'between',
  'literal',
] as const;

export type LogicOperator = (typeof LOGIC_OPERATORS)[number];

/** The default name of the current element inside `some`/`all`/`none`. */
export const DEFAULT_ALIAS = 'item';
