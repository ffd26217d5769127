/**
 * Turns a decoded upstream response into normalised records (seed §4
 * `response_mapping`, and the `call_connector` outputs `results`, `count`,
 * `has_more`). Pure: the same body and mapping always give the same records.
 */
import type { Pagination, ResponseMapping } from './connector-definition.schema.js';
import { compileDotPath, getByDotPath, type PathSegment } from './dot-path.js';

/** What one endpoint call produces (the `call_connector` output contract). */
export interface EndpointResult {
  results: Record<string, unknown>[];
  count: number;
  has_more?: boolean;
  next_cursor?: string;
  /**
   * Why the result may be incomplete (malformed body, results_path missing).
   * Seed §10: a malformed response is logged and gives an empty result, not an error.
   */
  warnings?: string[];
}

/**
 * Applies `results_path` (a list, or an object wrapped as one record) and
 * `fields` (local name → dot path; missing values become `null`). With a
 * caller-driven `pagination` (no `type`) the result also carries `has_more`
 * and `next_cursor` read from the body. Without
 * `fields` records are passed through; items that are not objects become
 * `{ value: item }` so every record is an object.
 */
export function applyResponseMapping(
  body: unknown,
  mapping: ResponseMapping | undefined,
  pagination?: Pagination,
): EndpointResult {
  const warnings: string[] = [];
  const compiled = mapping ? compileMapping(mapping) : undefined;
  const items = selectItems(body, mapping?.results_path, compiled?.resultsPath, warnings);
  const fields = compiled?.fields;
  const results: Record<string, unknown>[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const record = isRecord(item) ? item : { value: item };
    results[i] = fields ? mapFields(record, fields) : { ...record };
  }
  const result: EndpointResult = { results, count: results.length };
  // Runtime-driven paginators (`pagination.type`) report has_more themselves (rest-api-executor).
  if (pagination && pagination.type === undefined) Object.assign(result, readPagination(body, pagination));
  if (warnings.length > 0) result.warnings = warnings;
  return result;
}

/** A mapping with its dot paths parsed once (per mapping object: definitions are not changed after parsing). */
interface CompiledMapping {
  resultsPath: readonly PathSegment[] | undefined;
  fields: CompiledFields | undefined;
}

interface CompiledFields {
  /** Local names in order, and the path each reads (a malformed path, refused by the schema, reads nothing). */
  names: readonly string[];
  paths: ReadonlyArray<readonly PathSegment[] | undefined>;
  /** Every local name set to null: each record starts as a copy, so all records share one shape. */
  template: Readonly<Record<string, null>>;
}

const COMPILED_MAPPINGS = new WeakMap<ResponseMapping, CompiledMapping>();

function compileMapping(mapping: ResponseMapping): CompiledMapping {
  let compiled = COMPILED_MAPPINGS.get(mapping);
  if (!compiled) {
    compiled = {
      resultsPath: mapping.results_path === undefined ? undefined : compileDotPath(mapping.results_path),
      fields: mapping.fields ? compileFields(mapping.fields) : undefined,
    };
    COMPILED_MAPPINGS.set(mapping, compiled);
  }
  return compiled;
}

function compileFields(fields: Record<string, string>): CompiledFields {
  const names = Object.keys(fields);
  // Own data properties even for a name like "__proto__" (a plain assignment would set the prototype).
  const template = Object.fromEntries(names.map((n) => [n, null])) as Record<string, null>;
  return { names, paths: names.map((n) => compileDotPath(fields[n] as string)), template };
}

function selectItems(
  body: unknown,
  resultsPath: string | undefined,
  segments: readonly PathSegment[] | undefined,
  warnings: string[],
): unknown[] {
  const selected = resultsPath === undefined ? body : segments ? getByDotPath(body, segments) : undefined;
  if (selected === undefined) {
    warnings.push(`results_path "${resultsPath}" was not found in the response; returning no records`);
    return [];
  }
  if (selected === null) return [];
  if (Array.isArray(selected)) return selected;
  if (isRecord(selected)) return [selected];
  const where = resultsPath === undefined ? 'the response body' : `results_path "${resultsPath}"`;
  warnings.push(`${where} is a ${typeof selected}, not a list or object; returning no records`);
  return [];
}

function mapFields(item: Record<string, unknown>, fields: CompiledFields): Record<string, unknown> {
  const out: Record<string, unknown> = { ...fields.template };
  const { names, paths } = fields;
  for (let i = 0; i < names.length; i++) {
    const path = paths[i];
    // Most mapped paths are one key of the record itself.
    const key = path?.length === 1 ? path[0] : undefined;
    const value =
      typeof key === 'string'
        ? Object.hasOwn(item, key)
          ? item[key]
          : undefined
        : path
          ? getByDotPath(item, path)
          : undefined;
    if (value !== undefined) out[names[i] as string] = value;
  }
  return out;
}

function readPagination(
  body: unknown,
  pagination: Pagination,
): Pick<EndpointResult, 'has_more' | 'next_cursor'> {
  const out: Pick<EndpointResult, 'has_more' | 'next_cursor'> = {};
  if (pagination.next_cursor_path) {
    const cursor = getByDotPath(body, pagination.next_cursor_path);
    if (
      (typeof cursor === 'string' && cursor !== '') ||
      (typeof cursor === 'number' && Number.isFinite(cursor))
    ) {
      out.next_cursor = String(cursor);
    }
  }
  if (pagination.has_more_path) {
    const flag = getByDotPath(body, pagination.has_more_path);
    out.has_more = flag === true || flag === 'true';
  } else {
    out.has_more = out.next_cursor !== undefined;
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
