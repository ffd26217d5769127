/**
 * Scrubs secret values out of text before it becomes an error message, a log
 * line or an event. Used on everything the executor reports, including text
 * that came from the upstream or from the HTTP stack, either of which may
 * echo a URL or header that carries a credential.
 */

export const REDACTED = '[REDACTED]';

/** `text` with every occurrence of every secret replaced by `[REDACTED]`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  // Longest first, so a secret that contains another is replaced whole.
  const ordered = [...new Set(secrets)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  let out = text;
  for (const secret of ordered) out = out.split(secret).join(REDACTED);
  return out;
}
