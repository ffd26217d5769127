import {
  columnsFromMapping,
  columnValue,
  inferColumns,
  lastPerKey,
  reconcileColumns,
  typeOfValue,
} from './table-schema.js';

describe('columnsFromMapping', () => {
  it('maps names to types, with aliases', () => {
    const r = columnsFromMapping(
      { name: 'string', amount: 'float', n: 'int', ok: 'bool', at: 'date', meta: 'object' },
      'config.schema_mapping',
    );
    expect(r.problems).toEqual([]);
    expect(r.columns).toEqual([
      { name: 'name', type: 'text' },
      { name: 'amount', type: 'number' },
      { name: 'n', type: 'integer' },
      { name: 'ok', type: 'boolean' },
      { name: 'at', type: 'timestamp' },
      { name: 'meta', type: 'json' },
    ]);
  });

  it('names bad columns and types', () => {
    const r = columnsFromMapping({ 'Bad Name': 'text', good: 'blob' }, 'm');
    expect(r.columns).toEqual([]);
    expect(r.problems.map((p) => p.field)).toEqual(['m.Bad Name', 'm.good']);
    expect(r.problems[1]!.reason).toContain('unknown column type "blob"');
  });

  it('refuses a non-object and an empty mapping', () => {
    expect(columnsFromMapping(['a'], 'm').problems[0]!.reason).toContain('must be an object');
    expect(columnsFromMapping(null, 'm').problems[0]!.reason).toContain('must be an object');
    expect(columnsFromMapping({}, 'm').problems[0]!.reason).toContain('at least one column');
  });
});

describe('typeOfValue / inferColumns', () => {
  it('suggests types', () => {
    expect(typeOfValue(1)).toBe('integer');
    expect(typeOfValue(1.5)).toBe('number');
    expect(typeOfValue(true)).toBe('boolean');
    expect(typeOfValue('2026-01-02')).toBe('timestamp');
    expect(typeOfValue('2026-01-02T10:00:00Z')).toBe('timestamp');
    expect(typeOfValue('hello')).toBe('text');
    expect(typeOfValue({ a: 1 })).toBe('json');
    expect(typeOfValue(null)).toBeUndefined();
  });

  it('widens across rows and keeps first-seen order', () => {
    const r = inferColumns(
      [
        { name: 'a', amount: 1, note: null },
        { name: 'b', amount: 2.5, extra: true, note: 'x' },
        { name: 3, amount: 4 },
      ],
      'inputs.data',
    );
    expect(r.problems).toEqual([]);
    expect(r.columns).toEqual([
      { name: 'name', type: 'text' },
      { name: 'amount', type: 'number' },
      { name: 'note', type: 'text' },
      { name: 'extra', type: 'boolean' },
    ]);
  });

  it('reports keys that are not identifiers once, and leaves them out', () => {
    const r = inferColumns([{ ok: 1, 'DROP TABLE': 2 }, { 'DROP TABLE': 3 }], 'inputs.data');
    expect(r.columns).toEqual([{ name: 'ok', type: 'integer' }]);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]!.field).toBe('inputs.data[0].DROP TABLE');
  });
});

describe('reconcileColumns', () => {
  it('adds new columns and refuses type changes', () => {
    const r = reconcileColumns(
      [
        { name: 'a', type: 'text' },
        { name: 'b', type: 'integer' },
      ],
      [
        { name: 'a', type: 'text' },
        { name: 'b', type: 'text' },
        { name: 'c', type: 'json' },
      ],
      'schema_mapping',
    );
    expect(r.added).toEqual([{ name: 'c', type: 'json' }]);
    expect(r.problems).toEqual([
      {
        field: 'schema_mapping.b',
        reason: 'column b is integer in the existing table; changing it to text is refused',
      },
    ]);
  });
});

describe('columnValue', () => {
  it('converts what fits', () => {
    expect(columnValue({ name: 'x', type: 'integer' }, '42')).toEqual({ value: 42 });
    expect(columnValue({ name: 'x', type: 'number' }, 1.5)).toEqual({ value: 1.5 });
    expect(columnValue({ name: 'x', type: 'boolean' }, 'true')).toEqual({ value: true });
    expect(columnValue({ name: 'x', type: 'text' }, 7)).toEqual({ value: '7' });
    expect(columnValue({ name: 'x', type: 'text' }, { a: 1 })).toEqual({ value: '{"a":1}' });
    expect(columnValue({ name: 'x', type: 'json' }, [1])).toEqual({ value: '[1]' });
    expect(columnValue({ name: 'x', type: 'timestamp' }, '2026-01-02')).toEqual({
      value: '2026-01-02T00:00:00.000Z',
    });
    expect(columnValue({ name: 'x', type: 'integer' }, null)).toEqual({ value: null });
  });

  it('names what does not', () => {
    expect(columnValue({ name: 'x', type: 'integer' }, 1.5)).toEqual({ problem: '1.5 is not an integer' });
    expect(columnValue({ name: 'x', type: 'integer' }, 'abc')).toEqual({
      problem: '"abc" is not an integer',
    });
    expect(columnValue({ name: 'x', type: 'number' }, '')).toEqual({ problem: '"" is not a number' });
    expect(columnValue({ name: 'x', type: 'boolean' }, 'yes')).toEqual({ problem: '"yes" is not a boolean' });
    expect(columnValue({ name: 'x', type: 'timestamp' }, 'soon')).toEqual({
      problem: '"soon" is not a date',
    });
  });
});

describe('lastPerKey', () => {
  it('keeps the last row per key, rows without a key all', () => {
    expect(
      lastPerKey(
        [{ id: 1, v: 'a' }, { id: 2, v: 'b' }, { id: 1, v: 'c' }, { v: 'n1' }, { id: null, v: 'n2' }],
        'id',
      ),
    ).toEqual([{ id: 2, v: 'b' }, { id: 1, v: 'c' }, { v: 'n1' }, { id: null, v: 'n2' }]);
  });
});
