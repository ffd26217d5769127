/** The in-process `transform_data` action; see transform-data.ts for the operation shapes. */
export { transformData, type TransformDataOutput } from './transform-data.js';
export { TransformError } from './transform-error.js';
export {
  applyTransformOperation,
  parseTransformOperations,
  TRANSFORM_OPERATION_TYPES,
  type TransformOperation,
  type TransformOperationType,
} from './transform-operation.js';
export { FILTER_OPERATORS, type FilterOperation, type FilterOperator } from './filter-operation.js';
export { SORT_DIRECTIONS, type SortDirection, type SortOperation } from './sort-operation.js';
export {
  AGGREGATE_OPERATORS,
  type AggregateMetric,
  type AggregateOperation,
  type AggregateOperator,
} from './aggregate-operation.js';
export type { DeduplicateOperation, LimitOperation, MapOperation } from './row-operations.js';
export type { FieldPath, WritePath } from './field-path.js';
