/**
 * Which new passwords are refused, and why. Pure: the list of common
 * passwords is passed in (the gateway loads data/common-passwords.txt).
 *
 * bcrypt reads only the first 72 bytes of a password, so a longer one would be
 * silently cut (two passwords sharing their first 72 bytes would be the same
 * password). New passwords over 72 bytes of UTF-8 are refused rather than
 * pre-hashed, so stored hashes stay plain bcrypt any library can verify.
 */

export const MIN_PASSWORD_CHARS = 8;
/** bcrypt's input limit, in bytes of UTF-8. */
export const MAX_PASSWORD_BYTES = 72;

/** The first reason `password` is refused for an account with `email`, or null. */
export function passwordProblem(password: string, email: string, common: ReadonlySet<string>): string | null {
  if ([...password].length < MIN_PASSWORD_CHARS) return `must be at least ${MIN_PASSWORD_CHARS} characters`;
  const bytes = Buffer.byteLength(password, 'utf8');
  if (bytes > MAX_PASSWORD_BYTES) return `must be at most ${MAX_PASSWORD_BYTES} bytes (UTF-8); this one is ${bytes}`;
  const lower = password.toLowerCase();
  if (new Set(lower).size < 4) return 'is too simple: it uses fewer than 4 different characters';
  if (isSequence(lower)) return 'is too simple: it is a run of consecutive characters';
  const bare = stripDecoration(lower);
  const mail = email.trim().toLowerCase();
  const local = mail.split('@')[0] ?? '';
  if (lower.includes(mail) || (local.length >= 3 && (bare === local || bare === mail || lower === local))) {
    return 'must not be the email address or its name part';
  }
  if (common.has(lower) || common.has(lower.replace(/\s+/g, '')) || (bare.length >= 4 && common.has(bare))) {
    return 'is one of the most common passwords';
  }
  return null;
}

/** A password without surrounding digits, punctuation and spaces ("Monkey123!" → "monkey"). */
function stripDecoration(lower: string): string {
  return lower.replace(/^[\d\W_]+/u, '').replace(/[\d\W_]+$/u, '');
}

/** "12345678", "abcdefgh", "87654321": every character one code point from the previous, one way. */
function isSequence(lower: string): boolean {
  const cps = [...lower].map((c) => c.codePointAt(0)!);
  const step = cps[1]! - cps[0]!;
  if (step !== 1 && step !== -1) return false;
  return cps.every((cp, i) => i === 0 || cp - cps[i - 1]! === step);
}

/** The set of a common-password list file: one per line, `#` comments, compared in lower case. */
export function parseCommonPasswords(text: string): Set<string> {
  const set = new Set<string>();
  for (const line of text.split(/\r?\n/)) {
    const word = line.trim();
    if (word && !word.startsWith('#')) set.add(word.toLowerCase());
  }
  return set;
}
