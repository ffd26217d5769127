/**
 * Scrubs secret values out of text before it becomes an error message, a log
 * line or an event. Used on everything the executor reports, including text
 * that came from the upstream or from the HTTP stack, either of which may
 * echo a URL or header that carries a credential.
 */

import { maskSecret } from '@af/secret-mask';
import { ConnectorError } from './connector-error.js';

export const REDACTED = '[REDACTED]';

/**
 * `text` with every occurrence of every secret replaced by `[REDACTED]`. A
 * secret shorter than 8 characters is replaced only where it stands as a
 * whole value (no letter or digit right before or after it), so a short
 * secret such as `abc` masks `key=abc` but leaves `abcdef` alone.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  // Longest first, so a secret that contains another is replaced whole.
  const ordered = [...new Set(secrets)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  let out = text;
  for (const secret of ordered) out = maskSecret(out, secret, REDACTED);
  return out;
}

/** `err` with every secret removed from its message and violations (the same error when nothing changed). */
export function scrubError(err: ConnectorError, secrets: readonly string[]): ConnectorError {
  if (secrets.length === 0) return err;
  const message = redactSecrets(err.message, secrets);
  const violations = err.violations.map((v) => ({
    field: redactSecrets(v.field, secrets),
    reason: redactSecrets(v.reason, secrets),
  }));
  const changed =
    message !== err.message ||
    violations.some((v, i) => v.field !== err.violations[i]?.field || v.reason !== err.violations[i]?.reason);
  if (!changed) return err;
  return new ConnectorError(err.code, message, {
    retryable: err.retryable,
    violations,
    ...(err.status !== undefined ? { status: err.status } : {}),
    ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
  });
}
