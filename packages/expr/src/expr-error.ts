/**
 * The one error type of `@af/expr`. Every parser, resolver and compiler in this
 * package throws only `ExprError`, so callers can map it to a field-level
 * validation message without guessing.
 */

/** Machine-readable reason of an {@link ExprError}. */
export type ExprErrorCode =
  /** Text could not be parsed (conditions, DSL); `position` and `expected` are set. */
  | 'syntax_error'
  /** A `{...}` / `{{...}}` reference whose path does not match the reference grammar. */
  | 'invalid_reference'
  /** `{{` without `}}`, or a `{name` run that reaches the end of the template. */
  | 'unbalanced_braces'
  /** A reference that names nothing in the scope (strict interpolation). */
  | 'unresolved_reference'
  /** A structurally invalid condition object / JSON-Logic, or a runtime misuse (`some` over a non-array). */
  | 'invalid_condition'
  /** An operator name no dialect knows. */
  | 'unknown_operator'
  /** An empty condition string. */
  | 'empty_expression'
  /** `some`/`all`/`none` nested deeper than the configured limit (compile time). */
  | 'quantifier_depth_exceeded'
  /** One evaluation took more steps than its budget (run time). */
  | 'condition_budget_exceeded'
  /** A reference longer than the length or segment limit. */
  | 'reference_too_long';

/** Optional details attached to an {@link ExprError}. */
export interface ExprErrorDetails {
  /** Zero-based character offset into the source text. */
  position?: number;
  /** What the parser expected at `position`, e.g. `"')'"` or `'an operand'`. */
  expected?: string;
  /** The reference text (without braces) the error is about. */
  reference?: string;
  /** Location inside a structured value, e.g. `and[1].operator` or `filters[0].v`. */
  path?: string;
}

/** Error thrown by every function of this package; never anything else. */
export class ExprError extends Error {
  readonly code: ExprErrorCode;
  readonly position?: number;
  readonly expected?: string;
  readonly reference?: string;
  readonly path?: string;

  constructor(code: ExprErrorCode, message: string, details: ExprErrorDetails = {}) {
    super(message);
    this.name = 'ExprError';
    this.code = code;
    if (details.position !== undefined) this.position = details.position;
    if (details.expected !== undefined) this.expected = details.expected;
    if (details.reference !== undefined) this.reference = details.reference;
    if (details.path !== undefined) this.path = details.path;
  }
}
