import { maskSecret, maskSecrets } from './log.js';

describe('maskSecrets', () => {
  it('masks a short secret standing as a whole value', () => {
    expect(maskSecrets('password=pass; next', ['pass'])).toBe('password=[REDACTED]; next');
    expect(maskSecrets('pass', ['pass'])).toBe('[REDACTED]');
    expect(maskSecrets({ url: 'https://x/?k=abc1', note: ['abc1'] }, ['abc1'])).toEqual({
      url: 'https://x/?k=[REDACTED]',
      note: ['[REDACTED]'],
    });
  });

  it('leaves a short secret inside a word alone', () => {
    expect(maskSecrets('bypass the passage', ['pass'])).toBe('bypass the passage');
    expect(maskSecrets('abc12 xabc1', ['abc1'])).toBe('abc12 xabc1');
    expect(maskSecret('compass', 'pass')).toBe('compass');
  });

  it('masks a secret of 8 characters or more anywhere, even inside a word', () => {
    expect(maskSecrets('prefixsupersecretsuffix and supersecret', ['supersecret'])).toBe(
      'prefix[REDACTED]suffix and [REDACTED]',
    );
    expect(maskSecret('xx12345678yy', '12345678')).toBe('xx[REDACTED]yy');
  });

  it('ignores empty secrets and masks a 1-character one only as a whole value, as the services do', () => {
    expect(maskSecrets('a b a', ['', 'a'])).toBe('[REDACTED] b [REDACTED]');
    expect(maskSecret('x', 'x')).toBe('[REDACTED]');
    expect(maskSecret('box x', 'x')).toBe('box [REDACTED]');
    expect(maskSecret('text', '')).toBe('text');
  });

  it('treats regular-expression characters in a short secret literally', () => {
    expect(maskSecrets('k=a.b* kxa-b', ['a.b*'])).toBe('k=[REDACTED] kxa-b');
  });

  it('masks error messages the same way', () => {
    const masked = maskSecrets(new Error('bad key pass for bypass'), ['pass']) as unknown as {
      message: string;
    };
    expect(masked.message).toBe('bad key [REDACTED] for bypass');
  });
});
