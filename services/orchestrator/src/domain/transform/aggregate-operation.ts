/**
 * `aggregate`: one output row per group (first-appearance order), or exactly
 * one row when there is no grouping — even for no input, so `count` is 0
 * rather than absent.
 *
 * Two spellings, never mixed in one operation:
 *   shorthand (what the playbook schema allows: field / operator / value)
 *     { type: aggregate, operator: sum, field: amount, value: category }
 *     → operator (default count) applied to `field`, grouped by `value`
 *       (a path or an array of paths); the metric is named after the operator.
 *   full
 *     { type: aggregate, group_by: [category, region],
 *       metrics: [{ operator: sum, field: amount, as: total }, { operator: count }] }
 *     → `metrics` defaults to [{ operator: count }]; `as` defaults to the operator.
 *
 * Metrics: count (rows; with a field, rows where it is not null), sum and avg
 * (finite numbers and numeric strings; others skipped; sum of nothing is 0,
 * avg of nothing is null), min and max (any non-null value, total order of
 * `value-order.ts`; null when none). Sums use compensated (Neumaier)
 * summation so long columns do not drift. Group values are written back under
 * their own path (`address.city` → `{ address: { city } }`); a missing group
 * value is null and groups with null and missing together.
 */
import {
  parseFieldPath,
  parseWritePath,
  readField,
  writeField,
  writePathsCollide,
  checkOutputName,
  type FieldPath,
  type WritePath,
} from './field-path.js';
import { checkKeys, has, isRecord, oneOf, type RawOperation } from './operation-params.js';
import { TransformError } from './transform-error.js';
import { canonicalKey, compareTotal, toFiniteNumber } from './value-order.js';

export const AGGREGATE_OPERATORS = ['count', 'sum', 'avg', 'min', 'max'] as const;
export type AggregateOperator = (typeof AGGREGATE_OPERATORS)[number];

/** One computed output field of an aggregate. */
export interface AggregateMetric {
  readonly operator: AggregateOperator;
  readonly field?: FieldPath;
  readonly as: string;
}

/** A parsed `aggregate`. */
export interface AggregateOperation {
  readonly type: 'aggregate';
  readonly groupBy: readonly WritePath[];
  readonly metrics: readonly AggregateMetric[];
}

const SHORTHAND_KEYS = ['field', 'operator', 'value'] as const;
const FULL_KEYS = ['group_by', 'metrics'] as const;

/** Parses a raw `aggregate` operation found at `at`. */
export function parseAggregate(op: RawOperation, at: string): AggregateOperation {
  checkKeys(op, ['type', ...SHORTHAND_KEYS, ...FULL_KEYS], at, 'aggregate operation');
  const full = FULL_KEYS.find((k) => has(op, k));
  const short = SHORTHAND_KEYS.find((k) => has(op, k));
  if (full && short) {
    throw new TransformError(
      `${at}.${full}`,
      `use either field/operator/value or group_by/metrics, not both ('${short}' is set too)`,
    );
  }
  let groupBy: WritePath[];
  let metrics: AggregateMetric[];
  if (full) {
    groupBy = parseGroupBy(op.group_by, `${at}.group_by`);
    metrics = has(op, 'metrics')
      ? parseMetrics(op.metrics, `${at}.metrics`)
      : [{ operator: 'count', as: 'count' }];
  } else {
    groupBy = parseGroupBy(op.value, `${at}.value`);
    metrics = [
      parseMetric(op.operator ?? 'count', op.field, undefined, {
        operator: `${at}.operator`,
        field: `${at}.field`,
        as: at,
      }),
    ];
  }
  checkCollisions(groupBy, metrics, at, full !== undefined);
  return { type: 'aggregate', groupBy, metrics };
}

function parseGroupBy(raw: unknown, at: string): WritePath[] {
  if (raw === undefined) return [];
  if (typeof raw === 'string') return [parseWritePath(raw, at)];
  if (!Array.isArray(raw))
    throw new TransformError(at, 'must be a field path or an array of field paths to group by');
  return raw.map((p, i) => parseWritePath(p, `${at}[${i}]`));
}

function parseMetrics(raw: unknown, at: string): AggregateMetric[] {
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new TransformError(at, 'must be a non-empty array of { operator, field?, as? }');
  }
  return raw.map((m, i) => {
    const mAt = `${at}[${i}]`;
    if (!isRecord(m)) throw new TransformError(mAt, 'must be an object { operator, field?, as? }');
    checkKeys(m, ['operator', 'field', 'as'], mAt, 'aggregate metric');
    return parseMetric(m.operator, m.field, m.as, {
      operator: `${mAt}.operator`,
      field: `${mAt}.field`,
      as: `${mAt}.as`,
    });
  });
}

