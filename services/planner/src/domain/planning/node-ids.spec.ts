import { literalText, nodeIdFor } from './node-ids.js';
import { extractReferences } from '@af/expr';

describe('node ids and literal text', () => {
  it('derives unique identifier ids from capability ids', () => {
    expect(nodeIdFor('copywriter.SocialpostDrafting', new Set())).toBe('copywriter_SocialpostDrafting');
    expect(nodeIdFor('a.b', new Set(['a_b', 'a_b_2']))).toBe('a_b_3');
    expect(nodeIdFor('9lives', new Set())).toBe('n_9lives');
  });

  it('makes free text inert for reference resolution', () => {
    const text = literalText('Use {tone} and {{brand}} but keep { spaced } and {"a": 1}');
    expect(extractReferences(text)).toEqual([]);
    expect(text).toBe('Use { tone} and { { brand}} but keep { spaced } and { "a": 1}');
  });
});
