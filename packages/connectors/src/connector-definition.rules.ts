/**
 * Cross-field rules for connector definitions that a shape schema cannot
 * express. Each rule reports the field path of the offending value.
 */
import type {
  ConnectorAuth,
  ConnectorDefinition,
  EndpointParameter,
  GenericConnectorDefinition,
  Pagination,
  PaginationType,
  ParameterLocation,
  RestApiConnectorDefinition,
  RestEndpoint,
  RestParameter,
} from './connector-definition.schema.js';
import { coerceParameterValue, SCALAR_PARAMETER_TYPES } from './parameter-values.js';

export interface DefinitionIssue {
  field: string;
  reason: string;
}

/** Header names that carry credentials and so must never sit in a (plain-text) definition. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);
/** Headers the runtime sets on every request (content negotiation and body framing). */
const MANAGED_HEADERS = new Set(['accept', 'content-type']);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the HTTP client manages; a static value would break framing or routing. */
const CLIENT_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
]);

/** Errors (refuse the definition) and warnings (accept it, but tell the author). */
export function checkDefinitionRules(def: ConnectorDefinition): {
  errors: DefinitionIssue[];
  warnings: DefinitionIssue[];
} {
  const errors: DefinitionIssue[] = [];
  const warnings: DefinitionIssue[] = [];
  if (def.type === 'rest_api') checkRestApi(def, errors, warnings);
  else checkGeneric(def, errors, warnings);
  return { errors, warnings };
}

function checkRestApi(
  def: RestApiConnectorDefinition,
  errors: DefinitionIssue[],
  warnings: DefinitionIssue[],
): void {
  const auth = def.connection.auth;
  checkAuth(auth, errors, warnings);
  const authHeader = authHeaderName(auth);
  for (const [name, value] of Object.entries(def.connection.headers ?? {})) {
    const field = `connection.headers.${name}`;
    if (CREDENTIAL_HEADERS.has(name.toLowerCase())) {
      errors.push({
        field,
        reason:
          'must not carry credentials in the definition (it is stored in plain text); use connection.auth',
      });
    } else if (CLIENT_HEADERS.has(name.toLowerCase())) {
      errors.push({ field, reason: 'is set by the HTTP client and cannot be configured' });
    } else if (authHeader !== undefined && name.toLowerCase() === authHeader) {
      errors.push({ field, reason: `is where connection.auth sends the api key; remove it` });
    } else if (!/^[\t\x20-\x7e\x80-\xff]*$/.test(value)) {
      errors.push({ field, reason: 'must not contain control characters or characters outside Latin-1' });
    }
  }
  const queryKey = auth.type === 'api_key' && auth.in === 'query' ? auth.key_param : undefined;

  for (const [name, endpoint] of Object.entries(def.endpoints)) {
    const at = `endpoints.${name}`;
    checkParameters(endpoint.parameters, `${at}.parameters`, errors);
    checkPath(endpoint, at, errors);
    checkLocations(endpoint, at, authHeader, errors);
    endpoint.parameters.forEach((p, i) => {
      if (queryKey !== undefined && p.name === queryKey) {
        errors.push({
          field: `${at}.parameters[${i}].name`,
          reason: `collides with connection.auth.key_param "${queryKey}"`,
        });
      }
    });
    checkMappingAgainstSchema(endpoint, at, errors);
    checkPagination(endpoint, at, queryKey, errors);
    if (endpoint.cache_ttl_seconds !== undefined && ['PUT', 'PATCH', 'DELETE'].includes(endpoint.method)) {
      errors.push({
        field: `${at}.cache_ttl_seconds`,
        reason: `cannot be set on a ${endpoint.method} endpoint: a cached answer would skip the write`,
      });
    }
  }
}

