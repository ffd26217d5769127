/**
 * Issue shapes shared by every compiler and validator in this package.
 *
 * `PlanIssue` is document-level (its `field` is a path from the document root,
 * e.g. `steps[1].inputs.query`); `StepIssue` lives inside a
 * `StepValidationResult` and its `field` is relative to the step
 * (`inputs.query`), exactly as the seed's `StepValidationError.field`.
 */

/** A problem found while compiling or validating a workflow document or plan. */
export interface PlanIssue {
  /** Machine-readable reason: `invalid_yaml`, `invalid_field`, `nonexistent_step`, `cycle`, … */
  code: string;
  /** Human-readable message naming what is wrong and why. */
  message: string;
  /** Path in the source document (`steps[1].inputs.query`) or plan (`nodes[3].dependsOn[0]`). */
  field: string;
  /** The step / node the issue is about, when there is one. */
  step?: string;
  /**
   * The corrected value of `field` — a whole value a client can set the field
   * to (`{filings.results}`, not the bare `filings`; `approval` for a
   * misspelt enum value); for `unknown_field`, the key that was meant.
   */
  suggestedFix?: string;
  /** 1-based position in the source text, when the document was text (YAML). */
  line?: number;
  column?: number;
}

/** One error or warning of a step (seed §5 "Step Linking Validation"). */
export interface StepIssue {
  /**
   * errors: `unresolved_reference`, `type_mismatch`, `missing_required`, `nonexistent_step`
   * (plus `invalid_condition`, `unknown_input`, `unknown_param` for problems the seed's four do not name);
   * warnings: `loose_type_coercion`, `unused_output`, `long_chain`.
   */
  code: string;
  /** Relative to the step: `inputs.data`, `connector`, `condition`, … */
  field: string;
  message: string;
  /** The corrected value of `field` (a client may set the field to it as it is). */
  suggestedFix?: string;
  /** 1-based position of the field in the YAML text. */
  line?: number;
  column?: number;
}

/** Validation result of one step, in document order. */
export interface StepValidationResult {
  /** The step's name (node id). */
  step: string;
  /** Where the step sits in the document, e.g. `steps[2]` or `steps[2].parallel_steps[0]`. */
  source: string;
  valid: boolean;
  errors: StepIssue[];
  warnings: StepIssue[];
}

/** The seed's wire shape (`StepValidationResult` of §5), for REST responses. */
export interface SeedStepValidationResult {
  step_name: string;
  is_valid: boolean;
  errors: Array<{ field: string; error_type: string; message: string; suggested_fix: string | null }>;
  warnings: Array<{ field: string; warning_type: string; message: string }>;
}

/** Converts a result to the seed's snake_case shape (`step_name`, `is_valid`, `error_type`, …). */
export function toSeedValidationResult(result: StepValidationResult): SeedStepValidationResult {
  return {
    step_name: result.step,
    is_valid: result.valid,
    errors: result.errors.map((e) => ({
      field: e.field,
      error_type: e.code,
      message: e.message,
      suggested_fix: e.suggestedFix ?? null,
    })),
    warnings: result.warnings.map((w) => ({ field: w.field, warning_type: w.code, message: w.message })),
  };
}

/** Lifts a step issue to a document-level issue (`steps[2]` + `inputs.q` → `steps[2].inputs.q`). */
export function stepIssueToPlanIssue(result: Pick<StepValidationResult, 'step' | 'source'>, issue: StepIssue): PlanIssue {
  const out: PlanIssue = {
    code: issue.code,
    message: issue.message,
    field: issue.field ? `${result.source}.${issue.field}` : result.source,
    step: result.step,
  };
  if (issue.suggestedFix !== undefined) out.suggestedFix = issue.suggestedFix;
  if (issue.line !== undefined) out.line = issue.line;
  if (issue.column !== undefined) out.column = issue.column;
  return out;
}
