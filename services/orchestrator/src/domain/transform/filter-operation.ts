/**
 * `filter`: keep the rows whose field satisfies `operator value`. Value
 * semantics are those of `@af/expr` conditions, so a playbook `condition` and
 * a filter agree: `eq` is the loose `==` (2 equals "2", null equals missing,
 * arrays/objects compare deeply), ordering compares numbers, numeric strings
 * and strings and is false for anything not comparable (so a missing field
 * never passes `gt`). Each `not_*`/`ne` operator is the exact complement of
 * its positive form, so a missing field passes `ne`, `not_in` and
 * `not_contains`.
 */
import { compareValues, contains, exists, isIn, looseEquals } from '@af/expr';
import { parseFieldPath, readField, type FieldPath } from './field-path.js';
import { checkKeys, has, oneOf, type RawOperation } from './operation-params.js';
import { TransformError } from './transform-error.js';

/** Every filter operator; the playbook seed's are eq, gt, lt, gte, lte, contains, in. */
export const FILTER_OPERATORS = [
  'eq',
  'ne',
  'gt',
  'gte',
  'lt',
  'lte',
  'contains',
  'not_contains',
  'in',
  'not_in',
  'exists',
  'starts_with',
  'ends_with',
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** A parsed `filter`; no `field` means the row itself (arrays of scalars). */
export interface FilterOperation {
  readonly type: 'filter';
  readonly field?: FieldPath;
  readonly operator: FilterOperator;
  readonly value: unknown;
}

/** Parses a raw `filter` operation found at `at`. */
export function parseFilter(op: RawOperation, at: string): FilterOperation {
  checkKeys(op, ['type', 'field', 'operator', 'value'], at, 'filter operation');
  const operator = oneOf(op.operator, FILTER_OPERATORS, `${at}.operator`, 'filter operator');
  checkValue(operator, op, `${at}.value`);
  const parsed: FilterOperation = { type: 'filter', operator, value: op.value };
  return has(op, 'field') ? { ...parsed, field: parseFieldPath(op.field, `${at}.field`) } : parsed;
}

function checkValue(operator: FilterOperator, op: RawOperation, at: string): void {
  const v = op.value;
  switch (operator) {
    case 'exists':
      if (v !== undefined && typeof v !== 'boolean') {
        throw new TransformError(
          at,
          'must be true (the field is present and not null) or false (it is missing or null)',
        );
      }
      return;
    case 'in':
    case 'not_in':
      if (!Array.isArray(v)) throw new TransformError(at, `must be an array of values for '${operator}'`);
      return;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      if (!(typeof v === 'number' && Number.isFinite(v)) && typeof v !== 'string') {
        throw new TransformError(at, `must be a number or a string to compare against for '${operator}'`);
      }
      return;
    case 'starts_with':
    case 'ends_with':
      if (typeof v !== 'string') throw new TransformError(at, `must be a string for '${operator}'`);
      return;
    default:
      // eq, ne, contains, not_contains: any value, including null, but it must be given.
      if (!has(op, 'value')) throw new TransformError(at, `is required for '${operator}'`);
  }
}

/** Whether a field value passes the filter. */
function test(f: FilterOperation, v: unknown): boolean {
  const value = f.value;
  switch (f.operator) {
    case 'eq':
      return looseEquals(v, value);
    case 'ne':
      return !looseEquals(v, value);
    case 'gt':
      return compareValues(v, value) > 0;
    case 'gte':
      return compareValues(v, value) >= 0;
    case 'lt':
      return compareValues(v, value) < 0;
    case 'lte':
      return compareValues(v, value) <= 0;
    case 'contains':
      return contains(v, value);
    case 'not_contains':
      return !contains(v, value);
    case 'in':
      return isIn(v, value);
    case 'not_in':
      return !isIn(v, value);
    case 'exists':
      return exists(v) === (value ?? true);
    case 'starts_with':
      return (typeof v === 'string' || typeof v === 'number') && String(v).startsWith(value as string);
    case 'ends_with':
      return (typeof v === 'string' || typeof v === 'number') && String(v).endsWith(value as string);
  }
}

/** The rows passing `f`, in their input order. */
export function applyFilter(rows: readonly unknown[], f: FilterOperation): unknown[] {
  return rows.filter((row) => test(f, readField(row, f.field)));
}
