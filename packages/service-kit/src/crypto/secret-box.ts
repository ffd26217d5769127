/**
 * AES-256-GCM encryption of credential values at rest, as self-describing
 * strings:
 *
 *   v1.<kid>.<iv>.<tag>.<ciphertext>        (base64url parts)
 *
 * The version and key id are authenticated too (they are part of the GCM
 * additional data), so a blob cannot be relabelled to another key. An optional
 * caller `aad` binds a blob to its owner (e.g. the connector row id): a blob
 * copied to another row then fails to decrypt instead of leaking the secret
 * into the wrong connector.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Keyring } from './keyring.js';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const B64URL = /^[A-Za-z0-9_-]*$/;

export type SecretErrorReason = 'malformed' | 'unknown_key' | 'authentication_failed';

/** A blob that cannot be decrypted. Messages name the reason and key id only. */
export class SecretDecryptionError extends Error {
  override readonly name = 'SecretDecryptionError';
  constructor(
    readonly reason: SecretErrorReason,
    message: string,
  ) {
    super(message);
  }
}

interface ParsedBlob {
  kid: string;
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
}

/** Encrypts `plaintext` with the keyring's active key. */
export function encryptSecret(plaintext: string, keyring: Keyring, aad?: string): string {
  const kid = keyring.activeKid;
  const key = keyring.keyFor(kid) as Buffer;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(kid, aad));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [
    VERSION,
    kid,
    iv.toString('base64url'),
    tag.toString('base64url'),
    ciphertext.toString('base64url'),
  ].join('.');
}

/**
 * Decrypts a blob from `encryptSecret`. Throws SecretDecryptionError when it
 * is malformed, names a key the keyring lacks, or fails authentication (wrong
 * key, tampered, or a different `aad`).
 */
export function decryptSecret(blob: string, keyring: Keyring, aad?: string): string {
  const parsed = parseBlob(blob);
  const key = keyring.keyFor(parsed.kid);
  if (!key) {
    throw new SecretDecryptionError(
      'unknown_key',
      `secret was encrypted with key "${parsed.kid}", which is not in the keyring (has ${keyring.kids.join(', ')})`,
    );
  }
  const decipher = createDecipheriv('aes-256-gcm', key, parsed.iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(additionalData(parsed.kid, aad));
  decipher.setAuthTag(parsed.tag);
  try {
    return Buffer.concat([decipher.update(parsed.ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretDecryptionError(
      'authentication_failed',
      `secret failed authentication with key "${parsed.kid}": wrong key, tampered data or a different associated value`,
    );
  }
}

/** True when the blob is not under the active key (rotate it with `reencryptSecret`). */
export function needsReencrypt(blob: string, keyring: Keyring): boolean {
  return parseBlob(blob).kid !== keyring.activeKid;
}

/** The same secret under the active key; the blob unchanged when it already is. */
export function reencryptSecret(blob: string, keyring: Keyring, aad?: string): string {
  if (!needsReencrypt(blob, keyring)) return blob;
  return encryptSecret(decryptSecret(blob, keyring, aad), keyring, aad);
}

/** True when `value` looks like a blob from `encryptSecret` (it is not a proof that it decrypts). */
export function isEncryptedSecret(value: string): boolean {
  try {
    parseBlob(value);
    return true;
  } catch {
    return false;
  }
}

function parseBlob(blob: string): ParsedBlob {
  const parts = typeof blob === 'string' ? blob.split('.') : [];
  if (parts.length !== 5) throw malformed('expected v1.<kid>.<iv>.<tag>.<ciphertext>');
  const [version, kid, iv, tag, ciphertext] = parts as [string, string, string, string, string];
  if (version !== VERSION) throw malformed(`unsupported version "${version.slice(0, 10)}"`);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(kid)) throw malformed('invalid key id');
  if (![iv, tag, ciphertext].every((p) => B64URL.test(p))) throw malformed('parts must be base64url');
  const ivBuf = Buffer.from(iv, 'base64url');
  const tagBuf = Buffer.from(tag, 'base64url');
  if (ivBuf.length !== IV_BYTES) throw malformed(`iv must be ${IV_BYTES} bytes`);
  if (tagBuf.length !== TAG_BYTES) throw malformed(`tag must be ${TAG_BYTES} bytes`);
  return { kid, iv: ivBuf, tag: tagBuf, ciphertext: Buffer.from(ciphertext, 'base64url') };
}

function malformed(reason: string): SecretDecryptionError {
  return new SecretDecryptionError('malformed', `encrypted secret is malformed: ${reason}`);
}

/** Length-prefixed so `(kid, aad)` pairs can never collide by concatenation. */
function additionalData(kid: string, aad: string | undefined): Buffer {
  const header = Buffer.from(`${VERSION}.${kid}`, 'utf8');
  const extra = Buffer.from(aad ?? '', 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32BE(header.length);
  return Buffer.concat([len, header, extra]);
}
