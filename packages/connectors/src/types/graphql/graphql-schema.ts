/**
 * `graphql` definitions (seed §4 "Type: graphql"): `connection.endpoint` +
 * auth like rest_api; each endpoint a `query` document with typed
 * `variables`, a `response_mapping` and optional pageInfo cursor pagination.
 */
import { z } from 'zod';
import { responseMappingSchema } from '../../connector-definition.schema.js';
import type { DefinitionIssue } from '../../connector-definition.rules.js';
import {
  authWithDefaultSchema,
  boundedInt,
  checkAuth,
  checkMappedFieldNames,
  checkParameters,
  checkStaticHeaders,
  connectorSchemaOf,
  dotPath,
  headersSchema,
  httpUrl,
  newRuleSink,
  outputSchemaField,
  parametersSchema,
  rateLimitSchema,
  SUPPORTED_AUTH_TYPES,
  text,
  timeoutSecondsSchema,
} from '../http-common/graphql-rss-web-definition.js';

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;
export const MAX_QUERY_CHARS = 100_000;

export const graphqlConnectionSchema = z.strictObject({
  /** The GraphQL endpoint URL (a query string is allowed, e.g. `?version=2`). */
  endpoint: httpUrl({ allowQuery: true }),
  auth: authWithDefaultSchema,
  headers: headersSchema,
  timeout_seconds: timeoutSecondsSchema,
  rate_limit: rateLimitSchema,
});

export const graphqlPaginationSchema = z.strictObject({
  /** Dot path of the connection's `pageInfo` object (`hasNextPage`, `endCursor`) in the response. */
  page_info_path: dotPath,
  /** The declared string variable that takes the cursor (`after`). */
  cursor_variable: z.string().regex(GRAPHQL_NAME, 'must be a GraphQL variable name'),
  /** Pages fetched per call (1: the caller pages with `next_cursor`). */
  max_pages: boundedInt(1, 100).default(1),
});

const variableList = parametersSchema
  .unwrap()
  .refine(
    (list) => list.every((p) => GRAPHQL_NAME.test(p.name)),
    'variable names must be GraphQL names (letters, digits and _; not starting with a digit)',
  );

export const graphqlEndpointSchema = z.strictObject({
  description: z.string().optional(),
  query: text.max(MAX_QUERY_CHARS, `must be at most ${MAX_QUERY_CHARS} characters`),
  /** Which operation to run when `query` holds several. */
  operation_name: z.string().regex(GRAPHQL_NAME, 'must be a GraphQL operation name').optional(),
  /** The seed's name for the inputs; `parameters` is accepted as a synonym. */
  variables: variableList.optional(),
  parameters: variableList.optional(),
  response_mapping: responseMappingSchema.optional(),
  output_schema: outputSchemaField,
  pagination: graphqlPaginationSchema.optional(),
});
export type GraphqlEndpoint = z.output<typeof graphqlEndpointSchema>;

export const graphqlConnectorSchema = connectorSchemaOf(
  'graphql',
  graphqlConnectionSchema,
  graphqlEndpointSchema,
);
export type GraphqlConnectorDefinition = z.output<typeof graphqlConnectorSchema>;

/** GraphQL connectors send every scheme the HTTP types share, plus OAuth2 (the rest_api session code). */
export const GRAPHQL_AUTH_TYPES: ReadonlySet<string> = new Set([...SUPPORTED_AUTH_TYPES, 'oauth2']);

export const GRAPHQL_KNOWN_KEYS = [
  'endpoint',
  'query',
  'variables',
  'operation_name',
  'page_info_path',
  'cursor_variable',
  'max_pages',
] as const;

/** The endpoint's inputs, whichever of the two names declared them. */
export function graphqlVariables(endpoint: GraphqlEndpoint) {
  return endpoint.variables ?? endpoint.parameters ?? [];
}

/**
 * Cross-field rules: auth placement, headers, variables (duplicates,
 * defaults, each used by the query), pagination's cursor variable, mapped
 * field names.
 */
export function checkGraphqlRules(def: GraphqlConnectorDefinition): {
  errors: DefinitionIssue[];
  warnings: DefinitionIssue[];
} {
  const sink = newRuleSink();
  checkAuth(def.connection.auth, 'connection.auth', sink, GRAPHQL_AUTH_TYPES);
  checkStaticHeaders(def.connection.headers, 'connection.headers', sink);
  const auth = def.connection.auth;
  if (auth.type === 'api_key' && auth.in === 'query' && auth.key_param) {
    if (new URL(def.connection.endpoint).searchParams.has(auth.key_param)) {
      sink.errors.push({
        field: 'connection.endpoint',
        reason: `already has a "${auth.key_param}" query value; the api key is added by connection.auth`,
      });
    }
  }

  for (const [name, endpoint] of Object.entries(def.endpoints)) {
    const at = `endpoints.${name}`;
    if (endpoint.variables && endpoint.parameters) {
      sink.errors.push({ field: `${at}.parameters`, reason: 'use either variables or parameters, not both' });
    }
    const listKey = endpoint.variables ? 'variables' : 'parameters';
    const vars = graphqlVariables(endpoint);
    checkParameters(vars, `${at}.${listKey}`, sink);

    const used = queryVariableNames(endpoint.query);
    vars.forEach((v, i) => {
      if (!used.has(v.name)) {
        sink.errors.push({
          field: `${at}.${listKey}[${i}].name`,
          reason: `"${v.name}" is not used by the query (no $${v.name} in it), so a value given for it would be ignored`,
        });
      }
    });
    const declared = new Set(vars.map((v) => v.name));
    for (const u of used) {
      if (!declared.has(u)) {
        sink.warnings.push({
          field: `${at}.query`,
          reason: `uses $${u}, which is not declared under ${listKey}; callers cannot set it`,
        });
      }
    }

    const pagination = endpoint.pagination;
    if (pagination) {
      const index = vars.findIndex((v) => v.name === pagination.cursor_variable);
      if (index < 0) {
        sink.errors.push({
          field: `${at}.pagination.cursor_variable`,
          reason: `"${pagination.cursor_variable}" is not a declared variable`,
        });
      } else if (vars[index]?.type !== 'string') {
        sink.errors.push({
          field: `${at}.${listKey}[${index}].type`,
          reason: `"${pagination.cursor_variable}" takes the page cursor, so it must be a string`,
        });
      }
    }
    const fields = endpoint.response_mapping?.fields;
    checkMappedFieldNames(
      fields ? Object.keys(fields) : undefined,
      endpoint.response_mapping,
      endpoint.output_schema,
      at,
      'response_mapping.fields',
      sink,
    );
  }
  return sink;
}

/**
 * `$name` references in a GraphQL document, ignoring comments, strings and
 * block strings (where a `$` is just text).
 */
export function queryVariableNames(query: string): Set<string> {
  const stripped = query
    .replace(/"""[\s\S]*?"""/g, ' ')
    .replace(/"(?:[^"\\\n]|\\.)*"/g, ' ')
    .replace(/#[^\n\r]*/g, ' ');
  const names = new Set<string>();
  for (const m of stripped.matchAll(/\$\s*([_A-Za-z][_0-9A-Za-z]*)/g)) names.add(m[1] as string);
  return names;
}
