import { schemaSatisfies, stripAnnotations } from './schema-satisfies.js';

describe('schemaSatisfies', () => {
  const post = { type: 'object', required: ['copy', 'visuals'], properties: { copy: { type: 'string', description: 'x' }, visuals: { type: 'array', items: { type: 'string', format: 'uri' } } }, additionalProperties: false, examples: [{}] };

  it('accepts equal schemas up to annotations, and anything for an empty consumer', () => {
    expect(schemaSatisfies(post, { ...post, description: 'the post', properties: { ...post.properties, copy: { type: 'string' } } })).toBe(true);
    expect(schemaSatisfies({ type: 'string' }, {})).toBe(true);
    expect(schemaSatisfies({ type: 'string' }, true)).toBe(true);
    expect(stripAnnotations({ type: 'string', title: 't', 'x-facet': 'a', examples: [] })).toEqual({ type: 'string' });
  });

  it('requires matching types (integer fits number) and enum subsets', () => {
    expect(schemaSatisfies({ type: 'string' }, { type: 'array' })).toBe(false);
    expect(schemaSatisfies({ type: 'integer' }, { type: 'number' })).toBe(true);
    expect(schemaSatisfies({}, { type: 'string' })).toBe(false);
    expect(schemaSatisfies({ type: 'string', enum: ['a'] }, { type: 'string', enum: ['a', 'b'] })).toBe(true);
    expect(schemaSatisfies({ type: 'string', enum: ['a', 'c'] }, { type: 'string', enum: ['a', 'b'] })).toBe(false);
    expect(schemaSatisfies({ type: 'string' }, { type: 'string', enum: ['a'] })).toBe(false);
    expect(schemaSatisfies({ const: 1 }, { const: 1 })).toBe(true);
  });

  it('checks bounds: the producer must be at least as strict', () => {
    expect(schemaSatisfies({ type: 'array', items: {}, minItems: 2, maxItems: 2 }, { type: 'array', minItems: 1 })).toBe(true);
    expect(schemaSatisfies({ type: 'array', items: {} }, { type: 'array', minItems: 2 })).toBe(false);
    expect(schemaSatisfies({ type: 'number', minimum: 0, maximum: 10 }, { type: 'number', minimum: 0, maximum: 10 })).toBe(true);
    expect(schemaSatisfies({ type: 'number', minimum: 0 }, { type: 'number', maximum: 10 })).toBe(false);
    expect(schemaSatisfies({ type: 'string', format: 'uri' }, { type: 'string', format: 'email' })).toBe(false);
  });

  it('checks objects: required ⊆, properties recursively, closed consumers', () => {
    const consumer = { type: 'object', required: ['copy'], properties: { copy: { type: 'string' } } };
    expect(schemaSatisfies(post, consumer)).toBe(true);
    expect(schemaSatisfies({ type: 'object', properties: { copy: { type: 'string' } } }, consumer)).toBe(false);
    expect(schemaSatisfies(post, { ...consumer, additionalProperties: false })).toBe(false);
    expect(schemaSatisfies({ type: 'object', required: ['copy'], properties: { copy: { type: 'number' } } }, consumer)).toBe(false);
    // An open producer may emit anything under a property the consumer constrains.
    expect(schemaSatisfies({ type: 'object' }, { type: 'object', properties: { n: { type: 'number' } } })).toBe(false);
  });

  it('answers false for what it cannot prove', () => {
    expect(schemaSatisfies({ anyOf: [{ type: 'string' }] }, { oneOf: [{ type: 'string' }, { type: 'number' }] })).toBe(false);
    expect(schemaSatisfies('x', { type: 'string' })).toBe(false);
  });
});
