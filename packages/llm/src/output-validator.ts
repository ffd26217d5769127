/**
 * Validates a model's output against a JSON Schema with Ajv. Compiled
 * validators are cached by the schema's canonical text: plans arrive as fresh
 * objects on every run, so identity caching would compile every time.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { LlmError, type OutputViolation } from './llm-errors.js';
import type { JsonSchema } from './output-schema.js';

const CACHE_LIMIT = 256;

// `date` is the one format the seed's output_schema produces; `date-time` is
// common in hand-written schemas. Anything else is not checked (strict off).
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
function isDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, logger: false });
  ajv.addFormat('date', { type: 'string', validate: isDate });
  ajv.addFormat('date-time', { type: 'string', validate: (v: string) => DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)) });
  return ajv;
}

const ajv = newAjv();
const cache = new Map<string, { validate: ValidateFunction; schema: JsonSchema }>();

/** Stable text of a JSON value: object keys sorted, so equal schemas share a validator. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The compiled validator of a schema; throws `LlmError('schema_invalid')` when the schema itself is broken. */
export function compileOutputSchema(schema: JsonSchema): ValidateFunction {
  const key = canonical(schema);
  const hit = cache.get(key);
  if (hit) {
    // Refresh recency so hot schemas stay cached.
    cache.delete(key);
    cache.set(key, hit);
    return hit.validate;
  }
  // Ajv keeps compiled schemas by object identity; a private copy keeps callers
  // free to mutate theirs and lets eviction remove exactly what was added.
  const copy = JSON.parse(key) as JsonSchema;
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(copy);
  } catch (err) {
    ajv.removeSchema(copy);
    throw new LlmError('schema_invalid', `the output schema is not a valid JSON Schema: ${(err as Error).message}`, { cause: err });
  }
  cache.set(key, { validate, schema: copy });
  if (cache.size > CACHE_LIMIT) {
    const [oldestKey, oldest] = cache.entries().next().value as [string, { schema: JsonSchema }];
    cache.delete(oldestKey);
    ajv.removeSchema(oldest.schema);
  }
  return validate;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Ajv error → violation; a missing property points at the property itself, not its parent. */
function toViolation(e: ErrorObject): OutputViolation {
  let pointer = e.instancePath;
  if (e.keyword === 'required') pointer += `/${escapePointer(String((e.params as { missingProperty: string }).missingProperty))}`;
  if (e.keyword === 'additionalProperties') pointer += `/${escapePointer(String((e.params as { additionalProperty: string }).additionalProperty))}`;
  return { pointer, keyword: e.keyword, message: e.message ?? `fails ${e.keyword}` };
}

export type ValidationResult<T = unknown> = { ok: true; value: T } | { ok: false; violations: OutputViolation[] };

/** Checks `value` against `schema`; never throws for a bad value (only for a broken schema). */
export function validateOutput<T = unknown>(schema: JsonSchema, value: unknown): ValidationResult<T> {
  const validate = compileOutputSchema(schema);
  if (validate(value)) return { ok: true, value: value as T };
  return { ok: false, violations: (validate.errors ?? []).map(toViolation) };
}
