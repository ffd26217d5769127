/**
 * The answer of POST /api/agent-factory/playbooks/validate:
 * `{valid, errors, warnings, results}`. Every error and warning carries
 * `field`, `reason`, `code`, and where known `step`, `line`, `column` and
 * `suggestedFix` (the corrected value of the field) — the shape of a 400's
 * `violations`, so a client handles both alike.
 */
import type { common, planner } from '@af/contracts';
import type { z } from 'zod';
import type { PlaybookValidation } from './responses/playbooks.js';

export interface IssueView {
  field: string;
  reason: string;
  code: string;
  step?: string;
  line?: number;
  column?: number;
  suggestedFix?: string;
}

interface Positioned {
  line?: number;
  column?: number;
  suggestedFix?: string;
}

function positioned<T extends Positioned>(out: T, i: { line: number; column: number; suggestedFix: string }): T {
  if (i.line > 0) out.line = i.line;
  if (i.column > 0) out.column = i.column;
  if (i.suggestedFix) out.suggestedFix = i.suggestedFix;
  return out;
}

function issueView(i: planner.PlaybookIssue): IssueView {
  return positioned<IssueView>({ field: i.field, reason: i.message, code: i.code, ...(i.step ? { step: i.step } : {}) }, i);
}

function stepIssueView(i: planner.StepIssue) {
  return positioned<Positioned & { field: string; code: string; message: string }>({ field: i.field, code: i.code, message: i.message }, i);
}

export function playbookValidationView(res: planner.CompilePlaybookResponse): z.infer<typeof PlaybookValidation> {
  return {
    valid: res.valid,
    errors: res.errors.map(issueView),
    warnings: res.warnings.map(issueView),
    results: res.results.map((r) => ({ step: r.step, valid: r.valid, errors: r.errors.map(stepIssueView), warnings: r.warnings.map(stepIssueView) })),
  };
}

/** A refusal before validation proper (no YAML, too large): its violations as errors. */
export function refusedValidationView(violations: readonly common.FieldViolation[] | readonly IssueView[]) {
  return { valid: false, errors: violations, warnings: [], results: [] };
}
