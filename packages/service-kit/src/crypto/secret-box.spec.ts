import { randomBytes } from 'node:crypto';
import { Keyring } from './keyring.js';
import {
  decryptSecret,
  encryptSecret,
  isEncryptedSecret,
  needsReencrypt,
  reencryptSecret,
  SecretDecryptionError,
} from './secret-box.js';

const ring = (...kids: string[]) => new Keyring(kids.map((kid) => [kid, randomBytes(32)] as const));
const SECRET = 'sk-live-5f1e2d3c4b5a69788796a5b4c3d2e1f0';

function decryptError(fn: () => unknown): SecretDecryptionError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SecretDecryptionError);
    return err as SecretDecryptionError;
  }
  throw new Error('expected decryptSecret to throw');
}

describe('encryptSecret / decryptSecret', () => {
  it('round-trips text, including unicode and the empty string', () => {
    const keys = ring('k1');
    for (const plaintext of [SECRET, 'pässwörd 🔑', '', 'x'.repeat(10_000)]) {
      expect(decryptSecret(encryptSecret(plaintext, keys), keys)).toBe(plaintext);
    }
  });

  it('produces v1.<kid>.<iv>.<tag>.<ciphertext> without the plaintext in it', () => {
    const blob = encryptSecret(SECRET, ring('key-2025'));

    expect(blob).toMatch(/^v1\.key-2025\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(blob).not.toContain(SECRET);
    expect(Buffer.from(blob.split('.')[4] as string, 'base64url').toString('utf8')).not.toContain(SECRET);
    expect(isEncryptedSecret(blob)).toBe(true);
    expect(isEncryptedSecret(SECRET)).toBe(false);
  });

  it('uses a fresh IV each time', () => {
    const keys = ring('k1');
    expect(encryptSecret(SECRET, keys)).not.toBe(encryptSecret(SECRET, keys));
  });

  it('binds the blob to its aad', () => {
    const keys = ring('k1');
    const blob = encryptSecret(SECRET, keys, 'connector:1');

    expect(decryptSecret(blob, keys, 'connector:1')).toBe(SECRET);
    expect(decryptError(() => decryptSecret(blob, keys, 'connector:2')).reason).toBe('authentication_failed');
    expect(decryptError(() => decryptSecret(blob, keys)).reason).toBe('authentication_failed');
  });

  it('refuses a tampered ciphertext, tag or iv', () => {
    const keys = ring('k1');
    const parts = encryptSecret(SECRET, keys).split('.');
    const flip = (b64: string) => {
      const buf = Buffer.from(b64, 'base64url');
      buf[0] = (buf[0] ?? 0) ^ 1;
      return buf.toString('base64url');
    };
    for (const index of [2, 3, 4]) {
      const tampered = parts.map((p, i) => (i === index ? flip(p) : p)).join('.');
      const err = decryptError(() => decryptSecret(tampered, keys));
      expect(err.reason).toBe('authentication_failed');
      expect(err.message).toContain('"k1"');
    }
  });

  it('refuses a blob relabelled to another key id held in the keyring', () => {
    const keys = new Keyring([
      ['a', randomBytes(32)],
      ['b', randomBytes(32)],
    ]);
    const relabelled = encryptSecret(SECRET, keys).replace(/^v1\.a\./, 'v1.b.');

    expect(decryptError(() => decryptSecret(relabelled, keys)).reason).toBe('authentication_failed');
  });

  it('refuses a blob made with a different key under the same id', () => {
    const blob = encryptSecret(SECRET, ring('k1'));
    expect(decryptError(() => decryptSecret(blob, ring('k1'))).reason).toBe('authentication_failed');
  });

  it('names the missing key id when the keyring lacks it', () => {
    const blob = encryptSecret(SECRET, ring('old'));
    const err = decryptError(() => decryptSecret(blob, ring('new')));

    expect(err.reason).toBe('unknown_key');
    expect(err.message).toContain('"old"');
    expect(err.message).toContain('new');
  });

  it.each([
    ['not a blob'],
    ['v2.k1.aaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaa.aa'],
    ['v1.k 1.aaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaa.aa'],
    ['v1.k1.short.aaaaaaaaaaaaaaaaaaaaaa.aa'],
    ['v1.k1.aaaaaaaaaaaaaaaa.short.aa'],
    ['v1.k1.aaaaaaaaaaaaaaaa.aaaaaaaaaaaaaaaaaaaaaa.a+/'],
    ['v1.k1.a.b.c.d'],
  ])('refuses malformed %j', (blob) => {
    expect(decryptError(() => decryptSecret(blob, ring('k1'))).reason).toBe('malformed');
    expect(() => needsReencrypt(blob, ring('k1'))).toThrow(SecretDecryptionError);
    expect(isEncryptedSecret(blob)).toBe(false);
  });

  it('never puts the plaintext in any error message', () => {
    const keys = ring('k1');
    const blob = encryptSecret(SECRET, keys, 'row-1');
    const messages = [
      decryptError(() => decryptSecret(blob, keys, 'row-2')).message,
      decryptError(() => decryptSecret(blob, ring('k2'))).message,
      decryptError(() => decryptSecret(blob, ring('k1'))).message,
    ];
    for (const m of messages) expect(m).not.toContain(SECRET);
  });
});

describe('rotation', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const before = new Keyring([['old', oldKey]]);
  const during = new Keyring([
    ['new', newKey],
    ['old', oldKey],
  ]);
  const after = new Keyring([['new', newKey]]);

  it('flags blobs under a non-active key, re-encrypts them, and leaves current ones alone', () => {
    const legacy = encryptSecret(SECRET, before, 'row-7');

    expect(needsReencrypt(legacy, before)).toBe(false);
    expect(needsReencrypt(legacy, during)).toBe(true);
    // The old key still decrypts while it is in the keyring.
    expect(decryptSecret(legacy, during, 'row-7')).toBe(SECRET);

    const rotated = reencryptSecret(legacy, during, 'row-7');

    expect(rotated.startsWith('v1.new.')).toBe(true);
    expect(needsReencrypt(rotated, during)).toBe(false);
    expect(reencryptSecret(rotated, during, 'row-7')).toBe(rotated);
    // Once the old key is dropped only rotated blobs remain readable.
    expect(decryptSecret(rotated, after, 'row-7')).toBe(SECRET);
    expect(decryptError(() => decryptSecret(legacy, after, 'row-7')).reason).toBe('unknown_key');
  });

  it('new secrets use the active key', () => {
    expect(encryptSecret(SECRET, during).split('.')[1]).toBe('new');
  });
});
