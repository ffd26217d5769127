/**
 * Zod schemas for connector definitions (seed `agent-factory-architecture.md`
 * §4 "Common Fields" plus the `rest_api` specifics used by
 * `_create_rest_api_tool`). Field names are the seed's, in snake_case.
 *
 * These schemas check shape only; cross-field rules (path placeholders are
 * declared parameters, defaults fit their type, …) live in
 * `connector-definition.rules.ts`.
 *
 * `rest_api` adds, in the seed's YAML style (field names after Airbyte's
 * declarative manifests where the seed is silent): every HTTP method,
 * parameter placement (`in: query | path | header | body`, `body_format`),
 * auth kinds `api_key`, `bearer_token`, `basic` and `oauth2`
 * (`client_credentials` / `refresh_token` grants), and runtime-driven
 * `pagination.type` (`page_number`, `offset`, `cursor`, `link_header`,
 * `next_url`).
 *
 * Unknown keys are refused everywhere we execute (top level, `rest_api`
 * connection and endpoints, response mappings): a misspelt `results_path`
 * would otherwise be dropped silently and the connector would return the wrong
 * records. Connection and endpoint blocks of the types we do not execute yet
 * are type-specific in the seed and are kept as given.
 */
import { z } from 'zod';
import { parseDotPath } from './dot-path.js';
import { PARAMETER_TYPES } from './parameter-values.js';

export const CONNECTOR_TYPES = [
  'rest_api',
  'graphql',
  'web_scraper',
  'file_parser',
  'database',
  'rss_feed',
  'existing_tool',
] as const;
export type ConnectorType = (typeof CONNECTOR_TYPES)[number];

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

const KEBAB_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const ENDPOINT_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
/**
 * `rest_api` parameter names may end in Rails/PHP-style bracket groups
 * (`conditions[term]`, `conditions[type][]`); the rules allow those in the
 * query only.
 */
const REST_PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*(?:\[[A-Za-z0-9_.-]*\])*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** An RFC 9110 §11.1 auth-scheme (a token). */
const AUTH_SCHEME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const VERSION = /^\d+(?:\.\d+){0,2}(?:[-+][0-9A-Za-z.-]+)?$/;
const OUTPUT_FIELD_TYPE = /^(?:string|number|integer|date|boolean|object|array|record)(?:\[\])?$/;

const text = z.string().min(1, 'must not be empty');

const dotPath = z
  .string()
  .refine((p) => parseDotPath(p) !== undefined, 'must be a dot path such as data.items or node.owner.login');

export const parameterSchema = z.strictObject({
  name: z
    .string()
    .regex(PARAMETER_NAME, 'must start with a letter or _ and contain only letters, digits, _, . or -'),
  type: z.enum(PARAMETER_TYPES),
  description: z.string().optional(),
  required: z.boolean().default(false),
  default: z.unknown().optional(),
});
export type EndpointParameter = z.output<typeof parameterSchema>;

/** Where a `rest_api` parameter goes in the request. */
export const PARAMETER_LOCATIONS = ['query', 'path', 'header', 'body'] as const;
export type ParameterLocation = (typeof PARAMETER_LOCATIONS)[number];

/**
 * A `rest_api` parameter: the shared shape plus `in`, and names that may carry
 * bracket groups (query parameters only). Without `in` it goes in
 * the path when the path has `{name}`, else in the query for GET, DELETE and
 * HEAD and in the body for POST, PUT and PATCH (`restParameterLocation`).
 */
export const restParameterSchema = parameterSchema.extend({
  name: z
    .string()
    .regex(
      REST_PARAMETER_NAME,
      'must start with a letter or _ and contain only letters, digits, _, . or -, optionally followed by [key] or [] groups (e.g. conditions[term], ids[])',
    ),
  in: z.enum(PARAMETER_LOCATIONS).optional(),
});
export type RestParameter = z.output<typeof restParameterSchema>;

/**
 * Entity types an `entity_extraction` hint may name: PERSON and ORG are
 * resolved into the knowledge graph; the others are recognised (and kept
 * out of resolution); `auto` asks for names found in the field's text.
 */
export const EXTRACTION_ENTITY_TYPES = ['PERSON', 'ORG', 'LOCATION', 'EVENT', 'PRODUCT', 'ENTITY', 'auto'] as const;

