/**
 * `database` connectors (seed §4 "Type: database"): read-only SQL against a
 * PostgreSQL server. The SQL itself runs through `ctx.sql` (a `SqlRunner`;
 * the service wires `infra/pg-readonly.ts`), which opens one READ ONLY
 * transaction per call with `statement_timeout` set, binds every value as a
 * parameter and reads at most `max_rows` rows (plus one, to report
 * `has_more`). This module validates inputs, binds the statement, maps rows
 * to records and failures to ConnectorErrors with secrets redacted.
 *
 * Credentials: `connection_string` (auth type connection_string), or `user`
 * and `password` (auth type user_password, with `connection.host`,
 * `connection.database` and optionally `connection.port`).
 */
import type { ConnectorDefinition } from '../../connector-definition.schema.js';
import { ConnectorError } from '../../connector-error.js';
import type { ConnectorTypeModule, ExecutionContext } from '../../connector-type.js';
import { applyResponseMapping, type EndpointResult } from '../../response-mapping.js';
import { credentialSecrets, type ConnectorCredentials } from '../rest-api/rest-request.js';
import { connectorErrorForSql } from './database-errors.js';
import { findEndpoint, resolveDeclaredInputs } from './database-inputs.js';
import {
  checkDatabaseRules,
  DATABASE_KNOWN_KEYS,
  databaseConnectorSchema,
  type DatabaseConnectorDefinition,
  type DatabaseEndpoint,
} from './database-schema.js';
import type { SqlConnectionSpec, SqlResult } from './database-sql-runner.js';
import { bindStatement } from './database-statement.js';

export const databaseType: ConnectorTypeModule = {
  type: 'database',
  schema: databaseConnectorSchema,
  knownKeys: DATABASE_KNOWN_KEYS,
  checkRules: (def) => checkDatabaseRules(def as DatabaseConnectorDefinition),
  requiredCredentials: (def) => databaseCredentialNames(def as DatabaseConnectorDefinition),
  timeoutMs: (def) => (def as DatabaseConnectorDefinition).connection.timeout_seconds * 1000,
  execute: (def, endpoint, inputs, credentials, ctx) =>
    executeDatabaseEndpoint(def, endpoint, inputs, credentials, ctx),
};

export function databaseCredentialNames(def: DatabaseConnectorDefinition): string[] {
  return def.connection.auth.type === 'connection_string' ? ['connection_string'] : ['user', 'password'];
}

