import { AppError } from '@af/service-kit';
import type { z } from 'zod';

/** Parse a request body; failures name each field path and reason. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const violations = parsed.error.issues.map((i) => ({
    field: i.path.length ? i.path.join('.') : '(body)',
    reason: i.code === 'invalid_type' && i.input === undefined ? 'is required' : i.message,
  }));
  throw new AppError('INVALID_ARGUMENT', violations.map((v) => `${v.field}: ${v.reason}`).join('; '), { violations });
}
