/**
 * The set of AES-256 keys credentials are encrypted with, parsed from an
 * environment variable such as
 *
 *   CREDENTIALS_KEYS="k2025b:<base64 32 bytes>,k2025a:<base64 32 bytes>"
 *
 * The first key is active (new secrets are encrypted with it); the others only
 * decrypt, which is how keys rotate: prepend a new key, re-encrypt what
 * `needsReencrypt` flags, then drop the old key.
 *
 * Key material never appears in an error, a log line or `JSON.stringify`: the
 * keys live in a private field and the keyring prints as its key ids only.
 */
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';

export const DEFAULT_KEYRING_VARIABLE = 'CREDENTIALS_KEYS';
export const KEY_BYTES = 32;
const KID = /^[A-Za-z0-9_-]{1,64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]+={0,2}|[A-Za-z0-9_-]+)$/;

/** A keyring variable that cannot be used; the message names the variable and the reason. */
export class KeyringConfigError extends Error {
  override readonly name = 'KeyringConfigError';
  constructor(
    readonly variable: string,
    readonly reason: string,
  ) {
    super(`${variable}: ${reason}`);
  }
}

/** Keys by id; the first is the active one. */
export class Keyring {
  readonly #keys: ReadonlyMap<string, Buffer>;
  readonly activeKid: string;

  constructor(entries: ReadonlyArray<readonly [kid: string, key: Buffer]>) {
    const first = entries[0];
    if (!first) throw new Error('a keyring needs at least one key');
    const keys = new Map<string, Buffer>();
    for (const [kid, key] of entries) {
      if (!KID.test(kid))
        throw new Error(`key id "${kid.slice(0, 64)}" must be 1-64 letters, digits, _ or -`);
      if (key.length !== KEY_BYTES)
        throw new Error(`key "${kid}" must be ${KEY_BYTES} bytes, got ${key.length}`);
      if (keys.has(kid)) throw new Error(`key id "${kid}" appears twice`);
      keys.set(kid, Buffer.from(key));
    }
    this.#keys = keys;
    this.activeKid = first[0];
  }

  /** Every key id, active first. */
  get kids(): string[] {
    return [...this.#keys.keys()];
  }

  has(kid: string): boolean {
    return this.#keys.has(kid);
  }

  /** @internal The key bytes; only the secret box needs them. */
  keyFor(kid: string): Buffer | undefined {
    return this.#keys.get(kid);
  }

  toJSON(): { activeKid: string; kids: string[] } {
    return { activeKid: this.activeKid, kids: this.kids };
  }

  [inspect.custom](): string {
    return `Keyring { active: ${this.activeKid}, kids: [${this.kids.join(', ')}] }`;
  }
}

/**
 * Parses `kid:<base64 key>,kid:<base64 key>` (standard or URL-safe base64 of
 * exactly 32 bytes; whitespace around entries is ignored). Throws
 * KeyringConfigError naming `variable` and the entry, never echoing a key.
 */
export function parseKeyring(
  envValue: string | undefined,
  variable: string = DEFAULT_KEYRING_VARIABLE,
): Keyring {
  if (envValue === undefined || envValue.trim() === '') {
    throw new KeyringConfigError(
      variable,
      'is not set; expected "<kid>:<base64 32-byte key>[,<kid>:<key>…]"',
    );
  }
  const entries: Array<[string, Buffer]> = [];
  const seen = new Set<string>();
  const parts = envValue.split(',');
  for (const [i, raw] of parts.entries()) {
    const entry = raw.trim();
    const where = `entry ${i + 1}`;
    const colon = entry.indexOf(':');
    if (colon < 0) throw new KeyringConfigError(variable, `${where} must look like <kid>:<base64 key>`);
    const kid = entry.slice(0, colon).trim();
    const material = entry.slice(colon + 1).trim();
    if (!KID.test(kid)) {
      throw new KeyringConfigError(
        variable,
        `${where} has an invalid key id; use 1-64 letters, digits, _ or -`,
      );
    }
    if (seen.has(kid)) throw new KeyringConfigError(variable, `key id "${kid}" appears more than once`);
    seen.add(kid);
    if (!BASE64.test(material)) throw new KeyringConfigError(variable, `key "${kid}" is not valid base64`);
    const key = Buffer.from(
      material,
      material.includes('-') || material.includes('_') ? 'base64url' : 'base64',
    );
    if (key.length !== KEY_BYTES) {
      throw new KeyringConfigError(
        variable,
        `key "${kid}" decodes to ${key.length} bytes; AES-256 needs ${KEY_BYTES}`,
      );
    }
    entries.push([kid, key]);
  }
  return new Keyring(entries);
}

/** A fresh random key as base64, for `CREDENTIALS_KEYS` (e.g. in dev set-up scripts). */
export function generateKeyBase64(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}
