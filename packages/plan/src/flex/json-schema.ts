/**
 * One Ajv setup for flex contracts (facet schemas, output contracts): the
 * common string formats the seed's facets use (`uri`, `date`, `date-time`,
 * `email`, `uuid`) without extra packages, and validators cached by the
 * schema's canonical text — plans and registrations arrive as fresh objects,
 * so identity caching would compile every time.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

export type JsonSchema = Record<string, unknown>;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

function isUri(value: string): boolean {
  try {
    return /^[a-z][a-z0-9+.-]*:/i.test(value) && new URL(value).protocol.length > 1;
  } catch {
    return false;
  }
}

function newAjv(): Ajv {
  // strict off: facet schemas carry annotations (`examples`, `x-*`) Ajv's strict mode rejects.
  const ajv = new Ajv({ allErrors: true, strict: false, logger: false });
  ajv.addFormat('date', { type: 'string', validate: isDate });
  ajv.addFormat('date-time', { type: 'string', validate: (v: string) => DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)) });
  ajv.addFormat('uri', { type: 'string', validate: isUri });
  ajv.addFormat('email', EMAIL);
  ajv.addFormat('uuid', UUID);
  return ajv;
}

const ajv = newAjv();
const CACHE_LIMIT = 512;
const cache = new Map<string, ValidateFunction>();

/** Stable text of a JSON value: object keys sorted, so equal schemas share a validator. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Thrown when a schema does not compile; `reason` is Ajv's. */
export class SchemaCompileError extends Error {
  constructor(readonly reason: string) {
    super(`schema does not compile: ${reason}`);
    this.name = 'SchemaCompileError';
  }
}

/**
 * The compiled validator of `schema` (cached by canonical text, LRU-bounded).
 * @throws SchemaCompileError when the schema is not valid JSON Schema
 */
export function compileJsonSchema(schema: JsonSchema): ValidateFunction {
  const key = canonicalJson(schema);
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  // A private copy: Ajv keeps compiled schemas by identity, and `$schema` naming
  // another draft would make it look for a meta-schema it does not have.
  const { $schema: _ignored, ...copy } = JSON.parse(key) as JsonSchema;
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(copy);
  } catch (e) {
    throw new SchemaCompileError((e as Error).message);
  }
  cache.set(key, validate);
  if (cache.size > CACHE_LIMIT) {
    const oldest = cache.keys().next().value as string;
    const evicted = cache.get(oldest);
    cache.delete(oldest);
    if (evicted?.schema && typeof evicted.schema === 'object') ajv.removeSchema(evicted.schema as object);
  }
  return validate;
}

/** The reason `schema` does not compile, or undefined when it does. */
export function schemaProblem(schema: unknown): string | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return 'must be a JSON Schema object';
  try {
    compileJsonSchema(schema as JsonSchema);
    return undefined;
  } catch (e) {
    return e instanceof SchemaCompileError ? e.reason : (e as Error).message;
  }
}

export type { ErrorObject, ValidateFunction };