const entityExtractionSchema = z.looseObject({
  field: text,
  entity_type: z.enum(EXTRACTION_ENTITY_TYPES),
  relationship_type: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'relationship types are UPPER_SNAKE_CASE (e.g. OFFICER_OF)')
    .optional(),
});

const responseMappingShape = {
  entity_type: z.string().optional(),
  results_path: dotPath.optional(),
  fields: z.record(text, dotPath).optional(),
  entity_extraction: z.array(entityExtractionSchema).optional(),
};
export const responseMappingSchema = z.strictObject(responseMappingShape);
export type ResponseMapping = z.output<typeof responseMappingSchema>;

const outputFieldSchema = z.strictObject({
  name: text,
  type: z
    .string()
    .regex(
      OUTPUT_FIELD_TYPE,
      'must be string, number, integer, date, boolean, object or array, optionally with []',
    ),
  description: z.string().optional(),
});

export const outputSchemaSchema = z.strictObject({
  type: z.enum(['record_set', 'object', 'scalar']),
  fields: z.array(outputFieldSchema).optional(),
  metadata_fields: z.array(outputFieldSchema).optional(),
});
export type OutputSchema = z.output<typeof outputSchemaSchema>;

/** An absolute http(s) URL without credentials or fragment (the OAuth2 token endpoint). */
const tokenUrl = z.string().superRefine((value, ctx) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be an absolute http or https URL' });
    return;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    ctx.addIssue({
      code: 'custom',
      message: `must use http or https, not "${url.protocol.slice(0, -1).slice(0, 20)}"`,
    });
  } else if (url.username || url.password) {
    ctx.addIssue({
      code: 'custom',
      message: 'must not contain credentials; store client_id and client_secret',
    });
  } else if (url.hash || value.includes('#')) {
    ctx.addIssue({ code: 'custom', message: 'must not contain a fragment' });
  }
});

/** OAuth2 scopes: a list, or one space-separated string (RFC 6749 §3.3), normalised to a list. */
const scopes = z.preprocess(
  (v) => (typeof v === 'string' ? v.split(' ').filter((s) => s !== '') : v),
  z.array(
    z
      .string()
      .regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'must be a scope token without spaces, quotes or backslashes'),
  ),
);

export const OAUTH2_GRANT_TYPES = ['client_credentials', 'refresh_token', 'authorization_code'] as const;
export type OAuth2GrantType = (typeof OAUTH2_GRANT_TYPES)[number];

/**
 * `connection.auth`. Credential values never sit in the definition: they are
 * stored encrypted with the connector under the names `requiredCredentialNames`
 * lists (api_key; token; username + password; client_id + client_secret
 * [+ refresh_token]).
 *
 * `env_var` (seed graphql example) is accepted so seed connectors parse, but
 * it is never read: credentials come from the encrypted store.
 */
export const authSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('api_key'),
    key_param: text.optional(),
    in: z.enum(['query', 'header']).default('query'),
    header_name: z.string().regex(HEADER_NAME, 'must be a valid HTTP header name').optional(),
    env_var: z.string().optional(),
  }),
  /**
   * `Authorization: <scheme> <token>`; `scheme` defaults to `Bearer` (RFC 6750)
   * and names another where the API wants one, e.g. `Token` (Django REST
   * framework: CourtListener).
   */
  z.strictObject({
    type: z.literal('bearer_token'),
    scheme: z
      .string()
      .max(40, 'must be at most 40 characters')
      .regex(AUTH_SCHEME, 'must be an HTTP authentication scheme name such as Bearer or Token (no spaces)')
      .optional(),
    env_var: z.string().optional(),
  }),
  /** RFC 7617 Basic: credentials `username` and `password`. */
  z.strictObject({ type: z.literal('basic'), env_var: z.string().optional() }),
  /**
   * RFC 6749 client credentials (§4.4), refresh token (§6) or authorization code (§4.1) grant. The access
   * token is cached per owner and connector, refreshed 120 s before it expires,
   * and a refresh token the server rotates is kept for the next refresh.
   *
   * `authorization_code` (RFC 6749 §4.1 with PKCE, RFC 7636): every user
   * connects their own account once (the connector's `oauth/auth-url`
   * route, then the provider's consent page, then the callback); calls run
   * with the calling user's token, refreshed with its refresh token.
   * `authorize_url` is the provider's consent page and is required for it.
   */
  z
    .strictObject({
      type: z.literal('oauth2'),
      grant_type: z.enum(OAUTH2_GRANT_TYPES),
      token_url: tokenUrl,
      authorize_url: tokenUrl.optional(),
      scopes: scopes.optional(),
      /** How the client authenticates to the token endpoint: form fields (default) or an HTTP Basic header. */
      client_auth: z.enum(['body', 'basic']).default('body'),
      env_var: z.string().optional(),
    })
    .superRefine((auth, ctx) => {
      if (auth.grant_type === 'authorization_code' && auth.authorize_url === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['authorize_url'],
          message: "is required for grant_type authorization_code (the provider's consent page)",
        });
      }
      if (auth.grant_type !== 'authorization_code' && auth.authorize_url !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['authorize_url'],
          message: `is only used by grant_type authorization_code, not ${auth.grant_type}`,
        });
      }
    }),
  z.strictObject({ type: z.literal('none') }),
]);
export type ConnectorAuth = z.output<typeof authSchema>;

