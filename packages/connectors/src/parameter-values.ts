/**
 * Endpoint parameter types (seed §4 `parameters[].type`) and how an input
 * value of each type is checked, normalised and written into a URL.
 *
 * Inputs arrive from playbook wiring and LLM tool calls, so strings that
 * clearly mean a number or boolean ("42", "true") are accepted; anything
 * else that does not fit the declared type is refused with a reason.
 */

export const PARAMETER_TYPES = ['string', 'number', 'integer', 'date', 'boolean', 'object', 'array'] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];

/** Types that can stand in a URL path segment. */
export const SCALAR_PARAMETER_TYPES: ReadonlySet<ParameterType> = new Set([
  'string',
  'number',
  'integer',
  'date',
  'boolean',
]);

export type CoercionResult = { ok: true; value: unknown } | { ok: false; reason: string };

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** Checks `value` against `type` and returns its normalised form. */
export function coerceParameterValue(type: ParameterType, value: unknown): CoercionResult {
  switch (type) {
    case 'string':
      if (typeof value === 'string') return { ok: true, value };
      if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') {
        return { ok: true, value: String(value) };
      }
      return fail('expected a string', value);
    case 'number':
    case 'integer': {
      const n = toNumber(value);
      if (n === undefined) return fail(`expected ${type === 'integer' ? 'an integer' : 'a number'}`, value);
      if (type === 'integer' && !Number.isSafeInteger(n)) return fail('expected an integer', value);
      return { ok: true, value: n };
    }
    case 'boolean':
      if (typeof value === 'boolean') return { ok: true, value };
      if (typeof value === 'string' && /^(true|false)$/i.test(value))
        return { ok: true, value: value.toLowerCase() === 'true' };
      return fail('expected a boolean', value);
    case 'date':
      if (typeof value === 'string' && isValidDate(value)) return { ok: true, value };
      return fail('expected a date (YYYY-MM-DD or an ISO 8601 date-time)', value);
    case 'object':
      if (isPlainObject(value)) return { ok: true, value };
      return fail('expected an object', value);
    case 'array':
      if (Array.isArray(value)) return { ok: true, value };
      return fail('expected an array', value);
  }
}

/**
 * The query-string values for a normalised parameter value: arrays become one
 * value per element (`?k=a&k=b`, as most REST APIs expect); objects, and
 * objects inside arrays, are sent as JSON text.
 */
export function toQueryValues(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(toQueryScalar);
  return [toQueryScalar(value)];
}

/**
 * A normalised scalar as an HTTP header value, or `undefined` when it cannot
 * be one: header values are single-line Latin-1 text (RFC 9110 §5.5), and a
 * CR/LF would let an input inject further headers.
 */
export function toHeaderValue(value: unknown): string | undefined {
  const text = toQueryScalar(value);
  return /^[\t\x20-\x7e\x80-\xff]*$/.test(text) ? text : undefined;
}

function toQueryScalar(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '' && value.trim() === value) {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

function isValidDate(value: string): boolean {
  const m = DATE_ONLY.exec(value);
  if (m) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const date = new Date(Date.UTC(y, mo - 1, d));
    // Date.UTC rolls 2024-02-30 over to March; a round trip catches it.
    return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
  }
  return DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)) && isValidDate(value.slice(0, 10));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Describes a refused value by its kind only: inputs may be sensitive. */
function fail(reason: string, value: unknown): CoercionResult {
  return { ok: false, reason: `${reason}, got ${describeKind(value)}` };
}

function describeKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.length === 0 ? 'an empty string' : 'a string that does not fit';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return 'a non-finite number';
    return Number.isInteger(value) ? 'a number' : 'a fractional number';
  }
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}