function checkAuth(auth: ConnectorAuth, errors: DefinitionIssue[], warnings: DefinitionIssue[]): void {
  if (auth.type === 'api_key') {
    if (auth.in === 'query' && !auth.key_param) {
      errors.push({
        field: 'connection.auth.key_param',
        reason: 'is required when the api key is sent in the query',
      });
    }
    if (auth.in === 'header' && !auth.header_name && !auth.key_param) {
      errors.push({
        field: 'connection.auth.header_name',
        reason: 'is required when the api key is sent in a header',
      });
    }
    if (auth.in === 'query' && auth.header_name !== undefined) {
      warnings.push({
        field: 'connection.auth.header_name',
        reason: 'is ignored: the api key is sent in the query (set in: header to send it in a header)',
      });
    }
    const header = authHeaderName(auth);
    if (header !== undefined && (CREDENTIAL_HEADERS.has(header) || CLIENT_HEADERS.has(header))) {
      errors.push({
        field: auth.header_name !== undefined ? 'connection.auth.header_name' : 'connection.auth.key_param',
        reason: `cannot be "${header}"; use type bearer_token or basic for the Authorization header`,
      });
    }
  }
  if (auth.type === 'oauth2' && new URL(auth.token_url).protocol === 'http:' && !isLoopback(auth.token_url)) {
    warnings.push({
      field: 'connection.auth.token_url',
      reason: 'uses plain http: the client secret and tokens travel unencrypted; use https',
    });
  }
  if (auth.type !== 'none' && auth.env_var !== undefined) {
    warnings.push({
      field: 'connection.auth.env_var',
      reason:
        'is ignored: credentials are stored encrypted with the connector, not read from the environment',
    });
  }
}

/** The (lower-case) header an api key travels in, if it travels in one. */
export function authHeaderName(auth: ConnectorAuth): string | undefined {
  if (auth.type !== 'api_key' || auth.in !== 'header') return undefined;
  return (auth.header_name ?? auth.key_param ?? 'x-api-key').toLowerCase();
}

function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\./.test(host);
}

/** Methods whose requests carry no body (RFC 9110: GET and HEAD bodies have no defined meaning). */
const BODYLESS_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);
/** Methods whose parameters default to the query string rather than the body. */
const QUERY_DEFAULT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'DELETE']);

/** Whether requests with `method` may carry a body. */
export function methodHasBody(method: string): boolean {
  return !BODYLESS_METHODS.has(method);
}

/**
 * Where a parameter goes: its `in`, else the path when the path has `{name}`,
 * else the query (GET, DELETE, HEAD) or the body (POST, PUT, PATCH).
 */
export function restParameterLocation(
  param: Pick<RestParameter, 'name' | 'in'>,
  endpoint: Pick<RestEndpoint, 'method' | 'path'>,
): ParameterLocation {
  if (param.in !== undefined) return param.in;
  const placeholders = pathPlaceholders(endpoint.path);
  if ('names' in placeholders && placeholders.names.includes(param.name)) return 'path';
  return QUERY_DEFAULT_METHODS.has(endpoint.method) ? 'query' : 'body';
}

