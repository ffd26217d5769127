/**
 * Maps a failed SQL call to a ConnectorError, by Postgres SQLSTATE where the
 * server sent one (https://www.postgresql.org/docs/current/errcodes-appendix.html).
 * Every message is passed through `redactSecrets` with the connection's
 * secrets: driver and server messages can echo a user name or host string.
 */
import { ConnectorError, type ConnectorErrorCode } from '../../connector-error.js';
import { redactSecrets } from '../../redaction.js';
import { SqlRunnerError } from './database-sql-runner.js';

export interface SqlErrorContext {
  /** `connector-id/endpoint`. */
  label: string;
  /** Field the statement came from: `inputs.sql` or `endpoints.<name>.query`. */
  statementField: string;
  timeoutMs: number;
  secrets: readonly string[];
}

export function connectorErrorForSql(err: unknown, ctx: SqlErrorContext): ConnectorError {
  if (!(err instanceof SqlRunnerError)) {
    const message = err instanceof Error ? err.message : String(err);
    return new ConnectorError(
      'UPSTREAM_ERROR',
      scrub(`${ctx.label}: the database call failed: ${message}`, ctx),
    );
  }
  const detail = err.position !== undefined ? `${err.message} (at character ${err.position})` : err.message;
  if (err.kind === 'cancelled')
    return new ConnectorError('CANCELLED', `${ctx.label}: cancelled by the caller`);
  if (err.kind === 'timeout') {
    return new ConnectorError(
      'TIMEOUT',
      `${ctx.label}: the database did not answer within ${ctx.timeoutMs} ms (connection.timeout_seconds: ${ctx.timeoutMs / 1000})`,
    );
  }
  if (err.kind === 'refused')
    return new ConnectorError('FAILED_PRECONDITION', scrub(`${ctx.label}: ${err.message}`, ctx));
  const state = err.sqlState;
  if (state === '25006') {
    return new ConnectorError(
      'INVALID_ARGUMENT',
      scrub(
        `${ctx.label}: this connector is read-only and the statement tries to change data (${detail})`,
        ctx,
      ),
      {
        violations: [
          { field: ctx.statementField, reason: 'must not write: the connector runs read-only transactions' },
        ],
      },
    );
  }
  if (state === '57014') return statementTimeout(ctx);
  const code = state ? codeForSqlState(state) : err.kind === 'connect' ? 'UNAVAILABLE' : 'UPSTREAM_ERROR';
  const what = DESCRIPTIONS[code] ?? 'the database call failed';
  const message = scrub(`${ctx.label}: ${what}: ${detail}`, ctx);
  if (code === 'INVALID_ARGUMENT') {
    return new ConnectorError(code, message, {
      violations: [{ field: ctx.statementField, reason: scrub(detail, ctx) }],
    });
  }
  return new ConnectorError(code, message);
}

/**
 * The server cancelled the statement at `statement_timeout`, which the runner
 * sets to the call's timeout (`connection.timeout_seconds`). Not retryable:
 * the same statement would take as long again, and a retry (with the timeout
 * doubled, as the failure table does for other timeouts) would keep the
 * caller waiting three times `timeout_seconds` for the same error.
 */
function statementTimeout(ctx: SqlErrorContext): ConnectorError {
  return new ConnectorError(
    'TIMEOUT',
    `${ctx.label}: the query did not finish within ${ctx.timeoutMs} ms (connection.timeout_seconds: ${ctx.timeoutMs / 1000}) and the database cancelled it; make the query cheaper or raise timeout_seconds`,
    { retryable: false },
  );
}

/** The connector error code for a SQLSTATE (class = first two characters). */
export function codeForSqlState(state: string): ConnectorErrorCode {
  if (state === '42501') return 'FAILED_PRECONDITION'; // insufficient_privilege: the role lacks a grant
  if (state === '3D000') return 'FAILED_PRECONDITION'; // invalid_catalog_name: no such database
  if (state === '08P01') return 'INVALID_ARGUMENT'; // protocol violation: the values do not match the placeholders
  if (state === '40001' || state === '40P01' || state === '55P03') return 'UNAVAILABLE'; // retry may succeed
  switch (state.slice(0, 2)) {
    case '28': // invalid authorization
      return 'AUTH_FAILED';
    case '08': // connection exception
    case '53': // insufficient resources (too many connections, out of memory)
    case '57': // operator intervention (shutdown, cannot connect now)
    case '58': // system error
      return 'UNAVAILABLE';
    case '0A': // feature not supported
    case '21': // cardinality violation
    case '22': // data exception: bad value for a parameter, division by zero
    case '26': // invalid SQL statement name
    case '2F': // SQL routine exception
    case '34': // invalid cursor name
    case '3F': // invalid schema name
    case '42': // syntax error or access rule violation
    case '44': // with check option violation
      return 'INVALID_ARGUMENT';
    default:
      return 'UPSTREAM_ERROR';
  }
}

const DESCRIPTIONS: Partial<Record<ConnectorErrorCode, string>> = {
  INVALID_ARGUMENT: 'the database rejected the query',
  AUTH_FAILED: 'the database refused the stored credentials; the connector needs new credentials',
  FAILED_PRECONDITION: 'the database refused the request',
  UNAVAILABLE: 'the database is unavailable',
  UPSTREAM_ERROR: 'the database call failed',
};

function scrub(text: string, ctx: SqlErrorContext): string {
  return redactSecrets(text, ctx.secrets);
}
