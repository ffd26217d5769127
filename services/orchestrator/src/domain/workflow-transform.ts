/**
 * `transform` nodes compiled from workflow_steps (seed
 * workflow-orchestrator-design.md, StepExecutor.executeTransform and the
 * `conditional` step type). The compiler puts the step's params in the node's
 * inputs: `{ operation, input, config }`. `config` templates are evaluated per
 * item with `{{current}}` / `{{index}}` bound, so the engine hands them over
 * unresolved. Pure: no I/O, no clock.
 *
 *   map     config.mapping  any JSON template, e.g. `{ email: '{{current.from}}' }`
 *   filter  config.condition  condition object / expression string / JSON-Logic, per item
 *   reduce  config.reducer  sum | count | min | max | avg | concat, config.field?, config.initialValue?
 *   sort    config.field?, config.order?: asc | desc (stable; missing values last)
 *   group   config.field  → `{ [value]: item[] }`
 *
 * `input` is an array, or a record set `{results: [...]}` / `{data: [...]}`.
 * Output is the transformed value itself (the seed's step `data`).
 */
import { compileCondition, ExprError, interpolate, type Scope } from '@af/expr';
import { parseFieldPath, readField, type FieldPath } from './transform/field-path.js';
import { TransformError } from './transform/transform-error.js';
import { compareTotal, toFiniteNumber } from './transform/value-order.js';

export const WORKFLOW_TRANSFORM_OPERATIONS = ['map', 'filter', 'reduce', 'sort', 'group'] as const;
export type WorkflowTransformOperation = (typeof WORKFLOW_TRANSFORM_OPERATIONS)[number];
export const REDUCERS = ['sum', 'count', 'min', 'max', 'avg', 'concat'] as const;

/**
 * Runs the seed transform `operation` over `input`. `scope` is what config
 * templates and conditions see besides `current` / `index`.
 * @throws TransformError naming the `inputs.…` field at fault
 */
export function runWorkflowTransform(operation: unknown, input: unknown, config: unknown, scope: Scope): unknown {
  if (typeof operation !== 'string' || !(WORKFLOW_TRANSFORM_OPERATIONS as readonly string[]).includes(operation)) {
    throw new TransformError('inputs.operation', `must be one of ${WORKFLOW_TRANSFORM_OPERATIONS.join(', ')}, got ${describe(operation)}`);
  }
  if (config !== undefined && (config === null || typeof config !== 'object' || Array.isArray(config))) {
    throw new TransformError('inputs.config', `must be an object, got ${describe(config)}`);
  }
  const cfg = (config ?? {}) as Record<string, unknown>;
  const rows = readRows(input);
  switch (operation as WorkflowTransformOperation) {
    case 'map':
      return mapRows(rows, cfg, scope);
    case 'filter':
      return filterRows(rows, cfg, scope);
    case 'reduce':
      return reduceRows(rows, cfg);
    case 'sort':
      return sortRows(rows, cfg);
    case 'group':
      return groupRows(rows, cfg);
  }
}

/** `conditional` steps (`transform` action `evaluate_condition`): `{ result }` of the step's condition. */
export function evaluateCondition(condition: unknown, dialect: unknown, scope: Scope): { result: boolean } {
  if (condition === undefined || condition === null || condition === '') throw new TransformError('params.condition', 'is required');
  const d = dialect === undefined ? (typeof condition === 'string' ? 'playbook' : 'object') : dialect;
  if (d !== 'playbook' && d !== 'object' && d !== 'jsonlogic' && d !== 'dsl') {
    throw new TransformError('params.conditionDialect', `must be playbook, object, jsonlogic or dsl, got ${describe(dialect)}`);
  }
  let compiled: (s: Scope) => boolean;
  try {
    compiled = compileCondition(condition as never, { dialect: d });
  } catch (err) {
    throw new TransformError('params.condition', `invalid condition: ${(err as Error).message}`);
  }
  try {
    return { result: compiled(scope) };
  } catch (err) {
    throw new TransformError('params.condition', (err as Error).message);
  }
}

function readRows(input: unknown): unknown[] {
  if (Array.isArray(input)) return input;
  if (input && typeof input === 'object') {
    const o = input as Record<string, unknown>;
    for (const key of ['results', 'data']) if (Array.isArray(o[key])) return o[key] as unknown[];
  }
  throw new TransformError('inputs.input', `must be an array (or a record set {results: [...]}), got ${describe(input)}`);
}

const itemScope = (scope: Scope, current: unknown, index: number): Scope => ({ ...scope, current, index });

