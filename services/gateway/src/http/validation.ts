import { nearestName, zodKeysAt } from '@af/plan';
import { AppError, type FieldViolation } from '@af/service-kit';
import type { Response } from 'express';
import type { z } from 'zod';

/** When the old body field names were deprecated (RFC 9745 `Deprecation: @<unix seconds>`): 2026-11-27. */
const DEPRECATED_AT = Date.UTC(2026, 10, 27) / 1000;

/**
 * A body field's old name: moved to `current` (400 when both are given) and
 * the response says so with `Deprecation`, `Warning` and a `Link` to the API
 * document. Returns the body to parse.
 */
export function deprecatedField(body: unknown, old: string, current: string, res: Pick<Response, 'setHeader'>): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body) || !(old in body)) return body;
  const { [old]: value, ...rest } = body as Record<string, unknown>;
  if (current in rest) {
    throw AppError.invalid(old, `is the deprecated name of '${current}': give only '${current}'`, 'deprecated_field');
  }
  res.setHeader('Deprecation', `@${DEPRECATED_AT}`);
  res.setHeader('Warning', `299 - "body field '${old}' is deprecated: send '${current}' instead"`);
  res.setHeader('Link', '</api/docs>; rel="deprecation"; type="application/json"');
  return { ...rest, [current]: value };
}

/**
 * An unknown key of a strict object: `unknown field`, with the nearest key the
 * schema allows there as "did you mean" and `suggestedFix` (the same
 * nearest-name rule as plan and playbook validation).
 */
function unknownField(schema: z.ZodType, path: PropertyKey[], key: string): FieldViolation {
  const field = [...path, key].join('.');
  const fix = nearestName(key, zodKeysAt(schema, path) ?? []);
  return fix ? { field, reason: `unknown field (did you mean '${fix}'?)`, code: 'unknown_field', suggestedFix: fix } : { field, reason: 'unknown field', code: 'unknown_field' };
}

/** Parse a request body; failures name each field path and reason (an unknown field with the key that was probably meant). */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const violations: FieldViolation[] = parsed.error.issues.flatMap((i) =>
    i.code === 'unrecognized_keys'
      ? i.keys.map((k) => unknownField(schema, i.path, k))
      : [{ field: i.path.length ? i.path.join('.') : '(body)', reason: i.code === 'invalid_type' && i.input === undefined ? 'is required' : i.message }],
  );
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
