/**
 * Masking one secret value inside a message. A secret of 8 characters or
 * more is replaced wherever it occurs; a shorter one only where it stands as
 * a whole value (no letter or digit right before or after it), so masking a
 * short secret such as `abc` turns `key=abc` into `key=[REDACTED]` but never
 * mangles a word that happens to contain it (`abcdef`, `cabc`).
 */

/** Secrets shorter than this are masked only as whole values, never inside a word. */
export const SHORT_SECRET_LENGTH = 8;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `text` with every occurrence of `secret` (whole values only when it is short) replaced by `mask`. */
export function maskSecret(text: string, secret: string, mask: string): string {
  if (!secret || !text.includes(secret)) return text;
  if (secret.length >= SHORT_SECRET_LENGTH) return text.split(secret).join(mask);
  return text.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(secret)}(?![\\p{L}\\p{N}])`, 'gu'), () => mask);
}
