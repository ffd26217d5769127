/**
 * Turns a `database` endpoint call into one parameterised statement: the
 * endpoint's own `query` with its placeholders bound from declared
 * parameters, or the caller's `sql` with values from `params`. Values only
 * ever travel as bound parameters.
 *
 * Placeholders:
 * - `:name` — a declared parameter (fixed query) or a key of the `params`
 *   object (caller SQL);
 * - `$1`, `$2`, … — the n-th declared parameter (fixed query) or the n-th
 *   element of the `params` list (caller SQL).
 * A parameter with no value and no default is bound as NULL.
 */
import { ConnectorError, type ConnectorFieldViolation } from '../../connector-error.js';
import { invalidInputs } from './database-inputs.js';
import { scanSqlPlaceholders, toPositionalSql } from './database-placeholders.js';
import { PARAMS_INPUT, SQL_INPUT, type DatabaseEndpoint } from './database-schema.js';

/** Longest caller SQL accepted. */
export const MAX_CALLER_SQL_CHARS = 100_000;

export interface BoundStatement {
  text: string;
  values: unknown[];
  /** Where the SQL came from, for error violations. */
  field: string;
}

export function bindStatement(
  endpointName: string,
  endpoint: DatabaseEndpoint,
  values: ReadonlyMap<string, unknown>,
): BoundStatement {
  if (endpoint.query !== undefined) return bindFixedQuery(endpointName, endpoint, values);
  return bindCallerSql(endpointName, values);
}

function bindFixedQuery(
  endpointName: string,
  endpoint: DatabaseEndpoint,
  values: ReadonlyMap<string, unknown>,
): BoundStatement {
  const query = endpoint.query as string;
  const field = `endpoints.${endpointName}.query`;
  const scan = scanSqlPlaceholders(query);
  // The definition rules already refused these; a definition stored before a rule change still fails clearly.
  if ('problem' in scan) throw ConnectorError.invalid(field, scan.problem);
  const valueOf = (name: string) => (values.has(name) ? values.get(name) : null);
  if (scan.named.length > 0) {
    const { text, names } = toPositionalSql(query, scan.named);
    return { text, values: names.map(valueOf), field };
  }
  const highest = scan.positional.at(-1) ?? 0;
  return { text: query, values: endpoint.parameters.slice(0, highest).map((p) => valueOf(p.name)), field };
}

function bindCallerSql(endpointName: string, values: ReadonlyMap<string, unknown>): BoundStatement {
  const field = `inputs.${SQL_INPUT}`;
  const sql = values.get(SQL_INPUT);
  if (typeof sql !== 'string' || sql.trim() === '') {
    throw invalidInputs(endpointName, [{ field, reason: 'must be a non-empty SQL statement' }]);
  }
  if (sql.length > MAX_CALLER_SQL_CHARS) {
    throw invalidInputs(endpointName, [
      { field, reason: `must be at most ${MAX_CALLER_SQL_CHARS} characters` },
    ]);
  }
  const scan = scanSqlPlaceholders(sql);
  if ('problem' in scan) throw invalidInputs(endpointName, [{ field, reason: scan.problem }]);
  const params = values.get(PARAMS_INPUT);
  const paramsField = `inputs.${PARAMS_INPUT}`;
  const violations: ConnectorFieldViolation[] = [];

  if (scan.named.length > 0 && scan.positional.length > 0) {
    throw invalidInputs(endpointName, [
      { field, reason: 'mixes $1-style and :name placeholders; use one style' },
    ]);
  }
  if (scan.named.length > 0) {
    if (!isPlainObject(params)) {
      throw invalidInputs(endpointName, [
        { field: paramsField, reason: 'must be an object whose keys are the :name placeholders of the SQL' },
      ]);
    }
    const { text, names } = toPositionalSql(sql, scan.named);
    for (const name of names) {
      if (!Object.hasOwn(params, name)) {
        violations.push({
          field: `${paramsField}.${name}`,
          reason: `is used by the SQL as :${name} but not given`,
        });
      }
    }
    for (const key of Object.keys(params)) {
      if (!names.includes(key)) {
        violations.push({
          field: `${paramsField}.${key}`,
          reason: `is not used by the SQL (no :${key} placeholder)`,
        });
      }
    }
    if (violations.length > 0) throw invalidInputs(endpointName, violations);
    return { text, values: names.map((name) => bindable(params[name])), field };
  }
  if (scan.positional.length > 0) {
    const highest = scan.positional.at(-1) as number;
    if (!Array.isArray(params)) {
      const reason = isPlainObject(params)
        ? '$1-style placeholders take a list of values; use :name placeholders with an object'
        : `must be a list of ${highest} value(s) for the SQL's $1-style placeholders`;
      throw invalidInputs(endpointName, [{ field: paramsField, reason }]);
    }
    if (params.length !== highest) {
      throw invalidInputs(endpointName, [
        {
          field: paramsField,
          reason: `has ${params.length} value(s) but the SQL uses placeholders up to $${highest}`,
        },
      ]);
    }
    return { text: sql, values: params.map(bindable), field };
  }
  const empty =
    params === undefined ||
    (Array.isArray(params) ? params.length === 0 : Object.keys(params as object).length === 0);
  if (!empty) {
    throw invalidInputs(endpointName, [
      { field: paramsField, reason: 'is given but the SQL has no placeholders' },
    ]);
  }
  return { text: sql, values: [], field };
}

/** `undefined` inside a list or object becomes NULL rather than a driver error. */
function bindable(value: unknown): unknown {
  return value === undefined ? null : value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
