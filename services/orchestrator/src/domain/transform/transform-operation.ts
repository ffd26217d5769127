/**
 * `params.operations` of `transform_data`: parsed in full before any row is
 * touched (a bad third operation fails the node before the first one runs),
 * then applied one after another.
 */
import { applyAggregate, parseAggregate, type AggregateOperation } from './aggregate-operation.js';
import { applyFilter, parseFilter, type FilterOperation } from './filter-operation.js';
import { isRecord, oneOf } from './operation-params.js';
import {
  applyDeduplicate,
  applyLimit,
  applyMap,
  parseDeduplicate,
  parseLimit,
  parseMap,
  type DeduplicateOperation,
  type LimitOperation,
  type MapOperation,
} from './row-operations.js';
import { applySort, parseSort, type SortOperation } from './sort-operation.js';
import { TransformError } from './transform-error.js';

/** Operation types; the first five are the playbook seed's, `map` comes from the workflow seed. */
export const TRANSFORM_OPERATION_TYPES = [
  'filter',
  'sort',
  'aggregate',
  'deduplicate',
  'limit',
  'map',
] as const;
export type TransformOperationType = (typeof TRANSFORM_OPERATION_TYPES)[number];

/** One parsed, validated operation. */
export type TransformOperation =
  FilterOperation | SortOperation | AggregateOperation | DeduplicateOperation | LimitOperation | MapOperation;

/**
 * Parses `params.operations` (absent means none). Throws a
 * {@link TransformError} naming the first bad key, e.g.
 * `params.operations[2].operator`.
 */
export function parseTransformOperations(params: Readonly<Record<string, unknown>>): TransformOperation[] {
  if (!isRecord(params)) throw new TransformError('params', 'must be an object');
  const raw = Object.prototype.hasOwnProperty.call(params, 'operations') ? params.operations : undefined;
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new TransformError('params.operations', 'must be an array of operations');
  return raw.map((op, i) => parseOperation(op, `params.operations[${i}]`));
}

function parseOperation(op: unknown, at: string): TransformOperation {
  if (!isRecord(op))
    throw new TransformError(at, `must be an object with a type (${TRANSFORM_OPERATION_TYPES.join(', ')})`);
  const type = oneOf(op.type, TRANSFORM_OPERATION_TYPES, `${at}.type`, 'operation type');
  switch (type) {
    case 'filter':
      return parseFilter(op, at);
    case 'sort':
      return parseSort(op, at);
    case 'aggregate':
      return parseAggregate(op, at);
    case 'deduplicate':
      return parseDeduplicate(op, at);
    case 'limit':
      return parseLimit(op, at);
    case 'map':
      return parseMap(op, at);
  }
}

/** Applies one operation; returns a new array and never mutates `rows` or its elements. */
export function applyTransformOperation(rows: readonly unknown[], op: TransformOperation): unknown[] {
  switch (op.type) {
    case 'filter':
      return applyFilter(rows, op);
    case 'sort':
      return applySort(rows, op);
    case 'aggregate':
      return applyAggregate(rows, op);
    case 'deduplicate':
      return applyDeduplicate(rows, op);
    case 'limit':
      return applyLimit(rows, op);
    case 'map':
      return applyMap(rows, op);
  }
}
