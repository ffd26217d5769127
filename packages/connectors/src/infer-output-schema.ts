/**
 * Infers a seed `output_schema` (`{type: record_set, fields: [{name, type}]}`)
 * from sample records, for `TestConnector` and `af connector test`. Pure.
 *
 * A field's type is the one type every non-null sample agrees on (integers
 * widen to number; ISO dates are `date`; lists are `<item type>[]`); samples
 * that disagree give `string` only when all are strings, else the field is
 * typed by its most general kind (`object`). Fields come in first-seen order.
 */

export interface InferredField {
  name: string;
  type: string;
  /** Share of records (0–1) where the field is present and not null. */
  presence: number;
}

export interface InferredOutputSchema {
  type: 'record_set';
  fields: InferredField[];
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

export function inferOutputSchema(records: readonly unknown[]): InferredOutputSchema {
  const types = new Map<string, Set<string>>();
  const present = new Map<string, number>();
  let count = 0;
  for (const record of records) {
    if (typeof record !== 'object' || record === null || Array.isArray(record)) continue;
    count++;
    for (const [name, value] of Object.entries(record)) {
      if (!types.has(name)) types.set(name, new Set());
      if (value === null || value === undefined) continue;
      types.get(name)!.add(typeOf(value));
      present.set(name, (present.get(name) ?? 0) + 1);
    }
  }
  const fields = [...types.entries()].map(([name, seen]) => ({
    name,
    type: unify(seen),
    presence: count === 0 ? 0 : Math.round(((present.get(name) ?? 0) / count) * 1000) / 1000,
  }));
  return { type: 'record_set', fields };
}

function typeOf(value: unknown): string {
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'string') return ISO_DATE.test(value) ? 'date' : 'string';
  if (Array.isArray(value)) {
    const items = new Set(value.filter((v) => v !== null && v !== undefined).map(typeOf));
    return items.size === 0 ? 'array' : `${unify(items)}[]`;
  }
  return 'object';
}

function unify(input: Set<string>): string {
  // An empty list fits any typed list.
  const seen = [...input].some((t) => t.endsWith('[]')) ? new Set([...input].filter((t) => t !== 'array')) : input;
  if (seen.size === 0) return 'string';
  if (seen.size === 1) return [...seen][0]!;
  const all = [...seen];
  if (all.every((t) => t === 'integer' || t === 'number')) return 'number';
  if (all.every((t) => t === 'string' || t === 'date')) return 'string';
  if (all.every((t) => t.endsWith('[]') || t === 'array')) return 'array';
  return 'object';
}
