import { AppError } from '@af/service-kit';
import { filterClause } from './table-filter.js';

const COLS = [
  { name: 'name', type: 'text' as const },
  { name: 'amount', type: 'number' as const },
  { name: 'id', type: 'integer' as const },
  { name: 'ok', type: 'boolean' as const },
  { name: 'at', type: 'timestamp' as const },
  { name: 'meta', type: 'json' as const },
];

const refusal = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected a refusal');
};

describe('filterClause', () => {
  it('quotes columns, casts to the column type and binds values as parameters', () => {
    const r = filterClause(
      COLS,
      [
        { column: 'name', value: "x' OR '1'='1" },
        { column: 'amount', value: '300' },
        { column: 'id', value: '2' },
        { column: 'ok', value: 'true' },
        { column: 'at', value: '2026-01-02' },
        { column: 'meta', value: '{"a": 1}' },
        { column: '_source', value: 'api' },
      ],
      3,
    );
    expect(r.sql).toEqual([
      '"name" = $3::text',
      '"amount" = $4::double precision',
      '"id" = $5::bigint',
      '"ok" = $6::boolean',
      '"at" = $7::timestamptz',
      '"meta" = $8::jsonb',
      '"_source" = $9::text',
    ]);
    expect(r.params).toEqual(["x' OR '1'='1", '300', '2', 'true', '2026-01-02T00:00:00.000Z', '{"a":1}', 'api']);
  });

  it('refuses an unknown column naming it, and never puts it in SQL', () => {
    const e = refusal(() => filterClause(COLS, [{ column: 'x"; DROP TABLE t; --', value: '1' }], 1));
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.message).toContain('filter.x"; DROP TABLE t; --');
    expect(refusal(() => filterClause(COLS, [{ column: '_timestamp', value: '1' }], 1)).message).toContain('filter._timestamp');
  });

  it('refuses a value that is not of the column type, and a column twice', () => {
    expect(refusal(() => filterClause(COLS, [{ column: 'id', value: '1.5' }], 1)).message).toMatch(/filter\.id.*integer/);
    expect(refusal(() => filterClause(COLS, [{ column: 'amount', value: 'lots' }], 1)).message).toMatch(/filter\.amount.*number/);
    expect(refusal(() => filterClause(COLS, [{ column: 'ok', value: 'yes' }], 1)).message).toMatch(/filter\.ok/);
    expect(refusal(() => filterClause(COLS, [{ column: 'at', value: 'soon' }], 1)).message).toMatch(/filter\.at/);
    expect(refusal(() => filterClause(COLS, [{ column: 'meta', value: '{' }], 1)).message).toMatch(/filter\.meta/);
    expect(
      refusal(() => filterClause(COLS, [{ column: 'id', value: '1' }, { column: 'id', value: '2' }], 1)).message,
    ).toMatch(/filter\.id.*more than once/);
  });
});
