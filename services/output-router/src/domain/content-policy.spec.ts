import { contentProblem, normalContentType } from './content-policy.js';

const text = (s: string) => new TextEncoder().encode(s);

describe('contentProblem', () => {
  it('accepts known types within the limit', () => {
    expect(contentProblem('text/markdown', text('# hi'), 100)).toBeUndefined();
    expect(contentProblem('application/json; charset=utf-8', text('{}'), 100)).toBeUndefined();
    expect(contentProblem('image/png', new Uint8Array([0x89, 0xff]), 100)).toBeUndefined();
  });

  it('refuses unknown types, too large content and bad UTF-8', () => {
    expect(contentProblem('application/x-msdownload', text('MZ'), 100)?.field).toBe('content_type');
    expect(contentProblem('text/plain', text('x'.repeat(101)), 100)).toEqual({
      field: 'content',
      reason: 'is 101 bytes; the limit is 100',
    });
    expect(contentProblem('text/plain', new Uint8Array([0xff, 0xfe]), 100)?.reason).toContain(
      'not valid UTF-8',
    );
  });
});

describe('normalContentType', () => {
  it('drops parameters', () => {
    expect(normalContentType('Text/CSV; charset=utf-8')).toBe('text/csv');
  });
});
