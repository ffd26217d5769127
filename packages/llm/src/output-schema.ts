/**
 * The seed's llm_task `output_schema` (`{type: object|record_set|scalar,
 * fields: [{name, type, description}]}`) as JSON Schema — the same mapping
 * `@af/plan` applies when it compiles a playbook into `PlanNode.outputSchema`,
 * so a schema converted here and one read off a plan validate alike.
 */
import { stepOutputSchemaToJsonSchema } from '@af/plan';
import { z } from 'zod';

/** A JSON Schema document (draft 2020-12 / 07 subset that Ajv and the providers understand). */
export type JsonSchema = Record<string, unknown>;

export const OutputFieldSchema = z.object({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an identifier (letters, digits, _)'),
  /** `string | number | integer | date | boolean | object | any`, a record type (`record`, `entity`, …) or `T[]`. */
  type: z.string().min(1),
  description: z.string().optional(),
});

/** The seed §5 `output_schema` of an llm_task step. */
export const StepOutputSchemaSchema = z
  .object({
    type: z.enum(['object', 'record_set', 'scalar']).default('object'),
    fields: z.array(OutputFieldSchema).min(1, 'declare at least one field'),
  })
  .superRefine((s, ctx) => {
    // Same rule as @af/plan's step-link check.
    if (s.type === 'scalar' && s.fields.length !== 1) ctx.addIssue({ code: 'custom', path: ['fields'], message: 'a scalar output_schema declares exactly one field' });
  });
export type StepOutputSchema = z.input<typeof StepOutputSchemaSchema>;

/**
 * JSON Schema of a seed `output_schema`. `object` and `scalar` are an object
 * with the declared fields (a scalar is read as `{field}` downstream);
 * `record_set` is `{results: [record], count}`. Throws a ZodError naming the
 * field when the input is not a valid output_schema.
 */
export function outputSchemaToJsonSchema(outputSchema: StepOutputSchema): JsonSchema {
  // One mapping for the whole system: @af/plan's, which compiled the plan.
  return stepOutputSchemaToJsonSchema(StepOutputSchemaSchema.parse(outputSchema));
}

/** Whether a value is written in the seed's `{type, fields: [...]}` form rather than JSON Schema. */
export function isStepOutputSchema(value: unknown): value is StepOutputSchema {
  return typeof value === 'object' && value !== null && Array.isArray((value as { fields?: unknown }).fields);
}

/** Either form → JSON Schema (a JSON Schema is returned as is). */
export function toJsonSchema(schema: JsonSchema | StepOutputSchema): JsonSchema {
  return isStepOutputSchema(schema) ? outputSchemaToJsonSchema(schema) : (schema as JsonSchema);
}
