/**
 * The columns of a workspace table: declared by a `schema_mapping`
 * (`{column: type}`) or inferred from the rows' shape, checked against the
 * table that exists (a changed type is refused, never silently converted),
 * and the values of each row checked against them.
 */
import { identifierProblem } from './identifiers.js';

import { COLUMN_TYPES, columnsFromMapping, type Column, type ColumnType } from '@af/plan';

// The mapping parser is shared with playbook validation (@af/plan), so a config refused there is refused here too.
export { COLUMN_TYPES, columnsFromMapping, type Column, type ColumnType };

/** The SQL type of each column type. */
export const SQL_TYPES: Record<ColumnType, string> = {
  text: 'text',
  integer: 'bigint',
  number: 'double precision',
  boolean: 'boolean',
  timestamp: 'timestamptz',
  json: 'jsonb',
};

/** Metadata columns every workspace table has (names users cannot take: they start with `_`). */
export const METADATA_COLUMNS = ['_source', '_query', '_timestamp'] as const;

export interface Problem {
  field: string;
  reason: string;
}

/** The type a value suggests; undefined for null (says nothing). */
export function typeOfValue(v: unknown): ColumnType | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'string')
    return /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) ? 'timestamp' : 'text';
  return 'json';
}

/** Widening two suggestions: integer+number → number, anything else mixed → text (json stays json only with json). */
function widen(a: ColumnType | undefined, b: ColumnType | undefined): ColumnType | undefined {
  if (!a) return b;
  if (!b || a === b) return a;
  if ((a === 'integer' && b === 'number') || (a === 'number' && b === 'integer')) return 'number';
  if (a === 'json' || b === 'json') return 'json';
  return 'text';
}

/** Columns inferred from the rows' keys in first-seen order; keys that are not valid identifiers are problems. */
export function inferColumns(
  rows: Record<string, unknown>[],
  field: string,
): { columns: Column[]; problems: Problem[] } {
  const types = new Map<string, ColumnType | undefined>();
  const problems: Problem[] = [];
  rows.forEach((row, i) => {
    for (const [key, value] of Object.entries(row)) {
      if (!types.has(key)) {
        const bad = identifierProblem(key);
        if (bad) {
          if (!problems.some((p) => p.reason.includes(JSON.stringify(key))))
            problems.push({ field: `${field}[${i}].${key}`, reason: bad });
          continue;
        }
      }
      types.set(key, widen(types.get(key), typeOfValue(value)));
    }
  });
  return {
    columns: [...types]
      .filter(([k]) => !identifierProblem(k))
      .map(([name, type]) => ({ name, type: type ?? 'text' })),
    problems,
  };
}

/**
 * Compares the wanted columns with the existing table's: a type change is a
 * problem; new columns are added (returned in `added`).
 */
export function reconcileColumns(
  existing: Column[],
  wanted: Column[],
  field: string,
): { added: Column[]; problems: Problem[] } {
  const have = new Map(existing.map((c) => [c.name, c.type]));
  const added: Column[] = [];
  const problems: Problem[] = [];
  for (const c of wanted) {
    const t = have.get(c.name);
    if (t === undefined) added.push(c);
    else if (t !== c.type)
      problems.push({
        field: `${field}.${c.name}`,
        reason: `column ${c.name} is ${t} in the existing table; changing it to ${c.type} is refused`,
      });
  }
  return { added, problems };
}

/** A row's value for a column as a SQL parameter, or a problem when it does not fit the type. */
export function columnValue(col: Column, v: unknown): { value: unknown } | { problem: string } {
  if (v === null || v === undefined) return { value: null };
  switch (col.type) {
    case 'text':
      return { value: typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v) };
    case 'integer': {
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
      return typeof n === 'number' && Number.isSafeInteger(n)
        ? { value: n }
        : { problem: `${JSON.stringify(v)} is not an integer` };
    }
    case 'number': {
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
      return typeof n === 'number' && Number.isFinite(n)
        ? { value: n }
        : { problem: `${JSON.stringify(v)} is not a number` };
    }
    case 'boolean':
      if (typeof v === 'boolean') return { value: v };
      if (v === 'true' || v === 'false') return { value: v === 'true' };
      return { problem: `${JSON.stringify(v)} is not a boolean` };
    case 'timestamp': {
      const d = typeof v === 'string' || typeof v === 'number' ? new Date(v) : undefined;
      return d && !Number.isNaN(d.getTime())
        ? { value: d.toISOString() }
        : { problem: `${JSON.stringify(v)} is not a date` };
    }
    case 'json':
      return { value: JSON.stringify(v) };
  }
}

/**
 * Rows with the same upsert key collapsed to the last one (a single
 * `INSERT … ON CONFLICT DO UPDATE` may not touch a row twice); order kept
 * by each key's last occurrence.
 */
export function lastPerKey(rows: Record<string, unknown>[], key: string): Record<string, unknown>[] {
  const byKey = new Map<string, Record<string, unknown>>();
  rows.forEach((r, i) => {
    const k = r[key] === null || r[key] === undefined ? `\u0000row${i}` : JSON.stringify(r[key]);
    byKey.delete(k);
    byKey.set(k, r);
  });
  return [...byKey.values()];
}
