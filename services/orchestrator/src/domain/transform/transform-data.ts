/**
 * `transform_data` — the in-process built-in action (seed
 * agent-factory-architecture.md §5 "Action I/O registry"; contract in
 * `@af/plan` builtin-actions-core.data.ts). Pure: no I/O, no clock, no
 * randomness; inputs are never mutated (output rows of filter/sort/
 * deduplicate/limit are the input row objects, not copies).
 *
 *   inputs.data        record[] — or a record set `{ results: [...] }`, or the
 *                      `{ data: [...] }` output of another transform_data
 *   params.operations  operations applied in order (absent: data passes through)
 *   output             `{ data: record[], count: data.length }`
 *
 * Operations. The playbook compiler copies a step's `operations` verbatim into
 * `params.operations`, so the playbook keys (type / field / operator / value /
 * direction) are read as written; a key the operation does not read (a
 * `direction` on a filter) is rejected rather than ignored. Extra keys
 * (`fields`, `group_by`, `metrics`, `mapping`, `n`) serve other front-ends.
 *
 *   filter       { field?, operator, value }  operators: eq ne gt gte lt lte
 *                contains not_contains in not_in exists starts_with ends_with
 *                (value: array for in/not_in; number|string for gt…lte;
 *                boolean or absent for exists; string for starts/ends_with)
 *   sort         { field?, direction?: asc|desc }  stable, missing/null last
 *   aggregate    { field?, operator?: count|sum|avg|min|max, value?: group path(s) }
 *                or { group_by?: path | path[], metrics?: [{ operator, field?, as? }] }
 *   deduplicate  { field? | fields?: path[] }   keeps the first row per key
 *   limit        { value: n } (or { n })       first n rows, n ≥ 0 integer
 *   map          { mapping: { outName: path } } pick/rename; missing → null
 *
 * `field` is a path such as `score`, `address.city`, `tags[0]`,
 * `authors[*].name`; without one, the operation looks at the row itself
 * (for arrays of scalars). Each module documents its value semantics.
 * Any bad input or param throws {@link TransformError} (INVALID_ARGUMENT) with
 * the field path and reason; all operations are parsed before any runs.
 */
import { isRecord } from './operation-params.js';
import { TransformError } from './transform-error.js';
import { applyTransformOperation, parseTransformOperations } from './transform-operation.js';

/** What `transform_data` returns (a type alias, so it is also a `Record<string, unknown>`). */
export type TransformDataOutput = { data: unknown[]; count: number };

/**
 * Runs `params.operations` over `inputs.data` and returns `{ data, count }`.
 * @throws TransformError on a bad `inputs.data` or operation
 */
export function transformData(
  inputs: Record<string, unknown>,
  params: Record<string, unknown>,
): TransformDataOutput {
  const operations = parseTransformOperations(params ?? {});
  let rows: unknown[] = readRows(inputs);
  for (const op of operations) rows = applyTransformOperation(rows, op);
  return { data: rows, count: rows.length };
}

/** The rows of `inputs.data`: an array, or the array inside a record set / transform output. */
function readRows(inputs: Record<string, unknown>): unknown[] {
  const data =
    isRecord(inputs) && Object.prototype.hasOwnProperty.call(inputs, 'data') ? inputs.data : undefined;
  if (Array.isArray(data)) return data;
  if (isRecord(data)) {
    for (const key of ['results', 'data']) {
      if (Object.prototype.hasOwnProperty.call(data, key) && Array.isArray(data[key]))
        return data[key] as unknown[];
    }
  }
  const got =
    data === undefined
      ? 'nothing'
      : data === null
        ? 'null'
        : isRecord(data)
          ? 'an object without a results array'
          : `a ${typeof data}`;
  throw new TransformError(
    'inputs.data',
    `is required: an array of records or a record set { results: [...] }, got ${got}`,
  );
}