export async function executeDatabaseEndpoint(
  definition: ConnectorDefinition,
  endpointName: string,
  inputs: Readonly<Record<string, unknown>>,
  credentials: ConnectorCredentials,
  ctx: ExecutionContext,
): Promise<EndpointResult> {
  const def = definition as unknown as DatabaseConnectorDefinition;
  const label = `${def.id}/${endpointName}`;
  const endpoint = findEndpoint<DatabaseEndpoint>(def, endpointName);
  const values = resolveDeclaredInputs(endpoint.parameters, endpointName, inputs);
  const statement = bindStatement(endpointName, endpoint, values);
  const { spec: base, secrets } = connectionSpec(def, credentials);
  const spec = ctx.ownerUserId !== undefined ? { ...base, ownerUserId: ctx.ownerUserId } : base;
  if (!ctx.sql) {
    throw new ConnectorError(
      'FAILED_PRECONDITION',
      `${label}: this service was started without a SQL runner, so database connectors cannot run here`,
    );
  }
  const timeoutMs = ctx.timeoutMs ?? def.connection.timeout_seconds * 1000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new ConnectorError(
      'INVALID_ARGUMENT',
      `${label}: the timeout must be a positive number of milliseconds`,
    );
  }
  if (ctx.signal?.aborted)
    throw new ConnectorError('CANCELLED', `${label}: cancelled before the query was sent`);

  let result: SqlResult;
  try {
    result = await ctx.sql.query(spec, {
      text: statement.text,
      values: statement.values,
      maxRows: endpoint.max_rows,
      timeoutMs,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
  } catch (err) {
    throw connectorErrorForSql(err, { label, statementField: statement.field, timeoutMs, secrets });
  }
  return toEndpointResult(result, endpoint);
}

/** Rows as records keyed by column name, mapped, with `has_more` and a warning when cut at max_rows. */
export function toEndpointResult(result: SqlResult, endpoint: DatabaseEndpoint): EndpointResult {
  const warnings: string[] = [];
  const names = uniqueColumnNames(result.columns, warnings);
  const records = result.rows.slice(0, endpoint.max_rows).map((row) => {
    const record: Record<string, unknown> = {};
    names.forEach((name, i) => {
      record[name] = toJsonValue(row[i]);
    });
    return record;
  });
  const mapped = applyResponseMapping(records, endpoint.response_mapping);
  const truncated = result.truncated || result.rows.length > endpoint.max_rows;
  if (truncated) {
    warnings.push(
      `the query returned more than max_rows (${endpoint.max_rows}) rows; only the first ${endpoint.max_rows} are returned`,
    );
  }
  const all = [...(mapped.warnings ?? []), ...warnings];
  return {
    results: mapped.results,
    count: mapped.results.length,
    has_more: truncated,
    ...(all.length > 0 ? { warnings: all } : {}),
  };
}

/** `a, a, b` → `a, a_2, b`, with a warning: a record cannot hold two values under one key. */
function uniqueColumnNames(columns: readonly string[], warnings: string[]): string[] {
  const used = new Set<string>();
  const renamed: string[] = [];
  const names = columns.map((column) => {
    let name = column;
    for (let k = 2; used.has(name); k++) name = `${column}_${k}`;
    if (name !== column) renamed.push(`${column} → ${name}`);
    used.add(name);
    return name;
  });
  if (renamed.length > 0) warnings.push(`duplicate column names were renamed: ${renamed.join(', ')}`);
  return names;
}

/** Driver values as JSON-safe values: dates as ISO strings, bytes as base64, bigints as strings. */
export function toJsonValue(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = toJsonValue(v);
    return out;
  }
  return value;
}

/** Where to connect, and every secret to scrub from messages. */
export function connectionSpec(
  def: DatabaseConnectorDefinition,
  credentials: ConnectorCredentials,
): { spec: SqlConnectionSpec; secrets: string[] } {
  const c = def.connection;
  const missing = databaseCredentialNames(def).filter(
    (name) => typeof credentials[name] !== 'string' || credentials[name] === '',
  );
  if (missing.length > 0) {
    throw new ConnectorError(
      'FAILED_PRECONDITION',
      `connector "${def.id}" needs the credential${missing.length > 1 ? 's' : ''} ${missing.map((m) => `"${m}"`).join(', ')}; store ${missing.length > 1 ? 'them' : 'it'} with the connector`,
    );
  }
  const secrets = credentialSecrets(credentials);
  const base = {
    connectorId: def.id,
    poolSize: c.pool_size,
    ...(c.ssl !== undefined ? { ssl: c.ssl } : {}),
  };
  if (c.auth.type === 'connection_string') {
    const connectionString = credentials.connection_string as string;
    const url = parsePostgresUrl(connectionString);
    if (!url) {
      throw new ConnectorError(
        'FAILED_PRECONDITION',
        `connector "${def.id}": the "connection_string" credential must be a postgres:// or postgresql:// URL with a host`,
      );
    }
    if (url.password) {
      secrets.push(url.password);
      secrets.push(safeDecode(url.password));
    }
    return { spec: { ...base, connectionString }, secrets };
  }
  return {
    spec: {
      ...base,
      host: c.host as string,
      port: c.port ?? 5432,
      database: c.database as string,
      user: credentials.user as string,
      password: credentials.password as string,
    },
    secrets,
  };
}

function parsePostgresUrl(value: string): URL | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') return undefined;
    return url.hostname ? url : undefined;
  } catch {
    return undefined;
  }
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
