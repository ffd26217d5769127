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

/**
 * Refuse run inputs larger than `maxBytes` of JSON (RUN_INPUT_MAX_BYTES) with
 * 413 naming `field`, before any service is called.
 */
export function assertInputsFit(inputs: unknown, maxBytes: number, field = 'inputs'): void {
  const text = JSON.stringify(inputs ?? {});
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= maxBytes) return;
  const reason = `is ${bytes} bytes of JSON; the limit is ${maxBytes} bytes (RUN_INPUT_MAX_BYTES)`;
  throw new AppError('PAYLOAD_TOO_LARGE', `${field} ${reason}`, { violations: [{ field, reason, code: 'payload_too_large' }] });
}
