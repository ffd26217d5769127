import { jsonBytes, oversize } from './payload-size.js';

describe('payload size', () => {
  it('counts UTF-8 bytes of the JSON text', () => {
    expect(jsonBytes({ a: 'é' })).toBe(Buffer.byteLength('{"a":"é"}'));
    expect(jsonBytes(undefined)).toBe(0);
    expect(jsonBytes(null)).toBe(4);
  });

  it('says how large and what the limit is', () => {
    expect(oversize({ a: 'x'.repeat(10) }, 100, 'RUN_INPUT_MAX_BYTES')).toBeUndefined();
    expect(oversize({ a: 'x'.repeat(200) }, 100, 'RUN_INPUT_MAX_BYTES')).toEqual({
      bytes: 208,
      reason: 'is 208 bytes of JSON; the limit is 100 bytes (RUN_INPUT_MAX_BYTES)',
    });
  });
});
