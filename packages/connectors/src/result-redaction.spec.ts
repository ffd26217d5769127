import { MIN_RESULT_SECRET_LENGTH, redactResult, resultSecrets } from './result-redaction.js';

const KEY = 'sk-live-4f9a8b7c6d5e';
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('resultSecrets', () => {
  it('covers a value as is, URL-, form- and base64-encoded (padded or not, standard or URL-safe)', () => {
    const secret = 'p@ss word/+?x';
    const secrets = resultSecrets({ token: secret });
    const text = [
      secret,
      encodeURIComponent(secret),
      encodeURIComponent(secret).replace(/%20/g, '+'),
      b64(secret),
      Buffer.from(secret).toString('base64url'),
    ];
    for (const form of text) expect(redactResult(`<${form}>`, secrets)).toBe('<[REDACTED]>');
  });

  it('covers basic auth user:password and its base64, but not the user name alone', () => {
    const secrets = resultSecrets({ username: 'alice', password: 'correct-horse' });
    expect(redactResult('Basic ' + b64('alice:correct-horse'), secrets)).toBe('Basic [REDACTED]');
    expect(redactResult('alice:correct-horse', secrets)).toBe('[REDACTED]');
    expect(redactResult({ login: 'alice', pw: 'correct-horse' }, secrets)).toEqual({
      login: 'alice',
      pw: '[REDACTED]',
    });
  });

  it('covers OAuth client secrets (and the client_id:client_secret pair), not the client id', () => {
    const secrets = resultSecrets({ client_id: 'my-client-id', client_secret: 'client-s3cret-value' });
    expect(redactResult(b64('my-client-id:client-s3cret-value'), secrets)).toBe('[REDACTED]');
    expect(redactResult('my-client-id', secrets)).toBe('my-client-id');
  });

  it('covers the password of a connection string, and extra values (tokens, plugin config)', () => {
    const secrets = resultSecrets({ connection_string: 'postgres://reader:pa%24%24w0rd-long@db:5432/x' }, [
      'access-token-xyz-123',
    ]);
    expect(redactResult('pw=pa$$w0rd-long tok=access-token-xyz-123', secrets)).toBe(
      'pw=[REDACTED] tok=[REDACTED]',
    );
  });

  it(`ignores values shorter than ${MIN_RESULT_SECRET_LENGTH} characters, empty ones and non-strings`, () => {
    expect(resultSecrets({ api_key: 'a', token: '', other: 42 as unknown as string })).toEqual([]);
    expect(resultSecrets({ api_key: 'x'.repeat(MIN_RESULT_SECRET_LENGTH - 1) })).toEqual([]);
    expect(resultSecrets({ api_key: 'x'.repeat(MIN_RESULT_SECRET_LENGTH) })).toContain(
      'x'.repeat(MIN_RESULT_SECRET_LENGTH),
    );
    const short = resultSecrets({ api_key: 'a' });
    expect(redactResult({ name: 'a banana' }, short)).toEqual({ name: 'a banana' });
  });

  it('puts the longest first, so a secret that contains another is replaced whole', () => {
    const secrets = resultSecrets({ api_key: 'abcdefgh', token: 'abcdefgh-ijklmnop' });
    expect(secrets[0]!.length).toBeGreaterThanOrEqual(secrets.at(-1)!.length);
    expect(redactResult('abcdefgh-ijklmnop', secrets)).toBe('[REDACTED]');
  });
});

describe('redactResult', () => {
  const secrets = resultSecrets({ api_key: KEY });

  it('redacts strings anywhere in a result: values, nested arrays, keys, warnings', () => {
    const result = {
      results: [{ echoed: KEY, headers: { 'x-api-key': `key ${KEY}` }, list: [1, `${KEY}!`, null, true] }],
      count: 1,
      warnings: [`next page https://api.example.com/?api_key=${KEY}`],
      [KEY]: 'a key named after the secret',
    };
    const out = redactResult(result, secrets);
    expect(JSON.stringify(out)).not.toContain(KEY);
    expect(out.results[0]).toEqual({
      echoed: '[REDACTED]',
      headers: { 'x-api-key': 'key [REDACTED]' },
      list: [1, '[REDACTED]!', null, true],
    });
    expect(out.warnings).toEqual(['next page https://api.example.com/?api_key=[REDACTED]']);
    expect((out as Record<string, unknown>)['[REDACTED]']).toBe('a key named after the secret');
  });

  it('keeps two keys that only differed in their secret', () => {
    expect(redactResult({ [`a${KEY}`]: 1, [`a${encodeURIComponent(KEY)}x`]: 2, a: 3 }, secrets)).toEqual({
      'a[REDACTED]': 1,
      'a[REDACTED]x': 2,
      a: 3,
    });
    const other = resultSecrets({ api_key: KEY, token: 'second-secret-1' });
    expect(redactResult({ [KEY]: 1, 'second-secret-1': 2 }, other)).toEqual({
      '[REDACTED]': 1,
      '[REDACTED]_2': 2,
    });
  });

  it('returns the same objects when nothing is secret, and leaves other types alone', () => {
    const clean = { results: [{ a: 'b', n: 1 }], count: 1, has_more: false };
    expect(redactResult(clean, secrets)).toBe(clean);
    expect(redactResult(clean, [])).toBe(clean);
    const date = new Date(0);
    expect(redactResult({ d: date, n: 5, b: false, z: null }, secrets)).toEqual({
      d: date,
      n: 5,
      b: false,
      z: null,
    });
    const half = { keep: { a: 1 }, change: { k: KEY } };
    const out = redactResult(half, secrets);
    expect(out.keep).toBe(half.keep);
    expect(half.change.k).toBe(KEY); // the input is not changed
  });
});
