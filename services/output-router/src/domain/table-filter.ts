/**
 * Equality filters on a workspace table's rows: each `column = value` is
 * checked against the table's real columns (an unknown column is refused
 * naming it) and its value parsed as the column's type; the SQL names
 * quoted identifiers only and binds every value as a parameter.
 */
import { AppError } from '@af/service-kit';
import { quoteIdent } from './identifiers.js';
import { SQL_TYPES, type Column, type ColumnType } from './table-schema.js';

export interface TableFilter {
  column: string;
  value: string;
}

/** Metadata columns a filter may name beside the table's own. */
const FILTERABLE_METADATA: Column[] = [
  { name: '_source', type: 'text' },
  { name: '_query', type: 'text' },
];

export const MAX_FILTERS = 20;

/** The value as its column type's parameter, or why it is not one. */
function parse(type: ColumnType, raw: string): { value: string } | { problem: string } {
  switch (type) {
    case 'text':
      return { value: raw };
    case 'integer':
      return /^-?\d{1,18}$/.test(raw.trim()) ? { value: raw.trim() } : { problem: 'must be an integer' };
    case 'number':
      return raw.trim() !== '' && Number.isFinite(Number(raw)) ? { value: String(Number(raw)) } : { problem: 'must be a number' };
    case 'boolean':
      return raw === 'true' || raw === 'false' ? { value: raw } : { problem: 'must be true or false' };
    case 'timestamp': {
      const d = new Date(raw);
      return raw.trim() !== '' && !Number.isNaN(d.getTime()) ? { value: d.toISOString() } : { problem: 'must be a date or timestamp' };
    }
    case 'json':
      try {
        return { value: JSON.stringify(JSON.parse(raw)) };
      } catch {
        return { problem: 'must be a JSON value' };
      }
  }
}

/**
 * `AND`-ed conditions for `filters` over `columns`, numbering parameters from
 * `$<firstParam>`; problems name `filter.<column>`.
 */
export function filterClause(
  columns: Column[],
  filters: TableFilter[],
  firstParam: number,
): { sql: string[]; params: string[] } {
  if (filters.length > MAX_FILTERS) throw AppError.invalid('filter', `at most ${MAX_FILTERS} filters`);
  const known = new Map([...columns, ...FILTERABLE_METADATA].map((c) => [c.name, c]));
  const seen = new Set<string>();
  const sql: string[] = [];
  const params: string[] = [];
  for (const f of filters) {
    const field = `filter.${f.column}`;
    const col = known.get(f.column);
    if (!col)
      throw AppError.invalid(
        field,
        `the table has no column ${JSON.stringify(f.column)} (columns: ${[...known.keys()].join(', ')})`,
      );
    if (seen.has(f.column)) throw AppError.invalid(field, 'is given more than once');
    seen.add(f.column);
    const v = parse(col.type, f.value);
    if ('problem' in v) throw AppError.invalid(field, `${v.problem} (the column is ${col.type})`);
    params.push(v.value);
    sql.push(`${quoteIdent(col.name)} = $${firstParam + params.length - 1}::${SQL_TYPES[col.type]}`);
  }
  return { sql, params };
}
