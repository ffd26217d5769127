/**
 * Statements of the resolution path run as named prepared statements on the
 * transaction's own connection: PostgreSQL parses and plans each once per
 * connection instead of on every call. At a million stored records planning
 * was about a tenth of a record's time (the candidate read alone planned in
 * 0.6 ms). The name is a hash of the text, so one text is one statement on
 * every connection, and a changed text is a new statement.
 *
 * Not for a connection pooler in transaction mode (PgBouncer's default
 * before 1.21), which may hand the next call another server connection.
 */
import { createHash } from 'node:crypto';
import { QueryFailedError, type DataSource, type EntityManager } from 'typeorm';

interface PgClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

const names = new Map<string, string>();

/** The statement name of `text` (texts are the code's own, so the map stays small). */
export function statementName(text: string): string {
  let name = names.get(text);
  if (!name) names.set(text, (name = `er_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`));
  return name;
}

/** `text` with `values` as a named prepared statement on `m`'s connection: its rows (for UPDATE … RETURNING too). */
export async function prepared<T = any>(m: EntityManager, text: string, values: unknown[]): Promise<T[]> {
  // Outside a transaction there is no connection of its own to keep the statement on.
  if (!m.queryRunner) return m.query(text, values);
  const client = (await m.queryRunner.connect()) as PgClient;
  try {
    return (await client.query({ name: statementName(text), text, values })).rows as T[];
  } catch (err) {
    // As TypeORM reports a failed query, so callers see one kind of error.
    throw new QueryFailedError(text, values, err as Error);
  }
}

/** `prepared` on a connection of `db`'s pool, for a read outside a transaction (each pooled connection keeps its statements). */
export async function preparedRead<T = any>(db: DataSource, text: string, values: unknown[]): Promise<T[]> {
  const runner = db.createQueryRunner();
  try {
    return await prepared<T>(runner.manager, text, values);
  } finally {
    await runner.release();
  }
}
