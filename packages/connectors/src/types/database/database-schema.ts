/**
 * Definition schema and rules for `database` connectors (seed §4 "Type:
 * database"): a PostgreSQL server reached with a `connection_string`
 * credential, or `host`/`port`/`database` fields with `user`/`password`
 * credentials; endpoints of `type: sql` that either carry their own `query`
 * (placeholders bound from declared parameters) or, like the seed's `query`
 * endpoint, take the SQL from the caller's `sql` input with values in `params`.
 */
import { z } from 'zod';
import type { DefinitionIssue } from '../../connector-definition.rules.js';
import {
  genericConnectorSchema,
  outputSchemaSchema,
  parameterSchema,
  responseMappingSchema,
  type EndpointParameter,
} from '../../connector-definition.schema.js';
import { checkParameterDeclarations } from './database-inputs.js';
import { scanSqlPlaceholders } from './database-placeholders.js';
import { SQL_SSL_MODES } from './database-sql-runner.js';

export const DATABASE_DEFAULT_TIMEOUT_SECONDS = 30;
export const DATABASE_DEFAULT_MAX_ROWS = 1000;
export const DATABASE_MAX_ROWS_LIMIT = 50_000;
export const DATABASE_MAX_POOL_SIZE = 20;

/** `env_var` is accepted so the seed parses; credentials come from the encrypted store. */
const databaseAuthSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('connection_string'), env_var: z.string().optional() }),
  z.strictObject({ type: z.literal('user_password'), env_var: z.string().optional() }),
]);

const hostName = z
  .string()
  .min(1, 'must not be empty')
  .max(253)
  .regex(/^[A-Za-z0-9.:[\]_-]+$/, 'must be a host name or IP address');

export const databaseConnectionSchema = z.strictObject({
  driver: z.literal('postgresql').default('postgresql'),
  auth: databaseAuthSchema,
  host: hostName.optional(),
  port: z.number().int().min(1).max(65535).optional(),
  database: z.string().min(1, 'must not be empty').max(63).optional(),
  ssl: z.enum(SQL_SSL_MODES).optional(),
  pool_size: z.number().int().min(1).max(DATABASE_MAX_POOL_SIZE).default(3),
  timeout_seconds: z.number().positive().max(600).default(DATABASE_DEFAULT_TIMEOUT_SECONDS),
  read_only: z
    .literal(true, { error: 'must be true: database connectors only run read-only transactions' })
    .default(true),
});
export type DatabaseConnection = z.output<typeof databaseConnectionSchema>;

export const databaseEndpointSchema = z.strictObject({
  description: z.string().optional(),
  type: z.literal('sql', { error: 'must be sql' }).default('sql'),
  /** Fixed SQL; without it the SQL comes from the caller's `sql` input. */
  query: z.string().min(1, 'must not be empty').max(100_000).optional(),
  parameters: z.array(parameterSchema).max(100).default([]),
  max_rows: z.number().int().min(1).max(DATABASE_MAX_ROWS_LIMIT).default(DATABASE_DEFAULT_MAX_ROWS),
  response_mapping: responseMappingSchema.optional(),
  output_schema: outputSchemaSchema.optional(),
});
export type DatabaseEndpoint = z.output<typeof databaseEndpointSchema>;

const ENDPOINT_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

export const databaseConnectorSchema = genericConnectorSchema.extend({
  type: z.literal('database'),
  connection: databaseConnectionSchema,
  endpoints: z
    .record(
      z.string().regex(ENDPOINT_NAME, 'endpoint names start with a letter and use letters, digits, _ or -'),
      databaseEndpointSchema,
    )
    .refine((eps) => Object.keys(eps).length > 0, 'must declare at least one endpoint')
    .refine((eps) => Object.keys(eps).length <= 200, 'must declare at most 200 endpoints'),
});
export type DatabaseConnectorDefinition = z.output<typeof databaseConnectorSchema>;

export const DATABASE_KNOWN_KEYS = [
  'driver',
  'host',
  'port',
  'database',
  'ssl',
  'pool_size',
  'read_only',
  'query',
  'max_rows',
] as const;

/** The caller-SQL endpoint's inputs (seed `query` endpoint). */
export const SQL_INPUT = 'sql';
export const PARAMS_INPUT = 'params';

