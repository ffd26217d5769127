/**
 * The port `database` connectors run SQL through. The domain never imports
 * `pg`: the service passes an implementation (`infra/pg-readonly.ts`) in
 * `ExecutionContext.sql`, and unit tests pass a fake.
 *
 * Contract an implementation keeps (the integration tests check the real one):
 * - every call runs in its own READ ONLY transaction with `statement_timeout`
 *   set to `timeoutMs`, and leaves no session state behind;
 * - `text` is sent with the extended protocol (one statement, values bound as
 *   parameters, never spliced into the text);
 * - at most `maxRows` rows are returned; `truncated` says more existed;
 * - failures are `SqlRunnerError`s whose messages hold no credential.
 */

/** Where to connect. Either `connectionString`, or `host`/`database` with `user`/`password`. */
export interface SqlConnectionSpec {
  /** For pool bookkeeping and logs; pools are kept per connector and connection settings. */
  connectorId: string;
  /** Whose connector it is: pools are never shared between owners. */
  ownerUserId?: string;
  /** `postgres://` or `postgresql://` URL (from the `connection_string` credential). */
  connectionString?: string;
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  password?: string;
  /** TLS: off, encrypted without verifying the server, or verified. Unset: as the connection string says. */
  ssl?: SqlSslMode;
  /** Most connections the pool opens for this connector. */
  poolSize: number;
}

export const SQL_SSL_MODES = ['disable', 'require', 'verify-full'] as const;
export type SqlSslMode = (typeof SQL_SSL_MODES)[number];

export interface SqlStatement {
  /** One statement with `$1`-style placeholders. */
  text: string;
  /** Bound to `$1..$n` in order. */
  values: readonly unknown[];
  /** Most rows to return (the runner reads one more to know whether there are more). */
  maxRows: number;
  /** The statement's timeout (server side `statement_timeout`, and a client-side deadline). */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface SqlResult {
  /** Column names in select order (duplicates possible). */
  columns: string[];
  /** At most `maxRows` rows, each in column order. */
  rows: unknown[][];
  /** True when the statement produced more than `maxRows` rows. */
  truncated: boolean;
}

/**
 * How a runner call failed: `connect` (could not get a connection: network,
 * DNS, connection refused), `refused` (the runner's egress policy does not
 * allow the host, or the connection's role is privileged), `query` (the server refused or aborted the statement),
 * `timeout` (the client-side deadline passed), `cancelled` (the caller's
 * signal fired). `sqlState` is Postgres' SQLSTATE when the server sent one.
 */
export type SqlFailureKind = 'connect' | 'refused' | 'query' | 'timeout' | 'cancelled';

export class SqlRunnerError extends Error {
  override readonly name = 'SqlRunnerError';
  constructor(
    readonly kind: SqlFailureKind,
    message: string,
    readonly sqlState?: string,
    /** 1-based character offset into the statement text, when the server gave one. */
    readonly position?: number,
  ) {
    super(message);
  }
}

export interface SqlRunner {
  /** Runs one read-only statement. Throws SqlRunnerError. */
  query(connection: SqlConnectionSpec, statement: SqlStatement): Promise<SqlResult>;
}
