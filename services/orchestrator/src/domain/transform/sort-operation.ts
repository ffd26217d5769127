/**
 * `sort`: a stable sort by one field in the total order of `value-order.ts`.
 * Rows without a value (missing, null, NaN) go last in both directions, and
 * rows with equal keys keep their input order — so sorting by a secondary key
 * first and the primary key second gives a multi-key sort.
 */
import { parseFieldPath, readField, type FieldPath } from './field-path.js';
import { checkKeys, has, oneOf, type RawOperation } from './operation-params.js';
import { NONE, compareSortKeys, sortKey } from './value-order.js';

export const SORT_DIRECTIONS = ['asc', 'desc'] as const;
export type SortDirection = (typeof SORT_DIRECTIONS)[number];

/** A parsed `sort`; no `field` sorts the rows themselves (arrays of scalars). */
export interface SortOperation {
  readonly type: 'sort';
  readonly field?: FieldPath;
  readonly direction: SortDirection;
}

/** Parses a raw `sort` operation found at `at`; `direction` defaults to `asc`. */
export function parseSort(op: RawOperation, at: string): SortOperation {
  checkKeys(op, ['type', 'field', 'direction'], at, 'sort operation');
  const direction = has(op, 'direction')
    ? oneOf(op.direction, SORT_DIRECTIONS, `${at}.direction`, 'sort direction')
    : 'asc';
  const parsed: SortOperation = { type: 'sort', direction };
  return has(op, 'field') ? { ...parsed, field: parseFieldPath(op.field, `${at}.field`) } : parsed;
}

/** The rows sorted by `s` (a new array; the input is not touched). */
export function applySort(rows: readonly unknown[], s: SortOperation): unknown[] {
  // Keys are computed once per row, not once per comparison.
  const keys = rows.map((row) => sortKey(readField(row, s.field)));
  const sign = s.direction === 'desc' ? -1 : 1;
  const order = rows.map((_, i) => i);
  order.sort((i, j) => {
    const a = keys[i]!;
    const b = keys[j]!;
    let c: number;
    if (a.rank === NONE || b.rank === NONE) c = (a.rank === NONE ? 1 : 0) - (b.rank === NONE ? 1 : 0);
    else c = sign * compareSortKeys(a, b);
    // Explicit index tie-break: stable whatever the engine's sort does.
    return c !== 0 ? c : i - j;
  });
  return order.map((i) => rows[i]);
}
