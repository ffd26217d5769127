/**
 * The row-limited statement of `pg-readonly.ts`: one statement through the
 * extended protocol (so never more than one), values bound, and at most
 * `maxRows + 1` rows fetched from the portal.
 */
import type { SqlResult } from '@af/connectors';
import type { PgModule, PgPoolClient } from './pg-readonly.driver.js';

/**
 * Runs one statement through an unnamed portal with a row limit: on
 * PortalSuspended (more rows exist) it syncs instead of fetching more, and on
 * an error before the sync it syncs so the connection leaves the
 * extended-protocol error state (pg itself only does that for queries
 * without a row limit).
 */
export function runLimited(
  pg: PgModule,
  client: PgPoolClient,
  text: string,
  values: readonly unknown[],
  maxRows: number,
): Promise<SqlResult> {
  return new Promise<SqlResult>((resolve, reject) => {
    const LimitedQuery = limitedQueryClass(pg);
    const query = new LimitedQuery({
      text,
      values: [...values],
      rows: maxRows + 1,
      queryMode: 'extended',
      rowMode: 'array',
      types: { getTypeParser: (oid: number, format?: string) => typeParser(pg, oid, format) },
      callback: (err: Error | null, res?: { fields: Array<{ name: string }>; rows: unknown[][] }) => {
        if (err) {
          reject(err);
          return;
        }
        const rows = res?.rows ?? [];
        resolve({
          columns: (res?.fields ?? []).map((f) => f.name),
          rows: rows.slice(0, maxRows),
          truncated: query.suspended || rows.length > maxRows,
        });
      },
    });
    client.query(query);
  });
}

interface PgConnection {
  sync(): void;
}

interface LimitedQueryInstance {
  suspended: boolean;
}

const limitedQueryClasses = new WeakMap<PgModule, new (config: object) => LimitedQueryInstance>();

function limitedQueryClass(pg: PgModule): new (config: object) => LimitedQueryInstance {
  const cached = limitedQueryClasses.get(pg);
  if (cached) return cached;
  class LimitedQuery extends pg.Query {
    suspended = false;
    private syncPending = true;

    override handlePortalSuspended(connection: PgConnection): void {
      this.suspended = true;
      this.syncPending = false;
      connection.sync();
    }

    override handleCommandComplete(msg: unknown, connection: PgConnection): void {
      this.syncPending = false;
      super.handleCommandComplete(msg, connection);
    }

    override handleEmptyQuery(connection: PgConnection): void {
      this.syncPending = false;
      super.handleEmptyQuery(connection);
    }

    override handleError(err: unknown, connection: PgConnection): void {
      // Server errors before our sync leave the backend waiting for one; pg's own
      // bind failures have already synced (and are not server errors).
      if (this.syncPending && isServerError(err)) {
        this.syncPending = false;
        connection.sync();
      }
      super.handleError(err, connection);
    }
  }
  limitedQueryClasses.set(pg, LimitedQuery);
  return LimitedQuery;
}

/** Dates and timestamps without a zone stay as Postgres wrote them; a JS Date would shift them into local time. */
const RAW_TEXT_TYPES = new Set([1082 /* date */, 1114 /* timestamp */]);

function typeParser(pg: PgModule, oid: number, format?: string): (value: string) => unknown {
  if (RAW_TEXT_TYPES.has(oid)) return (value) => value;
  return pg.types.getTypeParser(oid, format ?? 'text');
}

/** An error the server sent (it has a SQLSTATE and a severity), as opposed to a socket or driver error. */
export function isServerError(err: unknown): boolean {
  const e = err as { code?: unknown; severity?: unknown };
  return typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && typeof e.severity === 'string';
}
