/**
 * A workflow's own `output_schema` (packages/plan workflow-output.ts), checked
 * when the run completes like an output contract: each field is read from its
 * `source` reference (a step output path) or from the final output under its
 * name, and the result is validated against the schema the field list
 * stands for (the JSON Schema form checks the whole final output).
 */
import { interpolate } from '@af/expr';
import { workflowOutputCheck } from '@af/plan';
import { checkOutput, type OutputValidationError } from './output-contract.js';

/** The violations of the plan's workflow output_schema (`metadata.output_schema`); [] when it has none or it holds. */
export function checkWorkflowOutput(metadata: Record<string, unknown> | undefined, output: Record<string, unknown>): OutputValidationError[] {
  const check = workflowOutputCheck(metadata?.output_schema);
  if (!check) return [];
  const value: Record<string, unknown> = { ...output };
  for (const [name, source] of Object.entries(check.sources)) {
    // A source that reads nothing leaves the field missing: `required` reports it.
    const v = interpolate(source, { vars: output }, { lenient: true });
    if (v === undefined) delete value[name];
    else value[name] = v;
  }
  return checkOutput({ schema: check.schema }, value);
}