function mapRows(rows: unknown[], cfg: Record<string, unknown>, scope: Scope): unknown[] {
  if (cfg.mapping === undefined) throw new TransformError('inputs.config.mapping', 'is required: the template each item is mapped to, e.g. { "email": "{{current.from}}" }');
  return rows.map((row, i) => {
    try {
      // Seed: a field an item lacks reads as empty rather than failing the whole step.
      return interpolate(cfg.mapping, itemScope(scope, row, i), { lenient: true });
    } catch (err) {
      if (err instanceof ExprError) throw new TransformError('inputs.config.mapping', `item ${i}: ${err.message}`);
      throw err;
    }
  });
}

function filterRows(rows: unknown[], cfg: Record<string, unknown>, scope: Scope): unknown[] {
  const source = cfg.condition;
  if (source === undefined || source === null || source === '') {
    throw new TransformError('inputs.config.condition', 'is required: a condition over {{current}}, e.g. { "field": "current.score", "operator": ">", "value": 70 }');
  }
  let compiled: (s: Scope) => boolean;
  try {
    compiled = compileCondition(source as never, { dialect: 'object' });
  } catch (err) {
    throw new TransformError('inputs.config.condition', `invalid condition: ${(err as Error).message}`);
  }
  return rows.filter((row, i) => {
    try {
      return compiled(itemScope(scope, row, i));
    } catch (err) {
      throw new TransformError('inputs.config.condition', `item ${i}: ${(err as Error).message}`);
    }
  });
}

function optionalPath(cfg: Record<string, unknown>, at: string): FieldPath | undefined {
  return cfg.field === undefined ? undefined : parseFieldPath(cfg.field, at);
}

function reduceRows(rows: unknown[], cfg: Record<string, unknown>): unknown {
  const reducer = cfg.reducer;
  if (typeof reducer !== 'string' || !(REDUCERS as readonly string[]).includes(reducer)) {
    throw new TransformError('inputs.config.reducer', `must be one of ${REDUCERS.join(', ')}, got ${describe(reducer)}`);
  }
  const path = optionalPath(cfg, 'inputs.config.field');
  const values = rows.map((r) => readField(r, path));
  const initial = cfg.initialValue;
  const numbers = () =>
    values.map((v, i) => {
      const n = toFiniteNumber(v);
      if (n === undefined) throw new TransformError('inputs.config.field', `item ${i}: ${reducer} needs numbers, got ${describe(v)}`);
      return n;
    });
  switch (reducer) {
    case 'count':
      return values.filter((v) => v !== undefined && v !== null).length + (typeof initial === 'number' ? initial : 0);
    case 'sum': {
      if (initial !== undefined && typeof initial !== 'number') throw new TransformError('inputs.config.initialValue', `must be a number for sum, got ${describe(initial)}`);
      return numbers().reduce((a, b) => a + b, initial ?? 0);
    }
    case 'avg': {
      const ns = numbers();
      return ns.length ? ns.reduce((a, b) => a + b, 0) / ns.length : null;
    }
    case 'min':
    case 'max': {
      const present = values.filter((v) => v !== undefined && v !== null);
      if (!present.length) return initial ?? null;
      const sorted = [...present].sort(compareTotal);
      return reducer === 'min' ? sorted[0] : sorted[sorted.length - 1];
    }
    case 'concat': {
      if (initial !== undefined && !Array.isArray(initial)) throw new TransformError('inputs.config.initialValue', `must be an array for concat, got ${describe(initial)}`);
      return values.reduce<unknown[]>((acc, v) => acc.concat(Array.isArray(v) ? v : [v]), [...((initial as unknown[] | undefined) ?? [])]);
    }
  }
  return null;
}

function sortRows(rows: unknown[], cfg: Record<string, unknown>): unknown[] {
  const path = optionalPath(cfg, 'inputs.config.field');
  const order = cfg.order ?? 'asc';
  if (order !== 'asc' && order !== 'desc') throw new TransformError('inputs.config.order', `must be asc or desc, got ${describe(order)}`);
  const sign = order === 'desc' ? -1 : 1;
  const keyed = rows.map((row, i) => ({ row, i, v: readField(row, path) }));
  keyed.sort((a, b) => {
    const am = a.v === undefined || a.v === null;
    const bm = b.v === undefined || b.v === null;
    if (am !== bm) return am ? 1 : -1;
    return sign * compareTotal(a.v, b.v) || a.i - b.i;
  });
  return keyed.map((k) => k.row);
}

function groupRows(rows: unknown[], cfg: Record<string, unknown>): Record<string, unknown[]> {
  if (cfg.field === undefined) throw new TransformError('inputs.config.field', 'is required: the field to group by');
  const path = parseFieldPath(cfg.field, 'inputs.config.field');
  const out: Record<string, unknown[]> = Object.create(null) as Record<string, unknown[]>;
  for (const row of rows) {
    const v = readField(row, path);
    const key = v === undefined || v === null ? 'null' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    (out[key] ??= []).push(row);
  }
  return { ...out };
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `'${v.length > 40 ? `${v.slice(0, 40)}…` : v}'`;
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}
