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
});
