/**
 * Reads one GraphQL response body (GraphQL spec §7 "Response") into records,
 * warnings and the page cursor. Pure.
 *
 * `errors` handling:
 * - no `data` key at all: a *request error* (parse/validation/variables) —
 *   thrown, INVALID_ARGUMENT unless the errors carry a more specific code;
 * - `data: null`, or the records at `results_path` are null/missing: the
 *   errors are why there is nothing to return — thrown, UPSTREAM_ERROR unless
 *   the errors carry a more specific code (NOT_FOUND, AUTH_FAILED, …);
 * - records present beside errors (a *partial response*: some fields failed
 *   and are null): the records are returned and each error becomes a warning.
 *   The spec defines partial responses as results; failing the whole call
 *   would throw away every good record because of one bad field.
 */
import { ConnectorError, type ConnectorErrorCode } from '../../connector-error.js';
import { getByDotPath } from '../../dot-path.js';
import { applyResponseMapping, type EndpointResult } from '../../response-mapping.js';
import type { GraphqlEndpoint } from './graphql-schema.js';

export interface GraphqlPage {
  result: EndpointResult;
  /** `pageInfo.hasNextPage` (false without pagination or pageInfo). */
  hasNext: boolean;
  /** `pageInfo.endCursor`, when a non-empty string. */
  cursor?: string;
}

const MAX_LISTED_ERRORS = 3;
const MAX_ERROR_CHARS = 300;

/** Interprets one response body; throws ConnectorError when the errors leave nothing to return. */
export function interpretGraphqlBody(
  text: string,
  endpoint: Pick<GraphqlEndpoint, 'response_mapping' | 'pagination'>,
  where: { label: string; displayUrl: string },
): GraphqlPage {
  const empty = (warning: string): GraphqlPage => ({
    result: { results: [], count: 0, warnings: [warning] },
    hasNext: false,
  });
  if (text.trim() === '')
    return empty(`the response from ${where.displayUrl} is empty; returning no records`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return empty(`the response from ${where.displayUrl} is not valid JSON; returning no records`);
  }
  if (!isRecord(body) || (!('data' in body) && !('errors' in body))) {
    return empty(
      `the response from ${where.displayUrl} is not a GraphQL response (no "data" or "errors"); returning no records`,
    );
  }
  const errors = graphqlErrorsOf(body);
  const mapping = endpoint.response_mapping;
  const warnings: string[] = [];
  if (errors.length > 0) {
    if (!('data' in body) || body.data === null || body.data === undefined) {
      throw graphqlFailure(errors, 'data' in body ? 'UPSTREAM_ERROR' : 'INVALID_ARGUMENT', where.label);
    }
    const path = mapping?.results_path;
    const selected = path === undefined ? body.data : getByDotPath(body, path);
    if (selected === undefined || selected === null) {
      throw graphqlFailure(errors, 'UPSTREAM_ERROR', where.label, ` (nothing at results_path "${path}")`);
    }
    for (const e of errors) warnings.push(`GraphQL error${describePath(e)}: ${messageOf(e)}`);
  }
  const result = applyResponseMapping(body, mapping);
  const page: GraphqlPage = { result, hasNext: false };
  const pagination = endpoint.pagination;
  if (pagination) {
    const info = getByDotPath(body, pagination.page_info_path);
    if (isRecord(info)) {
      page.hasNext = info.hasNextPage === true;
      if (typeof info.endCursor === 'string' && info.endCursor !== '') page.cursor = info.endCursor;
    } else {
      warnings.push(
        `pagination.page_info_path "${pagination.page_info_path}" is not an object in the response; not paging`,
      );
    }
  }
  const all = [...(result.warnings ?? []), ...warnings];
  if (all.length > 0) result.warnings = all;
  else delete result.warnings;
  return page;
}

/**
 * For a non-2xx answer: the GraphQL error messages in its body, when it is
 * a GraphQL response, else undefined (the raw body snippet is used).
 */
export function describeGraphqlErrorBody(head: string): string | undefined {
  try {
    const body: unknown = JSON.parse(head);
    if (!isRecord(body)) return undefined;
    const errors = graphqlErrorsOf(body);
    return errors.length > 0 ? listErrors(errors) : undefined;
  } catch {
    return undefined;
  }
}

type GraphqlError = Record<string, unknown>;

function graphqlErrorsOf(body: Record<string, unknown>): GraphqlError[] {
  const raw = body.errors;
  if (raw === undefined || raw === null) return [];
  const list = Array.isArray(raw) ? raw : [raw];
  return list.map((e) => (isRecord(e) ? e : { message: String(e) }));
}

/** The most specific code any error names (`extensions.code`, or GitHub's `type`), else `fallback`. */
export function classifyGraphqlErrors(
  errors: readonly GraphqlError[],
  fallback: ConnectorErrorCode,
): ConnectorErrorCode {
  const names = errors.map((e) => {
    const ext = isRecord(e.extensions) ? e.extensions.code : undefined;
    const name = typeof ext === 'string' ? ext : typeof e.type === 'string' ? e.type : '';
    return name.toUpperCase();
  });
  const has = (...codes: string[]) => names.some((n) => codes.includes(n));
  if (has('UNAUTHENTICATED', 'UNAUTHORIZED', 'FORBIDDEN')) return 'AUTH_FAILED';
  if (has('RATE_LIMITED', 'RATE_LIMIT', 'TOO_MANY_REQUESTS', 'THROTTLED', 'MAX_NODE_LIMIT_EXCEEDED'))
    return 'RATE_LIMIT';
  if (has('NOT_FOUND')) return 'NOT_FOUND';
  if (
    has(
      'GRAPHQL_PARSE_FAILED',
      'GRAPHQL_VALIDATION_FAILED',
      'BAD_USER_INPUT',
      'BAD_REQUEST',
      'INVALID_ARGUMENT',
    )
  )
    return 'INVALID_ARGUMENT';
  if (has('SERVICE_UNAVAILABLE', 'UNAVAILABLE')) return 'UNAVAILABLE';
  return fallback;
}

function graphqlFailure(
  errors: readonly GraphqlError[],
  fallback: ConnectorErrorCode,
  label: string,
  suffix = '',
): ConnectorError {
  const code = classifyGraphqlErrors(errors, fallback);
  return new ConnectorError(
    code,
    `${label}: the GraphQL endpoint answered with errors${suffix}: ${listErrors(errors)}`,
  );
}

function listErrors(errors: readonly GraphqlError[]): string {
  const shown = errors.slice(0, MAX_LISTED_ERRORS).map((e) => `${messageOf(e)}${describePath(e)}`);
  const more = errors.length > MAX_LISTED_ERRORS ? ` (and ${errors.length - MAX_LISTED_ERRORS} more)` : '';
  return `${shown.join('; ')}${more}`;
}

function messageOf(e: GraphqlError): string {
  const message = typeof e.message === 'string' && e.message.trim() !== '' ? e.message : 'no message given';
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length > MAX_ERROR_CHARS ? `${line.slice(0, MAX_ERROR_CHARS)}…` : line;
}

function describePath(e: GraphqlError): string {
  return Array.isArray(e.path) && e.path.length > 0 ? ` (at ${e.path.map(String).join('.')})` : '';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
