/**
 * `@af/expr` — one expression engine for every workflow dialect: reference
 * paths and interpolation, and conditions (playbook syntax, condition
 * objects, JSON-Logic and the Condition DSL) compiled to closures.
 * No `eval`, `Function` or `vm`; every failure is an {@link ExprError}.
 */
export { ExprError, type ExprErrorCode, type ExprErrorDetails } from './expr-error.js';
export {
  formatPath,
  MAX_REFERENCE_LENGTH,
  MAX_REFERENCE_SEGMENTS,
  parsePath,
  resolvePath,
  type ParsedPath,
  type PathSegment,
} from './path.js';
export {
  conditionLimits,
  configureConditionLimits,
  DEFAULT_CONDITION_LIMITS,
  type ConditionLimits,
} from './condition/budget.js';
export { collectReferences, extractReferences, type LocatedReference, type Reference } from './reference.js';
export { isBuiltin, isRunVariable, RUN_VARIABLES, type Scope } from './scope.js';
export {
  compileTemplate,
  interpolate,
  stringifyValue,
  type CompiledTemplate,
  type InterpolateOptions,
} from './interpolate.js';
export type { JsonLogic, LogicOperator } from './condition/json-logic.types.js';
export { DEFAULT_ALIAS, LOGIC_OPERATORS } from './condition/json-logic.types.js';
export {
  collectLogicVariables,
  compileCondition,
  evaluateJsonLogic,
  normalizeCondition,
  type CompileConditionOptions,
  type CompiledCondition,
  type ConditionDialect,
  type NormalizedCondition,
} from './condition/compile-condition.js';
export {
  dslToJsonLogic,
  facetPathAlias,
  jsonLogicToDsl,
  parseDsl,
  type DslOptions,
  type DslResult,
  type PathAlias,
} from './condition/dsl.js';
export { parseConditionText, type ConditionWarning } from './condition/parser.js';
export { CONDITION_OBJECT_OPERATORS, objectConditionToJsonLogic } from './condition/object-condition.js';
export {
  compareValues,
  contains,
  exists,
  isEmpty,
  isIn,
  looseEquals,
  strictEquals,
  truthy,
} from './condition/values.js';
