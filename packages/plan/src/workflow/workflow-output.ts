/**
 * A workflow's own `output_schema` (the agent row's, beside its
 * `workflow_steps`): what the finished run must produce. Two forms:
 *
 * - the seed's field list `[{name, type?, source?, description?, required?}]`:
 *   field `name` is read from the step output at `source` (`step3.data.items`,
 *   as in the seed; `.data` is dropped like in every workflow reference), or,
 *   without a source, from the run's output under that key. A field is
 *   required unless `required: false`; `type` is a JSON Schema type or `any`.
 * - a JSON Schema object, which the run's final output (outputs by key) must
 *   satisfy as a whole.
 *
 * The compiler keeps it on the plan (`metadata.output_schema`); the
 * orchestrator checks it when the run completes, as it checks an output
 * contract.
 */
import { z } from 'zod';
import { rewriteDataRefs } from './workflow-references.js';

const FIELD_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null', 'any'] as const;

export const WorkflowOutputFieldSchema = z.looseObject({
  name: z.string().min(1, 'must name the output field'),
  type: z.enum(FIELD_TYPES).optional(),
  source: z.string().min(1).optional(),
  description: z.string().optional(),
  required: z.boolean().optional(),
});

export const WorkflowOutputSchema = z.union([
  z.array(WorkflowOutputFieldSchema),
  z.record(z.string(), z.unknown()).refine((s) => !Array.isArray(s), 'must be a list of output fields or a JSON Schema object'),
]);
export type WorkflowOutput = z.infer<typeof WorkflowOutputSchema>;

/** What the orchestrator checks: the JSON Schema, and per field the reference its value is read from (fields without one read the output key). */
export interface WorkflowOutputCheck {
  schema: Record<string, unknown>;
  /** field name → `{stepX.path}` reference; empty for the JSON Schema form (the whole final output is checked). */
  sources: Record<string, string>;
}

/** The check a stored `metadata.output_schema` stands for; null when there is none or it is not one of the two forms. */
export function workflowOutputCheck(value: unknown): WorkflowOutputCheck | null {
  if (value === undefined || value === null) return null;
  const parsed = WorkflowOutputSchema.safeParse(value);
  if (!parsed.success) return null;
  const out = parsed.data;
  if (!Array.isArray(out)) return { schema: out, sources: {} };
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const sources: Record<string, string> = {};
  for (const f of out) {
    properties[f.name] = f.type && f.type !== 'any' ? { type: f.type } : {};
    if (f.required !== false) required.push(f.name);
    if (f.source) sources[f.name] = f.source.includes('{') ? f.source : `{${f.source}}`;
  }
  return { schema: { type: 'object', properties, required }, sources };
}

/** The output_schema as stored on the plan: sources rewritten like every workflow reference (`stepX.data…` → `stepX…`). */
export function storedWorkflowOutput(value: WorkflowOutput, stepIds: ReadonlySet<string>): WorkflowOutput {
  if (!Array.isArray(value)) return value;
  return value.map((f) => {
    if (!f.source) return f;
    const braced = f.source.includes('{') ? f.source : `{${f.source}}`;
    return { ...f, source: rewriteDataRefs(braced, stepIds) };
  });
}
