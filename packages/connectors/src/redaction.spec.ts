import { REDACTED, redactSecrets } from './redaction.js';

describe('redactSecrets', () => {
  it('replaces every occurrence of every secret', () => {
    expect(redactSecrets('key=abc&x=abc, token xyz', ['abc', 'xyz'])).toBe(
      `key=${REDACTED}&x=${REDACTED}, token ${REDACTED}`,
    );
  });

  it('replaces the longest secret first so a containing secret goes whole', () => {
    expect(redactSecrets('abcdef', ['abc', 'abcdef'])).toBe(REDACTED);
  });

  it('ignores empty secrets and leaves clean text alone', () => {
    expect(redactSecrets('nothing here', ['', 'zzz'])).toBe('nothing here');
  });

  it('masks a secret shorter than 8 characters only as a whole value, never inside a word', () => {
    expect(redactSecrets('the password is abc; abcdef and cabc stay readable', ['abc'])).toBe(
      `the password is ${REDACTED}; abcdef and cabc stay readable`,
    );
    expect(redactSecrets('GET /search?q=pass&key=pass (bypass: passport)', ['pass'])).toBe(
      `GET /search?q=${REDACTED}&key=${REDACTED} (bypass: passport)`,
    );
    expect(redactSecrets('abc', ['abc'])).toBe(REDACTED);
  });

  it('treats regular-expression characters in a short secret literally', () => {
    expect(redactSecrets('token a.c* here, abc there', ['a.c*'])).toBe(`token ${REDACTED} here, abc there`);
    expect(redactSecrets('x=(1+1) y=11', ['(1+1)'])).toBe(`x=${REDACTED} y=11`);
  });

  it('still masks a secret of 8 characters or more wherever it occurs', () => {
    expect(redactSecrets('Bearersecret12 and xsecret12x', ['secret12'])).toBe(`Bearer${REDACTED} and x${REDACTED}x`);
  });

  it('does not mask a short secret inside the marker left by a longer one', () => {
    expect(redactSecrets('k=longsecret99 v=RED', ['longsecret99', 'RED'])).toBe(`k=${REDACTED} v=${REDACTED}`);
  });
});
