import { LlmError } from './llm-errors.js';
import { compileOutputSchema, validateOutput } from './output-validator.js';

const report = {
  type: 'object',
  properties: {
    results: {
      type: 'array',
      items: { type: 'object', properties: { title: { type: 'string' }, confidence: { type: 'number' } }, required: ['title', 'confidence'] },
    },
    count: { type: 'integer' },
    since: { type: 'string', format: 'date' },
  },
  required: ['results'],
};

describe('validateOutput', () => {
  it('accepts a matching value and returns it', () => {
    const value = { results: [{ title: 'a', confidence: 0.5 }], count: 1, since: '2024-01-31' };
    expect(validateOutput(report, value)).toEqual({ ok: true, value });
  });

  it('reports every violation with a JSON pointer and the keyword', () => {
    const r = validateOutput(report, { results: [{ title: 3 }, { confidence: 'high', title: 'b' }], count: 1.5 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.violations).toEqual(
      expect.arrayContaining([
        { pointer: '/results/0/title', keyword: 'type', message: 'must be string' },
        { pointer: '/results/0/confidence', keyword: 'required', message: "must have required property 'confidence'" },
        { pointer: '/results/1/confidence', keyword: 'type', message: 'must be number' },
        { pointer: '/count', keyword: 'type', message: 'must be integer' },
      ]),
    );
  });

  it('points a missing top-level property at the property and a wrong root type at the root', () => {
    const missing = validateOutput(report, {});
    expect(!missing.ok && missing.violations).toEqual([{ pointer: '/results', keyword: 'required', message: "must have required property 'results'" }]);
    const root = validateOutput(report, ['not', 'an', 'object']);
    expect(!root.ok && root.violations).toEqual([{ pointer: '', keyword: 'type', message: 'must be object' }]);
  });

  it('checks date formats for real calendar dates', () => {
    const s = { type: 'string', format: 'date' };
    expect(validateOutput(s, '2024-02-29').ok).toBe(true);
    expect(validateOutput(s, '2023-02-29').ok).toBe(false);
    expect(validateOutput(s, '29/02/2024').ok).toBe(false);
    const dt = { type: 'string', format: 'date-time' };
    expect(validateOutput(dt, '2024-02-29T10:00:00Z').ok).toBe(true);
    expect(validateOutput(dt, '2024-02-29').ok).toBe(false);
  });

  it('escapes JSON pointer segments of odd property names', () => {
    const r = validateOutput({ type: 'object', required: ['a/b~c'] }, {});
    expect(!r.ok && r.violations[0]!.pointer).toBe('/a~1b~0c');
  });

  it('ignores unknown formats and keywords instead of failing the schema', () => {
    expect(validateOutput({ type: 'string', format: 'postal-code', 'x-ui': 1 }, 'AB1').ok).toBe(true);
  });

  it('reuses one compiled validator for equal schemas, whatever the key order', () => {
    const a = compileOutputSchema({ type: 'object', properties: { z: { type: 'string' } }, required: ['z'] });
    const b = compileOutputSchema({ required: ['z'], properties: { z: { type: 'string' } }, type: 'object' });
    expect(b).toBe(a);
  });

  it('is not affected by the caller mutating the schema afterwards', () => {
    const schema: Record<string, unknown> = { type: 'object', required: ['k'] };
    expect(validateOutput(schema, {}).ok).toBe(false);
    schema.required = [];
    expect(validateOutput(schema, {}).ok).toBe(true);
    expect(validateOutput({ type: 'object', required: ['k'] }, {}).ok).toBe(false);
  });

  it('throws a schema_invalid LlmError for a broken schema', () => {
    const err = (() => {
      try {
        compileOutputSchema({ type: 'object', properties: { a: { type: 'strnig' } } });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).code).toBe('schema_invalid');
    expect((err as Error).message).toContain('not a valid JSON Schema');
  });

  it('keeps working past the cache limit (evicts the oldest)', () => {
    for (let i = 0; i < 300; i++) {
      const s = { type: 'object', properties: { [`f${i}`]: { type: 'integer' } }, required: [`f${i}`] };
      expect(validateOutput(s, { [`f${i}`]: i }).ok).toBe(true);
      expect(validateOutput(s, { [`f${i}`]: 'x' }).ok).toBe(false);
    }
    expect(validateOutput({ type: 'object', properties: { f0: { type: 'integer' } }, required: ['f0'] }, {}).ok).toBe(false);
  });
});
