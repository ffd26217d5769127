/**
 * The small type language of action I/O contracts (seed §5 "Built-In Action
 * I/O Registry"): scalars (`string`, `number`, `integer`, `boolean`, `date`),
 * `object`, `any`, record-like names (`record`, `entity`, `document`, …),
 * arrays (`entity[]`), and `record_set` (a connector envelope whose records are
 * under `.results`).
 */

/** Type and shape of one input, param or output field. */
export interface FieldSpec {
  /** `string`, `number`, `integer`, `boolean`, `date`, `object`, `any`, a record name, `T[]`, or `record_set`. */
  type: string;
  description?: string;
  /** Inputs only: must be wired (seed: "(required)"). */
  required?: boolean;
  default?: unknown;
  /**
   * Fields of the record (or of each record of an array / the envelope of a
   * record_set). Absent = open: any field may be referenced and is `any`.
   */
  fields?: Record<string, FieldSpec>;
}

export const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'date']);

/** Names of record-shaped types used by the built-in contracts. */
export const RECORD_TYPES = new Set([
  'record',
  'object',
  'entity',
  'relationship',
  'document',
  'web_result',
  'match',
  'file_ref',
  'change_event',
  'post',
  'journal_entry',
  'todo',
]);

/** `entity[]` → `entity`; `string` → undefined. */
export function elementType(type: string): string | undefined {
  return type.endsWith('[]') ? type.slice(0, -2) : undefined;
}

export function isArrayType(type: string): boolean {
  return type.endsWith('[]');
}

export function isRecordType(type: string): boolean {
  return RECORD_TYPES.has(type);
}

/** Outcome of wiring a value of type `from` into a slot of type `to`. */
export type Compatibility =
  | { kind: 'exact' }
  | { kind: 'coerce'; reason: string; suggestion?: 'results' }
  | { kind: 'mismatch' };

/**
 * Compatibility per seed §5 rule 2. Exact matches, `integer → number`,
 * `date → string`, a specific record type into a generic one (`entity[]` →
 * `record[]`) and anything involving `any` are exact; the seed's coercions
 * (`string → string[]`, `record_set → record[]` via `.results`) and lossy
 * conversions (`number → string`, `string → date`, `record[]` → `entity[]`)
 * are loose (a warning); everything else is a mismatch (an error).
 */
export function compatibility(from: string, to: string): Compatibility {
  if (from === to || from === 'any' || to === 'any') return { kind: 'exact' };
  const fromEl = elementType(from);
  const toEl = elementType(to);
  if (fromEl !== undefined && toEl !== undefined) {
    const inner = compatibility(fromEl, toEl);
    if (inner.kind === 'coerce' && isArrayType(fromEl) !== isArrayType(toEl)) return { kind: 'mismatch' };
    return inner.kind === 'coerce' ? { kind: 'coerce', reason: `each element: ${inner.reason}` } : inner;
  }
  if (to === 'number' && from === 'integer') return { kind: 'exact' };
  if (to === 'string' && from === 'date') return { kind: 'exact' };
  if (isRecordType(from) && isRecordType(to)) {
    if (to === 'record' || to === 'object' || from === 'object') return { kind: 'exact' };
    if (from === 'record') return { kind: 'coerce', reason: `a generic record is read as ${to}` };
    return { kind: 'mismatch' };
  }
  if (from === 'record_set') {
    if (toEl !== undefined && isRecordType(toEl)) {
      return { kind: 'coerce', reason: `a record_set is passed as ${to} through its .results`, suggestion: 'results' };
    }
    if (to === 'object' || to === 'record') return { kind: 'exact' };
    return { kind: 'mismatch' };
  }
  if (toEl !== undefined && fromEl === undefined) {
    // Seed: `string → string[]` (single element); generalised to any element type.
    const inner = compatibility(from, toEl);
    if (inner.kind === 'mismatch') return inner;
    return { kind: 'coerce', reason: `a single ${from} is wrapped as a one-element ${to}` };
  }
  if (to === 'string' && SCALAR_TYPES.has(from)) return { kind: 'coerce', reason: `${from} is converted to string` };
  if (to === 'date' && from === 'string') return { kind: 'coerce', reason: 'a string is parsed as a date' };
  if (to === 'integer' && from === 'number') return { kind: 'coerce', reason: 'a number is truncated to an integer' };
  return { kind: 'mismatch' };
}

/** The contract type of a literal value written in a document. */
export function literalType(value: unknown): string {
  if (value === null || value === undefined) return 'any';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (Array.isArray(value)) {
    if (value.length === 0) return 'any[]';
    const first = literalType(value[0]);
    return value.every((v) => literalType(v) === first) ? `${first}[]` : 'any[]';
  }
  if (value instanceof Date) return 'date';
  return 'object';
}