function checkLocations(
  endpoint: RestEndpoint,
  at: string,
  authHeader: string | undefined,
  errors: DefinitionIssue[],
): void {
  const placeholders = pathPlaceholders(endpoint.path);
  const pathNames = new Set('names' in placeholders ? placeholders.names : []);
  let bodyParams = 0;
  endpoint.parameters.forEach((p, i) => {
    const field = `${at}.parameters[${i}].in`;
    const where = restParameterLocation(p, endpoint);
    const bracketed = p.name.includes('[');
    if (bracketed && where !== 'query') {
      errors.push({
        field: `${at}.parameters[${i}].name`,
        reason:
          where === 'path'
            ? `"${p.name}" has brackets, which a path placeholder cannot carry; only query parameters may use bracketed names`
            : `"${p.name}" has brackets, which only query parameters may use; it would be sent in the ${where}${p.in === undefined ? ' (set in: query)' : ''}`,
      });
    }
    if (pathNames.has(p.name) && where !== 'path') {
      errors.push({ field, reason: `"${p.name}" is a placeholder in the path, so it must be in: path` });
    } else if (where === 'path' && !pathNames.has(p.name) && !bracketed) {
      errors.push({ field, reason: `is path, but the path has no {${p.name}} placeholder` });
    }
    if (where === 'body') {
      bodyParams++;
      if (!methodHasBody(endpoint.method)) {
        errors.push({
          field,
          reason: `${endpoint.method} requests carry no body; use query or header`,
        });
      }
    }
    if (where === 'header') {
      const header = p.name.toLowerCase();
      if (bracketed) {
        // Reported above.
      } else if (!HEADER_NAME.test(p.name)) {
        errors.push({ field: `${at}.parameters[${i}].name`, reason: 'must be a valid HTTP header name' });
      } else if (CREDENTIAL_HEADERS.has(header) || header === authHeader) {
        errors.push({
          field: `${at}.parameters[${i}].name`,
          reason: 'header parameters must not carry credentials; use connection.auth',
        });
      } else if (CLIENT_HEADERS.has(header) || MANAGED_HEADERS.has(header)) {
        errors.push({
          field: `${at}.parameters[${i}].name`,
          reason: 'is set by the runtime and cannot be a parameter',
        });
      }
      if (!SCALAR_PARAMETER_TYPES.has(p.type)) {
        errors.push({
          field: `${at}.parameters[${i}].type`,
          reason: `"${p.name}" is sent in a header, so it must be string, number, integer, date or boolean`,
        });
      }
    }
  });
  if (endpoint.body_format !== undefined && !methodHasBody(endpoint.method)) {
    errors.push({
      field: `${at}.body_format`,
      reason: `${endpoint.method} requests carry no body`,
    });
  } else if (
    endpoint.body_format !== undefined &&
    bodyParams === 0 &&
    endpoint.pagination?.inject_into !== 'body'
  ) {
    errors.push({
      field: `${at}.body_format`,
      reason: 'applies only when some parameter is in: body',
    });
  }
}

function checkGeneric(
  def: GenericConnectorDefinition,
  errors: DefinitionIssue[],
  warnings: DefinitionIssue[],
): void {
  warnings.push({ field: 'type', reason: `${def.type} connectors are stored but cannot be executed yet` });
  for (const [name, endpoint] of Object.entries(def.endpoints)) {
    if (endpoint.parameters) checkParameters(endpoint.parameters, `endpoints.${name}.parameters`, errors);
    if (endpoint.variables) checkParameters(endpoint.variables, `endpoints.${name}.variables`, errors);
  }
}

export function checkParameters(
  params: readonly EndpointParameter[],
  at: string,
  errors: DefinitionIssue[],
): void {
  const seen = new Set<string>();
  params.forEach((p, i) => {
    if (seen.has(p.name))
      errors.push({ field: `${at}[${i}].name`, reason: `duplicate parameter "${p.name}"` });
    seen.add(p.name);
    if (p.default !== undefined && p.default !== null) {
      const result = coerceParameterValue(p.type, p.default);
      if (!result.ok)
        errors.push({
          field: `${at}[${i}].default`,
          reason: `does not fit type ${p.type}: ${result.reason}`,
        });
    }
  });
}

/** `{name}` placeholders in a path, or a reason the braces are malformed. */
export function pathPlaceholders(path: string): { names: string[] } | { problem: string } {
  const names: string[] = [];
  const re = /\{([^{}]*)\}/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(path)) !== null) {
    const name = m[1] ?? '';
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name)) {
      return {
        problem: /[[\]]/.test(name)
          ? `placeholder "{${name}}" cannot use a bracketed name: brackets are for query parameters only`
          : `placeholder "{${name}}" is not a valid parameter name`,
      };
    }
    names.push(name);
  }
  if (/[{}]/.test(path.replace(re, ''))) return { problem: 'has an unbalanced "{" or "}"' };
  return { names };
}

