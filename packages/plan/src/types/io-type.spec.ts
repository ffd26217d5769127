import { compatibility, literalType, type FieldSpec } from '../index.js';
import { resolvePath, renderPath } from './resolve-path.js';
import { parsePath } from '@af/expr';

describe('compatibility (seed §5 rule 2)', () => {
  it.each([
    // exact
    ['string', 'string', 'exact'],
    ['number', 'number', 'exact'],
    ['integer', 'number', 'exact'],
    ['date', 'string', 'exact'],
    ['entity[]', 'record[]', 'exact'],
    ['document[]', 'object[]', 'exact'],
    ['any', 'entity[]', 'exact'],
    ['record[]', 'any', 'exact'],
    ['any[]', 'string[]', 'exact'],
    ['object', 'record', 'exact'],
    ['record_set', 'object', 'exact'],
    // loose (seed coercions and lossy conversions)
    ['string', 'string[]', 'coerce'],
    ['integer', 'number[]', 'coerce'],
    ['record_set', 'record[]', 'coerce'],
    ['record_set', 'entity[]', 'coerce'],
    ['record[]', 'entity[]', 'coerce'],
    ['number', 'string', 'coerce'],
    ['boolean', 'string', 'coerce'],
    ['string', 'date', 'coerce'],
    ['number', 'integer', 'coerce'],
    ['number[]', 'string[]', 'coerce'],
    // mismatches
    ['string', 'number', 'mismatch'],
    ['record[]', 'string', 'mismatch'],
    ['string[]', 'string', 'mismatch'],
    ['entity[]', 'document[]', 'mismatch'],
    ['record_set', 'string', 'mismatch'],
    ['boolean', 'integer', 'mismatch'],
    ['string[][]', 'string[]', 'mismatch'],
  ])('%s → %s is %s', (from, to, kind) => {
    expect(compatibility(from, to).kind).toBe(kind);
  });

  it('the record_set coercion suggests .results', () => {
    expect(compatibility('record_set', 'record[]')).toEqual({ kind: 'coerce', reason: 'a record_set is passed as record[] through its .results', suggestion: 'results' });
  });

  it.each([
    ['x', 'string'],
    [3, 'integer'],
    [2.5, 'number'],
    [true, 'boolean'],
    [null, 'any'],
    [[], 'any[]'],
    [['a', 'b'], 'string[]'],
    [[1, 'a'], 'any[]'],
    [{ a: 1 }, 'object'],
  ])('literalType(%j) = %s', (value, type) => {
    expect(literalType(value)).toBe(type);
  });
});

describe('resolvePath', () => {
  const output: FieldSpec = {
    type: 'record_set',
    fields: {
      results: { type: 'record[]', fields: { donor_name: { type: 'string' }, tags: { type: 'string[]' } } },
      count: { type: 'integer' },
      raw: { type: 'record[]' },
    },
  };
  const at = (text: string) => resolvePath(output, parsePath(`x${text}`).path);

  it.each([
    ['', 'record_set'],
    ['.count', 'integer'],
    ['.results', 'record[]'],
    ['.results[0]', 'record'],
    ['.results[0].donor_name', 'string'],
    ['.results[*].donor_name', 'string[]'],
    ['.results[*].tags', 'string[][]'],
    ['.results[*]', 'record[]'],
    ['.raw[0].anything.deep', 'any'],
    ['.raw[*].anything', 'any[]'],
  ])('x%s has type %s', (path, type) => {
    const r = at(path);
    expect(r.ok && r.spec.type).toBe(type);
  });

  it('names the missing field and what is available', () => {
    expect(at('.results[0].donr')).toEqual({ ok: false, at: 'results[0].donr', reason: "no field 'donr'", available: ['donor_name', 'tags'], index: 2 });
    expect(at('.cnt')).toMatchObject({ ok: false, available: ['results', 'count', 'raw'] });
  });

  it('suggests a projection for field access on a list, refuses index on a scalar', () => {
    expect(at('.results.donor_name')).toMatchObject({ ok: false, fix: 'results[*].donor_name' });
    expect(at('.count[0]')).toMatchObject({ ok: false, reason: "'count' is a integer, not a list" });
    expect(at('.count.x')).toMatchObject({ ok: false, reason: "'count' is a integer and has no fields" });
  });

  it('renders paths like the reference grammar', () => {
    expect(renderPath(parsePath('a.b[0][*].c').path)).toBe('b[0][*].c');
  });
});
