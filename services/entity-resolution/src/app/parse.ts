/** Boundary parsing: zod failures become INVALID_ARGUMENT naming each field path. */
import { AppError } from '@af/service-kit';
import type { z } from 'zod';

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, prefix = ''): z.infer<S> {
  const out = schema.safeParse(value);
  if (out.success) return out.data;
  const violations = out.error.issues.map((i) => ({
    field: [prefix, ...i.path.map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))]
      .filter(Boolean)
      .join('.')
      .replace(/\.\[/g, '['),
    reason: i.message,
  }));
  throw new AppError(
    'INVALID_ARGUMENT',
    violations.map((v) => `${v.field || '(root)'}: ${v.reason}`).join('; '),
    { violations },
  );
}
