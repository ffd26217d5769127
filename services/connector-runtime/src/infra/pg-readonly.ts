/**
 * The PostgreSQL `SqlRunner` for `database` connectors: one `pg` Pool per
 * connector (and owner and connection settings), each call in its own
 * `BEGIN READ ONLY` transaction with `SET LOCAL statement_timeout`, always
 * rolled back and followed by `DISCARD ALL`, so nothing a statement does to
 * the session (settings, advisory locks, prepared statements) reaches the
 * next caller of the pooled connection.
 *
 * Statements go through the extended protocol only, which refuses more than
 * one statement per call ("SELECT 1; COMMIT; DROP …" cannot escape the
 * read-only transaction), and values are bound, never spliced into the text.
 * Rows are read through a portal with a row limit of `maxRows + 1`: the
 * server stops there, so a query that would return millions of rows costs
 * `maxRows + 1` rows of memory, and the extra row tells us there were more.
 *
 * READ ONLY is a guard, not a sandbox: functions with side effects outside
 * the database (dblink, adminpack, …) are not stopped by it. So every new
 * connection is checked once before its first statement, and refused when
 * its role is privileged (superuser, server files and programs, CREATEROLE,
 * BYPASSRLS: `pg-readonly.role-check.ts`). Point connectors at a role that
 * has only SELECT grants.
 */
import { createHash } from 'node:crypto';
import {
  SqlRunnerError,
  type SqlConnectionSpec,
  type SqlResult,
  type SqlRunner,
  type SqlStatement,
} from '@af/connectors';
import { loadPg, type PgModule, type PgPool, type PgPoolClient } from './pg-readonly.driver.js';
import { isServerError, runLimited } from './pg-readonly.query.js';
import { checkConnectionRole } from './pg-readonly.role-check.js';

/** Time allowed to open a connection (within the statement's own deadline). */
const CONNECT_TIMEOUT_MS = 10_000;
/** The client-side deadline trails `statement_timeout` so the server's clearer error usually wins. */
const CLIENT_GRACE_MS = 2_000;
const IDLE_TIMEOUT_MS = 30_000;
/** A connection whose reset takes longer than this is dropped instead of reused. */
const CLEANUP_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_POOLS = 50;

export interface PgReadOnlyRunnerOptions {
  /** Pools kept at most; the least recently used one is closed beyond that. */
  maxPools?: number;
  /** pino-style logger for pool-level errors (never given credentials). */
  log?: { warn(fields: Record<string, unknown>, message: string): void };
  /**
   * Egress policy for database hosts: throw to refuse one (e.g. private
   * addresses in production, see `domain/egress-policy.ts`). Called for every
   * host of a connection before its pool is created; the thrown message is
   * shown to the caller.
   */
  checkHost?: (target: { host: string; port: number; connectorId: string; ownerUserId?: string }) => void | Promise<void>;
}

interface PoolEntry {
  pool: PgPool;
  connectorId: string;
}

const RUNNERS = new Set<PgReadOnlyRunner>();

/** Closes every pool of every `PgReadOnlyRunner` (service shutdown). */
export async function closeDatabasePools(): Promise<void> {
  await Promise.all([...RUNNERS].map((r) => r.close()));
}

export class PgReadOnlyRunner implements SqlRunner {
  private readonly pools = new Map<string, PoolEntry>();
  private closed = false;

  constructor(private readonly options: PgReadOnlyRunnerOptions = {}) {
    RUNNERS.add(this);
  }

  /** Pools currently open (for tests and metrics). */
  get poolCount(): number {
    return this.pools.size;
  }

