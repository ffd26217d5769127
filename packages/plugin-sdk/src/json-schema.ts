/**
 * JSON Schema handling for tool contracts: one Ajv setup (draft-07, strict so
 * a misspelt keyword fails when the plugin is defined rather than silently
 * accepting everything), the common string formats without extra packages,
 * and Ajv / zod errors turned into field-path violations (`inputs.items[0].id`).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { z } from 'zod';
import type { FieldViolation } from './errors.js';

export type JsonSchema = Record<string, unknown>;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `useDefaults` fills in `default` values of missing input properties. */
export function createAjv(options: { useDefaults: boolean }): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: true,
    useDefaults: options.useDefaults,
    coerceTypes: false,
  });
  ajv.addFormat('date', (s: string) => DATE.test(s) && !Number.isNaN(Date.parse(s)));
  ajv.addFormat('date-time', (s: string) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)));
  ajv.addFormat('email', EMAIL);
  ajv.addFormat('uuid', UUID);
  ajv.addFormat('uri', (s: string) => {
    try {
      return new URL(s).protocol.length > 1;
    } catch {
      return false;
    }
  });
  return ajv;
}

/** Compiles or throws with Ajv's reason (e.g. `unknown keyword: "maxlength"`). */
export function compileSchema(ajv: Ajv, schema: JsonSchema): ValidateFunction {
  // A `$schema` naming another draft would make Ajv look for a meta-schema it does not have.
  const { $schema: _ignored, ...rest } = schema;
  return ajv.compile(rest);
}

/** `/items/0/name` under `inputs` → `inputs.items[0].name`. */
export function pointerToPath(root: string, pointer: string): string {
  if (!pointer) return root;
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, seg) => (/^\d+$/.test(seg) ? `${path}[${seg}]` : `${path}.${seg}`), root);
}

/** Ajv errors → one violation per problem, naming the field. */
export function ajvViolations(
  root: string,
  errors: readonly ErrorObject[] | null | undefined,
): FieldViolation[] {
  const out: FieldViolation[] = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    let field = pointerToPath(root, e.instancePath);
    let reason = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      field = `${field}.${(e.params as { missingProperty: string }).missingProperty}`;
      reason = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      field = `${field}.${(e.params as { additionalProperty: string }).additionalProperty}`;
      reason = 'is not an accepted field';
    } else if (e.keyword === 'enum') {
      reason = `must be one of ${((e.params as { allowedValues: unknown[] }).allowedValues ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
    }
    const key = `${field}\u0000${reason}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ field, reason });
    }
  }
  return out;
}

/** zod issues → violations under `root`. */
export function zodViolations(root: string, issues: readonly z.core.$ZodIssue[]): FieldViolation[] {
  return issues.map((issue) => ({
    field: (issue.path as PropertyKey[]).reduce<string>(
      (path, seg) => (typeof seg === 'number' ? `${path}[${seg}]` : `${path}.${String(seg)}`),
      root,
    ),
    reason: issue.message,
  }));
}

/** `field: reason; …` for messages. */
export function describeViolations(violations: readonly FieldViolation[]): string {
  return violations.map((v) => `${v.field} ${v.reason}`).join('; ');
}