function checkPath(endpoint: RestEndpoint, at: string, errors: DefinitionIssue[]): void {
  const placeholders = pathPlaceholders(endpoint.path);
  if ('problem' in placeholders) {
    errors.push({ field: `${at}.path`, reason: placeholders.problem });
    return;
  }
  for (const name of placeholders.names) {
    const index = endpoint.parameters.findIndex((p) => p.name === name);
    const param = endpoint.parameters[index];
    if (!param) {
      errors.push({ field: `${at}.path`, reason: `placeholder {${name}} is not a declared parameter` });
    } else if (!SCALAR_PARAMETER_TYPES.has(param.type)) {
      errors.push({
        field: `${at}.parameters[${index}].type`,
        reason: `"${name}" is used in the path, so it must be string, number, integer, date or boolean`,
      });
    }
  }
}

function checkMappingAgainstSchema(endpoint: RestEndpoint, at: string, errors: DefinitionIssue[]): void {
  const fields = endpoint.response_mapping?.fields;
  if (!fields) return;
  endpoint.response_mapping?.entity_extraction?.forEach((e, i) => {
    if (!Object.hasOwn(fields, e.field)) {
      errors.push({
        field: `${at}.response_mapping.entity_extraction[${i}].field`,
        reason: `"${e.field}" is not a field of response_mapping.fields`,
      });
    }
  });
  endpoint.output_schema?.fields?.forEach((f, i) => {
    if (!Object.hasOwn(fields, f.name)) {
      errors.push({
        field: `${at}.output_schema.fields[${i}].name`,
        reason: `"${f.name}" is not a field of response_mapping.fields`,
      });
    }
  });
}

/** Which pagination keys each `pagination.type` accepts (`caller` = no type: caller-driven). */
const PAGINATION_KEYS: Record<PaginationType | 'caller', ReadonlySet<string>> = {
  caller: new Set(['next_cursor_path', 'has_more_path', 'cursor_param']),
  page_number: new Set([
    'type',
    'page_param',
    'start_page',
    'page_size_param',
    'page_size',
    'has_more_path',
    'total_path',
    'max_pages',
    'inject_into',
  ]),
  offset: new Set([
    'type',
    'offset_param',
    'limit_param',
    'limit',
    'has_more_path',
    'total_path',
    'max_pages',
    'inject_into',
  ]),
  cursor: new Set([
    'type',
    'cursor_param',
    'next_cursor_path',
    'page_size_param',
    'page_size',
    'has_more_path',
    'total_path',
    'max_pages',
    'inject_into',
  ]),
  link_header: new Set([
    'type',
    'page_size_param',
    'page_size',
    'has_more_path',
    'total_path',
    'max_pages',
    'inject_into',
  ]),
  next_url: new Set([
    'type',
    'next_url_path',
    'page_size_param',
    'page_size',
    'has_more_path',
    'total_path',
    'max_pages',
    'inject_into',
  ]),
};