const rateLimitSchema = z.strictObject({
  requests_per_second: z.number().positive().optional(),
  requests_per_minute: z.number().positive().optional(),
  requests_per_hour: z.number().positive().optional(),
  requests_per_day: z.number().positive().optional(),
});

const baseUrl = z.string().superRefine((value, ctx) => {
  const reason = baseUrlProblem(value);
  if (reason) ctx.addIssue({ code: 'custom', message: reason });
});

/** Why a base_url is refused; echoes the scheme only, never the whole URL. */
export function baseUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `must use http or https, not "${url.protocol.slice(0, -1).slice(0, 20)}"`;
  }
  if (url.username || url.password) return 'must not contain credentials; use connection.auth';
  if (url.search || url.hash || value.includes('?') || value.includes('#')) {
    return 'must not contain a query string or fragment; declare query values as parameters';
  }
  return undefined;
}

export const restConnectionSchema = z.strictObject({
  base_url: baseUrl,
  auth: authSchema.default({ type: 'none' }),
  headers: z.record(z.string().regex(HEADER_NAME, 'must be a valid HTTP header name'), z.string()).optional(),
  timeout_seconds: z.number().positive().max(600).optional(),
  rate_limit: rateLimitSchema.optional(),
});
export type RestConnection = z.output<typeof restConnectionSchema>;

export const PAGINATION_TYPES = ['page_number', 'offset', 'cursor', 'link_header', 'next_url'] as const;
export type PaginationType = (typeof PAGINATION_TYPES)[number];

/** Pages one call may fetch unless `max_pages` says otherwise, and the most it may say. */
export const DEFAULT_MAX_PAGES = 10;
export const MAX_PAGES_LIMIT = 1000;

const pageCount = z.number().int('must be a whole number').positive('must be at least 1');

/**
 * Without `type`, pagination is caller-driven (seed `_create_rest_api_tool`):
 * one page per call, the result carrying `has_more` / `next_cursor` for the
 * caller to pass back as `cursor_param`. With `type`, the runtime loops inside
 * one call (`pagination.ts`). Which keys apply to which type is checked in
 * `connector-definition.rules.ts`, so the errors can name the key.
 */
export const paginationSchema = z.strictObject({
  type: z.enum(PAGINATION_TYPES).optional(),
  /** Where the next page's cursor is in the raw response body. */
  next_cursor_path: dotPath.optional(),
  /** `next_url`: where the next page's URL is in the raw response body (e.g. `next`). */
  next_url_path: dotPath.optional(),
  /** Where a boolean "more pages" flag is in the raw response body. */
  has_more_path: dotPath.optional(),
  /** Caller-driven: the declared parameter a caller sets to the cursor. `cursor`: the request parameter the runtime sets. */
  cursor_param: text.optional(),
  /** `page_number`: the page parameter (default "page") and the first page (default 1). */
  page_param: text.optional(),
  start_page: z.number().int('must be a whole number').min(0, 'must not be negative').optional(),
  /** `page_number`, `cursor`, `link_header`, `next_url`: page size sent as `page_size_param` (on the first request for the URL-following types). */
  page_size_param: text.optional(),
  page_size: pageCount.optional(),
  /** `offset`: offset (default "offset") and limit (default "limit") parameters, and the limit. */
  offset_param: text.optional(),
  limit_param: text.optional(),
  limit: pageCount.optional(),
  /** Where the total number of records is in the raw response body. */
  total_path: dotPath.optional(),
  /** Most pages one call fetches (default 10, at most 1000). */
  max_pages: pageCount.max(MAX_PAGES_LIMIT, `must be at most ${MAX_PAGES_LIMIT}`).optional(),
  /** Where the paging parameters go: the query string (default) or the request body. */
  inject_into: z.enum(['query', 'body']).optional(),
});
export type Pagination = z.output<typeof paginationSchema>;

