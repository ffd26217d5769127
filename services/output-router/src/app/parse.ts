/** Parsing inputs from outside with zod: failures are INVALID_ARGUMENT naming every field path. */
import { AppError } from '@af/service-kit';
import type { z } from 'zod';

export function parse<S extends z.ZodType>(schema: S, value: unknown, field: string): z.infer<S> {
  const r = schema.safeParse(value ?? {});
  if (r.success) return r.data;
  const violations = r.error.issues.map((i) => ({
    field: [field, ...i.path.map(String)].filter(Boolean).join('.') || '(body)',
    reason: i.message,
  }));
  throw new AppError('INVALID_ARGUMENT', violations.map((v) => `${v.field}: ${v.reason}`).join('; '), {
    violations,
  });
}

/** Problems found by domain code, as one INVALID_ARGUMENT. */
export function invalid(problems: Array<{ field: string; reason: string }>): AppError {
  return new AppError('INVALID_ARGUMENT', problems.map((p) => `${p.field}: ${p.reason}`).join('; '), {
    violations: problems,
  });
}