function checkPagination(
  endpoint: RestEndpoint,
  at: string,
  queryKey: string | undefined,
  errors: DefinitionIssue[],
): void {
  const p = endpoint.pagination;
  if (!p) return;
  const field = `${at}.pagination`;
  const kind = p.type ?? 'caller';
  const allowed = PAGINATION_KEYS[kind];
  for (const [key, value] of Object.entries(p)) {
    if (value === undefined || allowed.has(key)) continue;
    const owners = (Object.keys(PAGINATION_KEYS) as Array<keyof typeof PAGINATION_KEYS>).filter(
      (k) => k !== 'caller' && PAGINATION_KEYS[k].has(key),
    );
    errors.push({
      field: `${field}.${key}`,
      reason:
        kind === 'caller'
          ? `needs pagination.type (${owners.join(', ')}); without a type pagination is caller-driven`
          : `does not apply to pagination type ${kind}`,
    });
  }
  if (endpoint.method === 'HEAD') {
    errors.push({ field, reason: 'HEAD answers have no body to page through' });
  }
  if (kind === 'caller') {
    if (!p.next_cursor_path && !p.has_more_path) {
      errors.push({ field, reason: 'needs next_cursor_path or has_more_path' });
    }
    if (p.cursor_param !== undefined && !endpoint.parameters.some((q) => q.name === p.cursor_param)) {
      errors.push({
        field: `${field}.cursor_param`,
        reason: `"${p.cursor_param}" is not a declared parameter`,
      });
    }
    return;
  }
  if (kind === 'cursor') {
    if (p.cursor_param === undefined)
      errors.push({ field: `${field}.cursor_param`, reason: 'is required for type cursor' });
    if (p.next_cursor_path === undefined)
      errors.push({ field: `${field}.next_cursor_path`, reason: 'is required for type cursor' });
  }
  if (kind === 'next_url' && p.next_url_path === undefined) {
    errors.push({
      field: `${field}.next_url_path`,
      reason: "is required for type next_url (where the next page's URL is in the response body, e.g. next)",
    });
  }
  if (kind === 'offset' && p.limit === undefined) {
    errors.push({
      field: `${field}.limit`,
      reason: 'is required for type offset (the page size sent as limit_param)',
    });
  }
  const sized = allowed.has('page_size');
  if (sized && p.page_size_param !== undefined && p.page_size === undefined) {
    errors.push({ field: `${field}.page_size`, reason: 'is required when page_size_param is set' });
  }
  if (sized && p.page_size !== undefined && p.page_size_param === undefined) {
    errors.push({ field: `${field}.page_size_param`, reason: 'is required when page_size is set' });
  }
  if (p.inject_into === 'body' && !methodHasBody(endpoint.method)) {
    errors.push({
      field: `${field}.inject_into`,
      reason: `${endpoint.method} requests carry no body; use query`,
    });
  }
  // The runtime sets these request parameters itself; a declared parameter of the same name would fight it.
  const managed = managedPaginationParams(p);
  const seen = new Map<string, string>();
  for (const [key, name] of managed) {
    const other = seen.get(name);
    if (other !== undefined) {
      errors.push({ field: `${field}.${key}`, reason: `"${name}" is already used by pagination.${other}` });
      continue;
    }
    seen.set(name, key);
    if (endpoint.parameters.some((q) => q.name === name)) {
      errors.push({
        field: `${field}.${key}`,
        reason: `"${name}" is set by the runtime on every page; remove it from the endpoint's parameters`,
      });
    } else if (name === queryKey && (p.inject_into ?? 'query') === 'query') {
      errors.push({ field: `${field}.${key}`, reason: `collides with connection.auth.key_param "${name}"` });
    }
  }
}

/** `[pagination key, request parameter name]` for every parameter the runtime sets while paging. */
export function managedPaginationParams(p: Pagination): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  switch (p.type) {
    case 'page_number':
      out.push(['page_param', p.page_param ?? DEFAULT_PAGE_PARAM]);
      break;
    case 'offset':
      out.push(['offset_param', p.offset_param ?? DEFAULT_OFFSET_PARAM]);
      out.push(['limit_param', p.limit_param ?? DEFAULT_LIMIT_PARAM]);
      break;
    case 'cursor':
      if (p.cursor_param !== undefined) out.push(['cursor_param', p.cursor_param]);
      break;
    default:
      break;
  }
  if (p.type !== undefined && p.page_size_param !== undefined)
    out.push(['page_size_param', p.page_size_param]);
  return out;
}

export const DEFAULT_PAGE_PARAM = 'page';
export const DEFAULT_OFFSET_PARAM = 'offset';
export const DEFAULT_LIMIT_PARAM = 'limit';
