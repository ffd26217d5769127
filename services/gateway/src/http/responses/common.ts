/**
 * Building blocks of the documented answers: the registry of shared OpenAPI
 * components (`$ref`), timestamps, free-form JSON, and the error envelope
 * every non-2xx JSON answer has (http-error.filter.ts and bootstrap.ts).
 * Response schemas are strict: a key the document does not name is a
 * mismatch in the conformance check (response-check.ts).
 */
import { z } from 'zod';

/** Shared components, emitted under #/components/schemas/<id> and referenced with $ref. */
export const COMPONENTS = new Map<z.ZodType, string>();

/** Registers a schema as a named component (the name is its `$ref`). */
export function component<T extends z.ZodType>(id: string, schema: T, meta: { description?: string; examples?: unknown[] } = {}): T {
  const described = (Object.keys(meta).length ? schema.meta(meta) : schema) as T;
  if ([...COMPONENTS.values()].includes(id)) throw new Error(`OpenAPI component ${id} is declared twice`);
  COMPONENTS.set(described, id);
  return described;
}

/** An ISO 8601 timestamp (kept a plain string: services differ in precision and zone notation). */
export const timestamp = z.string().meta({ format: 'date-time' });
export const nullableTimestamp = timestamp.nullable();

/** Any JSON object (definitions, schemas, payloads owned by another service). */
export const JsonObject = z.record(z.string(), z.unknown());

/** One field's problem: the same shape in 400 answers and in validation results. */
export const Violation = component(
  'Violation',
  z.looseObject({
    field: z.string().meta({ description: 'Path of the field, e.g. `workflow_steps[1].dependencies[0]` or `(body)`' }),
    reason: z.string(),
    code: z.string().optional().meta({ description: 'Machine-readable reason, e.g. `unknown_field`, `invalid_enum`' }),
    suggestedFix: z.string().optional().meta({ description: 'The corrected value of the field, when one is known (e.g. the key that was probably meant)' }),
    step: z.string().optional(),
    line: z.number().int().optional(),
    column: z.number().int().optional(),
  }),
  { description: 'A field that was refused: where, why, and when known a suggested fix' },
);

export const ErrorEnvelope = component(
  'Error',
  z.strictObject({
    error: z.strictObject({
      code: z.string().meta({ description: 'INVALID_ARGUMENT, UNAUTHENTICATED, PERMISSION_DENIED, NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION, PAYLOAD_TOO_LARGE, RESOURCE_EXHAUSTED, UNAVAILABLE, INTERNAL, …' }),
      message: z.string(),
      violations: z.array(Violation),
    }),
  }),
  {
    description: 'Every error answer: a code, a message and the fields at fault',
    examples: [{ error: { code: 'INVALID_ARGUMENT', message: 'envelope: unknown field "inptus"', violations: [{ field: 'inptus', reason: 'is not a field', code: 'unknown_field', suggestedFix: 'inputs' }] } }],
  },
);