  async query(spec: SqlConnectionSpec, statement: SqlStatement): Promise<SqlResult> {
    if (this.closed) throw new SqlRunnerError('connect', 'the SQL runner has been shut down');
    if (statement.signal?.aborted)
      throw new SqlRunnerError('cancelled', 'cancelled before the query was sent');
    const pg = await loadPg();
    const pool = await this.poolFor(pg, spec);

    const deadline = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      deadline.abort();
    }, statement.timeoutMs + CLIENT_GRACE_MS);
    const onCallerAbort = () => deadline.abort();
    statement.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const stopped = () =>
      timedOut
        ? new SqlRunnerError('timeout', `no answer within ${statement.timeoutMs} ms`)
        : new SqlRunnerError('cancelled', 'cancelled by the caller');
    try {
      const connecting = pool.connect();
      let client: PgPoolClient;
      try {
        client = await untilAborted(connecting, deadline.signal);
      } catch (err) {
        if (deadline.signal.aborted) {
          connecting.then(
            (c) => c.release(),
            () => undefined,
          );
          throw stopped();
        }
        throw runnerError(err, 'connect');
      }
      return await this.inReadOnlyTransaction(pg, client, statement, deadline.signal, stopped);
    } finally {
      clearTimeout(timer);
      statement.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /** Ends every pool; later queries fail. */
  async close(): Promise<void> {
    this.closed = true;
    RUNNERS.delete(this);
    const entries = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(entries.map((e) => e.pool.end().catch(() => undefined)));
  }

  private async inReadOnlyTransaction(
    pg: PgModule,
    client: PgPoolClient,
    statement: SqlStatement,
    signal: AbortSignal,
    stopped: () => SqlRunnerError,
  ): Promise<SqlResult> {
    // A checked-out client that loses its socket emits 'error'; without a listener that would crash
    // the process. Ours stays until the client is back with the pool, which listens from then on.
    let socketError: Error | undefined;
    const onClientError = (err: Error) => {
      socketError = err;
    };
    client.on('error', onClientError);
    let reusable = true;
    try {
      await untilAborted(checkConnectionRole(client), signal);
      const timeout = Math.max(1, Math.ceil(statement.timeoutMs));
      await untilAborted(client.query(`BEGIN READ ONLY; SET LOCAL statement_timeout = ${timeout}`), signal);
      return await untilAborted(
        runLimited(pg, client, statement.text, statement.values, statement.maxRows),
        signal,
      );
    } catch (err) {
      if (signal.aborted) {
        reusable = false;
        throw stopped();
      }
      if (err instanceof SqlRunnerError) {
        // A privileged role: the connection is never used (nor kept) for anything.
        reusable = false;
        throw err;
      }
      // FATAL means the server is closing this session (terminated, shutting down).
      if (socketError || !isServerError(err) || isFatal(err)) reusable = false;
      throw runnerError(err, 'query');
    } finally {
      if (reusable && !socketError) {
        try {
          const reset = (async () => {
            await client.query('ROLLBACK');
            await client.query('DISCARD ALL');
          })();
          await untilAborted(reset, AbortSignal.timeout(CLEANUP_TIMEOUT_MS));
          client.release(socketError ?? undefined);
        } catch (err) {
          client.release(err instanceof Error ? err : true);
        }
      } else {
        // Destroys the connection; the server stops the statement (statement_timeout at the latest).
        client.release(true);
      }
      client.removeListener('error', onClientError);
    }
  }

  private async poolFor(pg: PgModule, spec: SqlConnectionSpec): Promise<PgPool> {
    const key = poolKey(spec);
    const existing = this.pools.get(key);
    if (existing) {
      // Re-insert: Map order is the LRU order.
      this.pools.delete(key);
      this.pools.set(key, existing);
      return existing.pool;
    }
    if (this.options.checkHost) {
      for (const { host, port } of hostsOf(spec)) {
        try {
          await this.options.checkHost({ host, port, connectorId: spec.connectorId, ...(spec.ownerUserId ? { ownerUserId: spec.ownerUserId } : {}) });
        } catch (err) {
          throw new SqlRunnerError(
            'refused',
            `the database host is not allowed: ${err instanceof Error ? err.message : String(err)}`,
          );
        }
      }
    }
    const pool = new pg.Pool({
      ...(spec.connectionString !== undefined
        ? { connectionString: spec.connectionString }
        : {
            host: spec.host,
            port: spec.port,
            database: spec.database,
            user: spec.user,
            password: spec.password,
          }),
      ...(spec.ssl !== undefined ? { ssl: sslOption(spec.ssl) } : {}),
      max: spec.poolSize,
      idleTimeoutMillis: IDLE_TIMEOUT_MS,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      allowExitOnIdle: true,
      keepAlive: true,
      application_name: 'af-connector-runtime',
    });
    pool.on('error', (err: Error & { code?: string }) => {
      this.options.log?.warn(
        { connectorId: spec.connectorId, code: err.code },
        'database connector: an idle connection failed and was dropped',
      );
    });
    this.pools.set(key, { pool, connectorId: spec.connectorId });
    const limit = this.options.maxPools ?? DEFAULT_MAX_POOLS;
    while (this.pools.size > limit) {
      const [oldestKey, oldest] = this.pools.entries().next().value as [string, PoolEntry];
      this.pools.delete(oldestKey);
      oldest.pool.end().catch(() => undefined);
    }
    return pool;
  }
}

function sslOption(mode: NonNullable<SqlConnectionSpec['ssl']>): false | { rejectUnauthorized: boolean } {
  if (mode === 'disable') return false;
  return { rejectUnauthorized: mode === 'verify-full' };
}

/** Pools are never shared between owners, connectors or connection settings (credentials included). */
function poolKey(spec: SqlConnectionSpec): string {
  const material = JSON.stringify([
    spec.ownerUserId ?? '',
    spec.connectorId,
    spec.connectionString ?? '',
    spec.host ?? '',
    spec.port ?? 0,
    spec.database ?? '',
    spec.user ?? '',
    spec.password ?? '',
    spec.ssl ?? '',
    spec.poolSize,
  ]);
  return createHash('sha256').update(material).digest('hex');
}

/** Every host a spec may connect to; a `host` query parameter overrides the URL's host in libpq-style strings. */
function hostsOf(spec: SqlConnectionSpec): Array<{ host: string; port: number }> {
  if (spec.connectionString === undefined) return [{ host: spec.host ?? '', port: spec.port ?? 5432 }];
  const url = new URL(spec.connectionString);
  const port = url.port ? Number(url.port) : 5432;
  const hosts = [{ host: url.hostname, port }];
  const override = url.searchParams.get('host');
  if (override) hosts.push({ host: override, port });
  return hosts;
}

function isFatal(err: unknown): boolean {
  const severity = (err as { severity?: unknown }).severity;
  return severity === 'FATAL' || severity === 'PANIC';
}

function runnerError(err: unknown, phase: 'connect' | 'query'): SqlRunnerError {
  const e = err as { message?: unknown; code?: unknown; position?: unknown };
  const message = typeof e?.message === 'string' && e.message ? e.message : String(err);
  if (isServerError(err)) {
    const position =
      typeof e.position === 'string' && /^\d+$/.test(e.position) ? Number(e.position) : undefined;
    return new SqlRunnerError(phase, message, e.code as string, position);
  }
  // Anything else is the connection failing (refused, reset, DNS, connect timeout).
  const code = typeof e?.code === 'string' && !message.includes(e.code) ? `${e.code} ` : '';
  return new SqlRunnerError('connect', `${code}${message}`);
}

/** `promise`, or a rejection as soon as `signal` aborts (the promise's own outcome is then ignored). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    if (signal.aborted) {
      promise.catch(() => undefined);
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
