import { maskSecret, SHORT_SECRET_LENGTH } from './index.js';

const M = '[REDACTED]';

describe('maskSecret', () => {
  it('masks a secret of 8 characters or more wherever it occurs, inside words too', () => {
    expect(SHORT_SECRET_LENGTH).toBe(8);
    expect(maskSecret('Bearerhunter22 then hunter22!', 'hunter22', M)).toBe(`Bearer${M} then ${M}!`);
  });

  it('masks a short secret only as a whole value, never a substring of a word', () => {
    expect(maskSecret('login failed for pass; bypass and passport are words', 'pass', M)).toBe(`login failed for ${M}; bypass and passport are words`);
    expect(maskSecret('GET /x?key=abc&q=abcdef', 'abc', M)).toBe(`GET /x?key=${M}&q=abcdef`);
    expect(maskSecret('abc', 'abc', M)).toBe(M);
    expect(maskSecret('abc1 1abc', 'abc', M)).toBe('abc1 1abc');
  });

  it('treats letters beyond ASCII as part of a word', () => {
    expect(maskSecret('clé: abc, abcé', 'abc', M)).toBe(`clé: ${M}, abcé`);
  });

  it('reads regular-expression characters in a secret literally', () => {
    expect(maskSecret('pw=a.c* and abc', 'a.c*', M)).toBe(`pw=${M} and abc`);
    expect(maskSecret('pw=$1 $& x', '$1', M)).toBe(`pw=${M} $& x`);
  });

  it('leaves the text alone for an empty secret or one that does not occur', () => {
    expect(maskSecret('nothing here', '', M)).toBe('nothing here');
    expect(maskSecret('nothing here', 'zzz', M)).toBe('nothing here');
  });
});
