/**
 * Zod schemas for connector definitions (seed `agent-factory-architecture.md`
 * §4 "Common Fields" plus the `rest_api` specifics used by
 * `_create_rest_api_tool`). Field names are the seed's, in snake_case.
 *
 * These schemas check shape only; cross-field rules (path placeholders are
 * declared parameters, defaults fit their type, …) live in
 * `connector-definition.rules.ts`.
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
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
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

const entityExtractionSchema = z.looseObject({
  field: text,
  entity_type: text,
  relationship_type: z.string().optional(),
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

/**
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
  z.strictObject({ type: z.literal('bearer_token'), env_var: z.string().optional() }),
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

export const paginationSchema = z.strictObject({
  /** Where the next page's cursor is in the raw response body. */
  next_cursor_path: dotPath.optional(),
  /** Where a boolean "more pages" flag is in the raw response body. */
  has_more_path: dotPath.optional(),
  /** The declared parameter a caller sets to the cursor to get the next page. */
  cursor_param: z.string().optional(),
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
  parameters: z.array(parameterSchema).max(100).default([]),
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
