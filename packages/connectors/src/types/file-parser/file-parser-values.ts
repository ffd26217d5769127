/**
 * Typing of extracted text (seed §4 `fields[].type`: string, number,
 * integer, date, boolean). A value that does not fit its type becomes null
 * and is counted; one warning per field summarises the misses instead of one
 * per record, so a 50 000-row file with a bad column gives one line.
 */
import { coerceParameterValue } from '../../parameter-values.js';

export const FILE_FIELD_TYPES = ['string', 'number', 'integer', 'date', 'boolean'] as const;
export type FileFieldType = (typeof FILE_FIELD_TYPES)[number];

/** Raw value as found: text from a node or cell, or an XPath number/boolean. */
export type RawValue = string | number | boolean | null | undefined;

const NUMBER = /^[+-]?(?:\d+|\d{1,3}(?:,\d{3})+)?(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const TRUE = new Set(['true', '1', 'yes', 'y', 'x']);
const FALSE = new Set(['false', '0', 'no', 'n']);

/**
 * The typed value, `null` for a missing or empty value, or `undefined` when
 * the text does not fit the type. Strings are trimmed; numbers accept
 * thousands separators (`1,234.50`); booleans accept true/false, 1/0,
 * yes/no, y/n and the IRS check-box `X`; dates are ISO 8601 (YYYY-MM-DD or a
 * date-time) and kept as written.
 */
export function typeValue(raw: RawValue, type: FileFieldType): unknown {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) return type === 'string' ? String(raw) : undefined;
    if (type === 'integer') return Number.isSafeInteger(raw) ? raw : undefined;
    if (type === 'boolean') return raw === 1 ? true : raw === 0 ? false : undefined;
    if (type === 'date') return undefined;
    return type === 'string' ? String(raw) : raw;
  }
  if (typeof raw === 'boolean') {
    if (type === 'boolean') return raw;
    return type === 'string' ? String(raw) : undefined;
  }
  const text = raw.trim();
  if (type === 'string') return text;
  if (text === '') return null;
  switch (type) {
    case 'number':
    case 'integer': {
      if (!NUMBER.test(text) || !/\d/.test(text)) return undefined;
      const n = Number(text.replace(/,/g, ''));
      if (!Number.isFinite(n)) return undefined;
      if (type === 'integer' && !Number.isSafeInteger(n)) return undefined;
      return n;
    }
    case 'boolean': {
      const lower = text.toLowerCase();
      if (TRUE.has(lower)) return true;
      if (FALSE.has(lower)) return false;
      return undefined;
    }
    case 'date':
      return coerceParameterValue('date', text).ok ? text : undefined;
  }
}

const DESCRIBE: Record<FileFieldType, string> = {
  string: 'text',
  number: 'a number',
  integer: 'an integer',
  date: 'an ISO 8601 date',
  boolean: 'a boolean',
};

/** Collects values that did not fit their field's type, per field. */
export class TypeMisses {
  private readonly byField = new Map<
    string,
    { type: FileFieldType; count: number; first: string; where: string }
  >();

  /** Types `raw`; a miss is recorded against `field` (with `where`, e.g. "record 3") and gives null. */
  value(raw: RawValue, type: FileFieldType, field: string, where: string): unknown {
    const typed = typeValue(raw, type);
    if (typed !== undefined) return typed;
    const entry = this.byField.get(field);
    if (entry) entry.count++;
    else this.byField.set(field, { type, count: 1, first: String(raw).trim().slice(0, 40), where });
    return null;
  }

  warnings(): string[] {
    return [...this.byField].map(
      ([field, m]) =>
        `field "${field}": ${m.count} value${m.count === 1 ? ' is' : 's are'} not ${DESCRIBE[m.type]} (first: "${m.first}" in ${m.where}); returned as null`,
    );
  }
}
