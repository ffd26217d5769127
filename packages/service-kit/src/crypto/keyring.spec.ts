import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { generateKeyBase64, Keyring, KeyringConfigError, parseKeyring } from './keyring.js';

const key = () => randomBytes(32);

describe('parseKeyring', () => {
  it('parses kid:key pairs; the first key is active', () => {
    const a = key();
    const b = key();
    const ring = parseKeyring(` k2:${a.toString('base64')} , k1:${b.toString('base64url')} `);

    expect(ring.activeKid).toBe('k2');
    expect(ring.kids).toEqual(['k2', 'k1']);
    expect(ring.keyFor('k2')?.equals(a)).toBe(true);
    expect(ring.keyFor('k1')?.equals(b)).toBe(true);
    expect(ring.has('k3')).toBe(false);
  });

  it('accepts a key from generateKeyBase64', () => {
    expect(parseKeyring(`dev:${generateKeyBase64()}`).activeKid).toBe('dev');
  });

  const material = key().toString('base64');
  const short = randomBytes(16).toString('base64');
  it.each([
    ['', 'is not set'],
    ['   ', 'is not set'],
    [`k1${material}`, 'entry 1 must look like <kid>:<base64 key>'],
    [`k1:${material},nocolon`, 'entry 2 must look like <kid>:<base64 key>'],
    [`:${material}`, 'entry 1 has an invalid key id'],
    [`bad.kid:${material}`, 'entry 1 has an invalid key id'],
    [`k1:${material},k1:${material}`, 'key id "k1" appears more than once'],
    ['k1:not base64!!', 'key "k1" is not valid base64'],
    [`k1:${short}`, 'key "k1" decodes to 16 bytes; AES-256 needs 32'],
    [`k1:${material},`, 'entry 2 must look like'],
  ])('refuses %j with a reason naming CREDENTIALS_KEYS', (value, reason) => {
    let caught: unknown;
    try {
      parseKeyring(value);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(KeyringConfigError);
    const err = caught as KeyringConfigError;
    expect(err.variable).toBe('CREDENTIALS_KEYS');
    expect(err.message).toMatch(/^CREDENTIALS_KEYS: /);
    expect(err.message).toContain(reason);
    // Never echo key material.
    expect(err.message).not.toContain(material);
    expect(err.message).not.toContain(short);
  });

  it('refuses undefined and names a custom variable', () => {
    expect(() => parseKeyring(undefined, 'OAUTH_KEYS')).toThrow(/^OAUTH_KEYS: is not set/);
  });
});

describe('Keyring', () => {
  it('never prints key material through JSON or util.inspect', () => {
    const k = key();
    const ring = new Keyring([['k1', k]]);
    const printed = [JSON.stringify(ring), inspect(ring), String(ring), JSON.stringify({ ring })].join('\n');

    expect(printed).toContain('k1');
    expect(printed).not.toContain(k.toString('base64'));
    expect(printed).not.toContain(k.toString('hex'));
    expect(Object.keys(ring)).not.toContain('keys');
  });

  it('keeps its own copy of the key bytes', () => {
    const k = key();
    const ring = new Keyring([['k1', k]]);
    k.fill(0);
    expect(ring.keyFor('k1')?.equals(Buffer.alloc(32))).toBe(false);
  });

  it.each([
    [[], 'at least one key'],
    [[['k 1', key()]], 'key id'],
    [[['k1', randomBytes(31)]], 'must be 32 bytes'],
    [
      [
        ['k1', key()],
        ['k1', key()],
      ],
      'appears twice',
    ],
  ] as Array<[Array<[string, Buffer]>, string]>)('refuses bad entries (%#)', (entries, reason) => {
    expect(() => new Keyring(entries)).toThrow(reason);
  });
});
