import fc from 'fast-check';
import { isStepOutputSchema, outputSchemaToJsonSchema, toJsonSchema } from './output-schema.js';
import { validateOutput } from './output-validator.js';

describe('outputSchemaToJsonSchema', () => {
  it('maps an object schema with every seed field type', () => {
    const schema = outputSchemaToJsonSchema({
      type: 'object',
      fields: [
        { name: 's', type: 'string', description: 'Narrative findings' },
        { name: 'n', type: 'number' },
        { name: 'i', type: 'integer' },
        { name: 'd', type: 'date' },
        { name: 'b', type: 'boolean' },
        { name: 'tags', type: 'string[]' },
        { name: 'o', type: 'object' },
      ],
    });
    expect(schema).toEqual({
      type: 'object',
      properties: {
        s: { type: 'string', description: 'Narrative findings' },
        n: { type: 'number' },
        i: { type: 'integer' },
        d: { type: 'string', format: 'date' },
        b: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'string' } },
        o: { type: 'object' },
      },
      required: ['s', 'n', 'i', 'd', 'b', 'tags', 'o'],
    });
  });

  it('maps a record_set to {results: [record], count} (count optional)', () => {
    expect(outputSchemaToJsonSchema({ type: 'record_set', fields: [{ name: 'title', type: 'string' }] })).toEqual({
      type: 'object',
      properties: {
        results: { type: 'array', items: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] } },
        count: { type: 'integer' },
      },
      required: ['results'],
    });
  });

  it('reads a scalar as an object with its field, and defaults type to object', () => {
    const scalar = outputSchemaToJsonSchema({ type: 'scalar', fields: [{ name: 'score', type: 'number' }] });
    expect(scalar).toEqual({ type: 'object', properties: { score: { type: 'number' } }, required: ['score'] });
    expect(outputSchemaToJsonSchema({ fields: [{ name: 'score', type: 'number' }] })).toEqual(scalar);
  });

  it('maps nested arrays, record types and any like @af/plan', () => {
    const s = outputSchemaToJsonSchema({ fields: [{ name: 'm', type: 'number[][]' }, { name: 'e', type: 'entity' }, { name: 'x', type: 'any' }] });
    expect(s.properties).toEqual({ m: { type: 'array', items: { type: 'array', items: { type: 'number' } } }, e: { type: 'object' }, x: {} });
  });

  it('rejects a malformed output_schema naming the field', () => {
    expect(() => outputSchemaToJsonSchema({ type: 'object', fields: [] })).toThrow('declare at least one field');
    expect(() => outputSchemaToJsonSchema({ type: 'table' as 'object', fields: [{ name: 'a', type: 'string' }] })).toThrow(/type/);
    expect(() => outputSchemaToJsonSchema({ fields: [{ name: 'bad name', type: 'string' }] })).toThrow('must be an identifier');
    expect(() => outputSchemaToJsonSchema({ type: 'scalar', fields: [{ name: 'a', type: 'string' }, { name: 'b', type: 'string' }] })).toThrow('exactly one field');
  });

  it('property: a value built from the declared fields validates, one missing field does not', () => {
    const types = ['string', 'number', 'integer', 'boolean', 'date', 'string[]', 'object'] as const;
    const sample: Record<(typeof types)[number], unknown> = { string: 'a', number: 1.5, integer: 2, boolean: true, date: '2024-02-29', 'string[]': ['x'], object: { k: 1 } };
    const field = fc.record({ name: fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/), type: fc.constantFrom(...types) });
    fc.assert(
      fc.property(fc.uniqueArray(field, { minLength: 1, maxLength: 6, selector: (f) => f.name }), (fields) => {
        const schema = outputSchemaToJsonSchema({ type: 'object', fields });
        const value = Object.fromEntries(fields.map((f) => [f.name, sample[f.type]]));
        expect(validateOutput(schema, value).ok).toBe(true);
        const { [fields[0]!.name]: _dropped, ...missing } = value;
        const r = validateOutput(schema, missing);
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.violations).toContainEqual(expect.objectContaining({ pointer: `/${fields[0]!.name}`, keyword: 'required' }));
      }),
    );
  });
});

describe('toJsonSchema', () => {
  it('converts the seed form and passes JSON Schema through untouched', () => {
    const json = { type: 'object', properties: { a: { type: 'string' } } };
    expect(toJsonSchema(json)).toBe(json);
    expect(toJsonSchema({ type: 'object', fields: [{ name: 'a', type: 'string' }] })).toEqual({ ...json, required: ['a'] });
    expect(isStepOutputSchema({ fields: [] })).toBe(true);
    expect(isStepOutputSchema({ type: 'object' })).toBe(false);
    expect(isStepOutputSchema(null)).toBe(false);
  });
});