const method = z.preprocess(
  (v) => (typeof v === 'string' ? v.toUpperCase() : v),
  z.enum(HTTP_METHODS, { error: `must be one of ${HTTP_METHODS.join(', ')}` }),
);

export const restEndpointSchema = z.strictObject({
  description: z.string().optional(),
  method: method.default('GET'),
  path: z
    .string()
    .regex(/^\//, 'must start with "/"')
    .refine(
      (p) => !/[?#]/.test(p),
      'must not contain a query string or fragment; declare query values as parameters',
    ),
  parameters: z.array(restParameterSchema).max(100).default([]),
  /** How `in: body` parameters are encoded (default json). */
  body_format: z.enum(['json', 'form']).optional(),
  /** Serve repeated calls with the same inputs from a cache for this long (reads only; off by default). */
  cache_ttl_seconds: z
    .number()
    .int('must be a whole number of seconds')
    .positive('must be at least 1')
    .max(7 * 24 * 3600, 'must be at most 604800 (7 days)')
    .optional(),
  response_mapping: responseMappingSchema.optional(),
  output_schema: outputSchemaSchema.optional(),
  pagination: paginationSchema.optional(),
});
export type RestEndpoint = z.output<typeof restEndpointSchema>;

const genericEndpointSchema = z.looseObject({
  description: z.string().optional(),
  parameters: z.array(parameterSchema).max(100).optional(),
  variables: z.array(parameterSchema).max(100).optional(),
  response_mapping: z.looseObject(responseMappingShape).optional(),
  output_schema: outputSchemaSchema.optional(),
});
export type GenericEndpoint = z.output<typeof genericEndpointSchema>;

const endpointsOf = <T extends z.ZodType>(endpoint: T) =>
  z
    .record(
      z.string().regex(ENDPOINT_NAME, 'endpoint names start with a letter and use letters, digits, _ or -'),
      endpoint,
    )
    .refine((eps) => Object.keys(eps).length > 0, 'must declare at least one endpoint')
    .refine((eps) => Object.keys(eps).length <= 200, 'must declare at most 200 endpoints');

const commonShape = {
  id: z
    .string()
    .max(100, 'must be at most 100 characters')
    .regex(KEBAB_ID, 'must be kebab-case, e.g. fec-contributions'),
  name: text.max(200),
  version: z
    .string({
      error: (iss) =>
        iss.input === undefined ? undefined : 'must be a string; quote it, e.g. version: "1.0"',
    })
    .regex(VERSION, 'must be a version such as "1.0" or "2.1.3"')
    .default('1.0'),
  description: z.string().optional(),
  // Catalogue metadata the seed keeps beside the definition (data_source_connectors).
  category: z.string().optional(),
  tags: z.array(z.string()).optional(),
  icon: z.string().optional(),
  auth_fields: z.array(z.looseObject({ name: text })).optional(),
};

export const restApiConnectorSchema = z.strictObject({
  ...commonShape,
  type: z.literal('rest_api'),
  connection: restConnectionSchema,
  endpoints: endpointsOf(restEndpointSchema),
});
export type RestApiConnectorDefinition = z.output<typeof restApiConnectorSchema>;

export const GENERIC_CONNECTOR_TYPES = CONNECTOR_TYPES.filter((t) => t !== 'rest_api') as Exclude<
  ConnectorType,
  'rest_api'
>[];

export const genericConnectorSchema = z.strictObject({
  ...commonShape,
  type: z.enum(
    GENERIC_CONNECTOR_TYPES as [Exclude<ConnectorType, 'rest_api'>, ...Exclude<ConnectorType, 'rest_api'>[]],
  ),
  connection: z.record(z.string(), z.unknown()),
  endpoints: endpointsOf(genericEndpointSchema),
});
export type GenericConnectorDefinition = z.output<typeof genericConnectorSchema>;

/** A parsed, validated connector definition. */
export type ConnectorDefinition = RestApiConnectorDefinition | GenericConnectorDefinition;
