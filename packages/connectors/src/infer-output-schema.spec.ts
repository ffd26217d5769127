import { inferOutputSchema } from './infer-output-schema.js';

describe('inferOutputSchema', () => {
  it('types fields from samples, in first-seen order, with presence', () => {
    const schema = inferOutputSchema([
      { name: 'Acme', amount: 10, ratio: 0.5, on: '2024-01-31', tags: ['a'], ok: true, extra: null },
      { name: 'Beta', amount: 12.5, ratio: 1, on: '2024-02-01T10:00:00Z', tags: [], ok: false },
    ]);
    expect(schema).toEqual({
      type: 'record_set',
      fields: [
        { name: 'name', type: 'string', presence: 1 },
        { name: 'amount', type: 'number', presence: 1 },
        { name: 'ratio', type: 'number', presence: 1 },
        { name: 'on', type: 'date', presence: 1 },
        { name: 'tags', type: 'string[]', presence: 1 },
        { name: 'ok', type: 'boolean', presence: 1 },
        { name: 'extra', type: 'string', presence: 0 },
      ],
    });
  });

  it('keeps integers as integer and mixes dates with strings as string', () => {
    const schema = inferOutputSchema([{ n: 1, d: '2024-01-01' }, { n: 2, d: 'soon' }]);
    expect(schema.fields).toEqual([
      { name: 'n', type: 'integer', presence: 1 },
      { name: 'd', type: 'string', presence: 1 },
    ]);
  });

  it('falls back to object for disagreeing kinds and ignores non-records', () => {
    const schema = inferOutputSchema([{ x: 1 }, { x: 'a' }, 'not a record', null, [1]]);
    expect(schema.fields).toEqual([{ name: 'x', type: 'object', presence: 1 }]);
    expect(inferOutputSchema([])).toEqual({ type: 'record_set', fields: [] });
  });
});