/** Cross-field rules: auth vs. server fields, placeholders vs. declared parameters. */
export function checkDatabaseRules(def: DatabaseConnectorDefinition): {
  errors: DefinitionIssue[];
  warnings: DefinitionIssue[];
} {
  const errors: DefinitionIssue[] = [];
  const warnings: DefinitionIssue[] = [];
  const c = def.connection;
  if (c.auth.type === 'user_password') {
    if (!c.host)
      errors.push({ field: 'connection.host', reason: 'is required when auth type is user_password' });
    if (!c.database)
      errors.push({ field: 'connection.database', reason: 'is required when auth type is user_password' });
  } else {
    for (const key of ['host', 'port', 'database'] as const) {
      if (c[key] !== undefined) {
        errors.push({
          field: `connection.${key}`,
          reason: 'is only used with auth type user_password; the connection string names the server',
        });
      }
    }
  }
  if (c.auth.env_var !== undefined) {
    warnings.push({
      field: 'connection.auth.env_var',
      reason:
        'is ignored: credentials are stored encrypted with the connector, not read from the environment',
    });
  }
  for (const [name, endpoint] of Object.entries(def.endpoints)) {
    const at = `endpoints.${name}`;
    checkParameterDeclarations(endpoint.parameters, `${at}.parameters`, errors);
    if (endpoint.query !== undefined)
      checkFixedQuery(endpoint.query, endpoint.parameters, at, errors, warnings);
    else checkCallerSql(endpoint.parameters, at, errors);
    if (endpoint.response_mapping?.results_path !== undefined) {
      errors.push({
        field: `${at}.response_mapping.results_path`,
        reason: 'is not used by database endpoints: every row is one result',
      });
    }
  }
  return { errors, warnings };
}

function checkFixedQuery(
  query: string,
  params: readonly EndpointParameter[],
  at: string,
  errors: DefinitionIssue[],
  warnings: DefinitionIssue[],
): void {
  const scan = scanSqlPlaceholders(query);
  if ('problem' in scan) {
    errors.push({ field: `${at}.query`, reason: scan.problem });
    return;
  }
  if (scan.named.length > 0 && scan.positional.length > 0) {
    errors.push({ field: `${at}.query`, reason: 'mixes $1-style and :name placeholders; use one style' });
    return;
  }
  const used = new Set<string>();
  for (const p of scan.named) {
    if (!params.some((q) => q.name === p.name)) {
      errors.push({ field: `${at}.query`, reason: `placeholder :${p.name} is not a declared parameter` });
    }
    used.add(p.name);
  }
  for (const n of scan.positional) {
    const param = params[n - 1];
    if (n === 0 || !param) {
      errors.push({
        field: `${at}.query`,
        reason: `placeholder $${n} has no parameter: $n binds the n-th declared parameter and ${params.length} are declared`,
      });
    } else {
      used.add(param.name);
    }
  }
  params.forEach((p, i) => {
    if (!used.has(p.name)) {
      warnings.push({ field: `${at}.parameters[${i}].name`, reason: `"${p.name}" is not used by the query` });
    }
  });
}

function checkCallerSql(params: readonly EndpointParameter[], at: string, errors: DefinitionIssue[]): void {
  const sql = params.find((p) => p.name === SQL_INPUT);
  if (!sql) {
    errors.push({
      field: at,
      reason: `needs a query, or a string parameter named "${SQL_INPUT}" so the caller supplies the SQL`,
    });
  } else if (sql.type !== 'string') {
    errors.push({
      field: `${at}.parameters[${params.indexOf(sql)}].type`,
      reason: `"${SQL_INPUT}" must be a string`,
    });
  }
  params.forEach((p, i) => {
    if (p.name === PARAMS_INPUT && p.type !== 'object' && p.type !== 'array') {
      errors.push({
        field: `${at}.parameters[${i}].type`,
        reason: `"${PARAMS_INPUT}" must be object (for :name placeholders) or array (for $1-style placeholders)`,
      });
    } else if (p.name !== SQL_INPUT && p.name !== PARAMS_INPUT) {
      errors.push({
        field: `${at}.parameters[${i}].name`,
        reason: `endpoints without a query take only "${SQL_INPUT}" and "${PARAMS_INPUT}"; declare a query to use "${p.name}"`,
      });
    }
  });
}
