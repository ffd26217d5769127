import { decodePageToken, encodePageToken } from './page-token.js';

describe('page tokens', () => {
  it('round-trips the last row of a page', () => {
    const last = { createdAt: new Date('2026-11-27T10:00:00.123Z'), id: '0b0f4c8e-1111-4000-8000-000000000001' };
    expect(decodePageToken(encodePageToken(last))).toEqual({ createdAt: '2026-11-27T10:00:00.123Z', id: last.id });
  });

  it.each([
    ['not base64 JSON', '%%%'],
    ['JSON without the keys', Buffer.from('{"x":1}').toString('base64url')],
    ['an id that is not a uuid', Buffer.from(JSON.stringify({ c: '2026-11-27T10:00:00Z', i: 'nope' })).toString('base64url')],
    ['a date that does not parse', Buffer.from(JSON.stringify({ c: 'yesterday', i: '0b0f4c8e-1111-4000-8000-000000000001' })).toString('base64url')],
  ])('refuses %s, naming page_token', (_, token) => {
    expect(() => decodePageToken(token)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', violations: [expect.objectContaining({ field: 'page_token' })] }));
  });
});
