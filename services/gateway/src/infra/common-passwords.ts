/** The refused common passwords: data/common-passwords.txt (shipped) or COMMON_PASSWORDS_FILE. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseCommonPasswords } from '../domain/password-policy.js';

export const SHIPPED_COMMON_PASSWORDS = fileURLToPath(new URL('../../data/common-passwords.txt', import.meta.url));

/** Read once at start-up; a missing or empty file fails the start naming the variable. */
export function loadCommonPasswords(file: string): Set<string> {
  const path = file || SHIPPED_COMMON_PASSWORDS;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`COMMON_PASSWORDS_FILE: cannot read ${path}: ${(err as Error).message}`);
  }
  const set = parseCommonPasswords(text);
  if (set.size === 0) throw new Error(`COMMON_PASSWORDS_FILE: ${path} lists no passwords`);
  return set;
}
