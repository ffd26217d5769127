import { canonicalJson, definitionHash, responseCacheKey, type ResponseCacheKeyParts } from './response-cache.js';

const base: ResponseCacheKeyParts = {
  ownerUserId: 'alice',
  connectorId: 'fec-contributions',
  definitionHash: definitionHash({ id: 'fec-contributions', version: '1.0' }),
  endpoint: 'search_contributions',
  inputs: { contributor_name: 'Smith', filters: { state: 'CA', min: 10 }, tags: ['b', 'a'] },
};

describe('canonicalJson', () => {
  it('sorts object keys at every level, keeps array order, drops undefined like JSON', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson(new Date('2024-01-02T03:04:05Z'))).toBe('"2024-01-02T03:04:05.000Z"');
  });
});

describe('responseCacheKey', () => {
  it('is 64 hex characters and stable', () => {
    const key = responseCacheKey(base);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(responseCacheKey({ ...base })).toBe(key);
  });

  it('does not depend on the order inputs arrived in', () => {
    const reordered = { tags: ['b', 'a'], filters: { min: 10, state: 'CA' }, contributor_name: 'Smith' };
    expect(responseCacheKey({ ...base, inputs: reordered })).toBe(responseCacheKey(base));
    expect(responseCacheKey({ ...base, inputs: { ...base.inputs, extra: undefined } })).toBe(responseCacheKey(base));
    expect(responseCacheKey({ ...base, inputs: undefined })).toBe(responseCacheKey({ ...base, inputs: {} }));
  });

  it('changes with each part: owner, connector, definition, endpoint, inputs', () => {
    const key = responseCacheKey(base);
    const variants: ResponseCacheKeyParts[] = [
      { ...base, ownerUserId: 'bob' },
      { ...base, connectorId: 'other' },
      { ...base, definitionHash: definitionHash({ id: 'fec-contributions', version: '1.1' }) },
      { ...base, endpoint: 'other_endpoint' },
      { ...base, inputs: { ...base.inputs, contributor_name: 'Smyth' } },
      { ...base, inputs: { ...base.inputs, tags: ['a', 'b'] } },
      { ...base, inputs: { ...base.inputs, filters: { state: 'CA', min: '10' } } },
    ];
    const keys = variants.map(responseCacheKey);
    expect(new Set([key, ...keys]).size).toBe(variants.length + 1);
  });

  it('keeps fields apart (no ambiguity from concatenation)', () => {
    expect(responseCacheKey({ ...base, ownerUserId: 'ab', connectorId: 'c' })).not.toBe(
      responseCacheKey({ ...base, ownerUserId: 'a', connectorId: 'bc' }),
    );
  });

  it('refuses missing parts, naming the field', () => {
    for (const field of ['ownerUserId', 'connectorId', 'definitionHash', 'endpoint'] as const) {
      expect(() => responseCacheKey({ ...base, [field]: '' })).toThrow(`${field}: must be a non-empty string`);
    }
  });
});

describe('definitionHash', () => {
  it('ignores key order and changes when the definition changes', () => {
    expect(definitionHash({ a: 1, b: { c: 2, d: 3 } })).toBe(definitionHash({ b: { d: 3, c: 2 }, a: 1 }));
    expect(definitionHash({ a: 1 })).not.toBe(definitionHash({ a: 2 }));
    expect(definitionHash({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });
});
