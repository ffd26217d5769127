/**
 * Operations that pick rows or reshape them without looking at other rows'
 * values beyond equality: `deduplicate` (keep the first row of each key),
 * `limit` (the first n rows) and `map` (project each row onto new names).
 */
import { checkOutputName, parseFieldPath, readField, type FieldPath } from './field-path.js';
import { checkKeys, has, isRecord, keyPath, type RawOperation } from './operation-params.js';
import { TransformError } from './transform-error.js';
import { canonicalKey } from './value-order.js';

/** A parsed `deduplicate`; no fields means whole-row equality. */
export interface DeduplicateOperation {
  readonly type: 'deduplicate';
  readonly fields: readonly FieldPath[];
}

/** A parsed `limit`. */
export interface LimitOperation {
  readonly type: 'limit';
  readonly n: number;
}

/** A parsed `map`: output name → where to read it. */
export interface MapOperation {
  readonly type: 'map';
  readonly mapping: ReadonlyArray<readonly [string, FieldPath]>;
}

/** `deduplicate` takes `field` (one path) or `fields` (several), or neither. */
export function parseDeduplicate(op: RawOperation, at: string): DeduplicateOperation {
  checkKeys(op, ['type', 'field', 'fields'], at, 'deduplicate operation');
  if (has(op, 'field') && has(op, 'fields'))
    throw new TransformError(`${at}.fields`, "give either 'field' or 'fields', not both");
  if (has(op, 'field')) return { type: 'deduplicate', fields: [parseFieldPath(op.field, `${at}.field`)] };
  if (!has(op, 'fields')) return { type: 'deduplicate', fields: [] };
  const raw = op.fields;
  if (!Array.isArray(raw) || raw.length === 0)
    throw new TransformError(`${at}.fields`, 'must be a non-empty array of field paths');
  return { type: 'deduplicate', fields: raw.map((f, i) => parseFieldPath(f, `${at}.fields[${i}]`)) };
}

/** `limit` takes the count as `value` (the playbook field) or `n`. */
export function parseLimit(op: RawOperation, at: string): LimitOperation {
  checkKeys(op, ['type', 'value', 'n'], at, 'limit operation');
  if (has(op, 'value') && has(op, 'n'))
    throw new TransformError(`${at}.n`, "give either 'value' or 'n', not both");
  const key = has(op, 'n') ? 'n' : 'value';
  const n = op[key];
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) {
    throw new TransformError(
      `${at}.${key}`,
      `must be a non-negative integer (the number of rows to keep), got ${JSON.stringify(n) ?? String(n)}`,
    );
  }
  return { type: 'limit', n };
}

/** `map` takes `mapping`: an object of output name → field path. */
export function parseMap(op: RawOperation, at: string): MapOperation {
  checkKeys(op, ['type', 'mapping'], at, 'map operation');
  const raw = op.mapping;
  const where = `${at}.mapping`;
  if (!isRecord(raw) || Object.keys(raw).length === 0) {
    throw new TransformError(
      where,
      'must be a non-empty object of output field → field path, e.g. { "email": "contact.email" }',
    );
  }
  const mapping = Object.keys(raw).map((name) => {
    const fieldAt = keyPath(where, name);
    checkOutputName(name, fieldAt);
    return [name, parseFieldPath(raw[name], fieldAt)] as const;
  });
  return { type: 'map', mapping };
}

/** The first row of each distinct key, in input order. */
export function applyDeduplicate(rows: readonly unknown[], d: DeduplicateOperation): unknown[] {
  const seen = new Set<string>();
  const keyOf =
    d.fields.length === 0
      ? (row: unknown) => canonicalKey(row)
      : d.fields.length === 1
        ? (row: unknown) => canonicalKey(readField(row, d.fields[0]))
        : (row: unknown) => canonicalKey(d.fields.map((f) => readField(row, f)));
  return rows.filter((row) => {
    const key = keyOf(row);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The first `n` rows. */
export function applyLimit(rows: readonly unknown[], l: LimitOperation): unknown[] {
  return rows.slice(0, l.n);
}

/** Each row projected onto the mapping; a missing path becomes `null` so every row has every field. */
export function applyMap(rows: readonly unknown[], m: MapOperation): unknown[] {
  return rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const [name, path] of m.mapping) {
      const v = readField(row, path);
      out[name] = v === undefined ? null : v;
    }
    return out;
  });
}