function parseMetric(
  rawOp: unknown,
  rawField: unknown,
  rawAs: unknown,
  at: { operator: string; field: string; as: string },
): AggregateMetric {
  const operator = oneOf(rawOp, AGGREGATE_OPERATORS, at.operator, 'aggregate operator');
  if (rawField === undefined && operator !== 'count')
    throw new TransformError(at.field, `is required: the field to ${operator}`);
  const as = rawAs === undefined ? operator : rawAs;
  checkOutputName(as, at.as);
  const metric: AggregateMetric = { operator, as };
  return rawField === undefined ? metric : { ...metric, field: parseFieldPath(rawField, at.field) };
}

/** Output fields may not overwrite each other (`a` and `a.b`, or two metrics named `sum`). */
function checkCollisions(
  groupBy: readonly WritePath[],
  metrics: readonly AggregateMetric[],
  at: string,
  full: boolean,
): void {
  const targets = [
    ...groupBy.map((g, i) => ({
      names: g.names,
      text: g.text,
      at: full ? `${at}.group_by[${i}]` : `${at}.value`,
    })),
    ...metrics.map((m, i) => ({
      names: [m.as],
      text: m.as,
      at: full ? `${at}.metrics[${i}].as` : `${at}.operator`,
    })),
  ];
  for (let j = 1; j < targets.length; j++) {
    for (let i = 0; i < j; i++) {
      if (writePathsCollide(targets[i]!.names, targets[j]!.names)) {
        const hint = j >= groupBy.length ? " (set a distinct 'as')" : '';
        throw new TransformError(
          targets[j]!.at,
          `output field '${targets[j]!.text}' collides with '${targets[i]!.text}'${hint}`,
        );
      }
    }
  }
}

/** Running state of one metric in one group. */
interface Accumulator {
  n: number;
  sum: number;
  compensation: number;
  best: unknown;
}

function add(m: AggregateMetric, acc: Accumulator, row: unknown): void {
  if (m.operator === 'count') {
    if (m.field === undefined) acc.n++;
    else {
      const v = readField(row, m.field);
      if (v !== undefined && v !== null) acc.n++;
    }
    return;
  }
  const v = readField(row, m.field);
  if (m.operator === 'sum' || m.operator === 'avg') {
    const x = toFiniteNumber(v);
    if (x === undefined) return;
    // Neumaier: carry the low-order bits lost by each addition.
    const t = acc.sum + x;
    acc.compensation += Math.abs(acc.sum) >= Math.abs(x) ? acc.sum - t + x : x - t + acc.sum;
    acc.sum = t;
    acc.n++;
    return;
  }
  if (v === undefined || v === null || (typeof v === 'number' && Number.isNaN(v))) return;
  if (acc.n === 0) acc.best = v;
  else {
    const c = compareTotal(v, acc.best);
    if (m.operator === 'min' ? c < 0 : c > 0) acc.best = v;
  }
  acc.n++;
}

function result(m: AggregateMetric, acc: Accumulator): unknown {
  switch (m.operator) {
    case 'count':
      return acc.n;
    case 'sum':
      return acc.sum + acc.compensation;
    case 'avg':
      return acc.n === 0 ? null : (acc.sum + acc.compensation) / acc.n;
    default:
      return acc.n === 0 ? null : acc.best;
  }
}

/** One row per group, in the order each group first appears. */
export function applyAggregate(rows: readonly unknown[], a: AggregateOperation): unknown[] {
  const groups = new Map<string, { values: unknown[]; accs: Accumulator[] }>();
  const open = (values: unknown[]) => ({
    values,
    accs: a.metrics.map(() => ({ n: 0, sum: 0, compensation: 0, best: null })),
  });
  for (const row of rows) {
    const values = a.groupBy.map((g) => readField(row, g.read) ?? null);
    const key = a.groupBy.length === 0 ? '' : canonicalKey(values);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = open(values)));
    a.metrics.forEach((m, i) => add(m, group.accs[i]!, row));
  }
  if (a.groupBy.length === 0 && groups.size === 0) groups.set('', open([]));
  return [...groups.values()].map((group) => {
    const out: Record<string, unknown> = {};
    a.groupBy.forEach((g, i) => writeField(out, g.names, group.values[i]));
    a.metrics.forEach((m, i) => (out[m.as] = result(m, group.accs[i]!)));
    return out;
  });
}
