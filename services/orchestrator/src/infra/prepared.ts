/**
 * Named (server-side prepared) statements on the DataSource's pg pool: each
 * pooled connection parses and plans a statement text once, then only binds
 * and executes it. The engine's per-node statements are kilobytes of CTEs
 * whose parsing and planning cost more than their execution; this path also
 * skips TypeORM's per-query runner. Texts must not embed values (bind them):
 * past MAX_NAMED distinct texts, statements run unnamed.
 */
import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';

/** The part of pg.Pool used here (TypeORM's PostgresDriver keeps it as `master`). */
interface PgPool {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

const MAX_NAMED = 512;
/** PostgreSQL's "cached plan must not change result type" (a table a `*` statement reads changed under it, e.g. a migration). */
const PLAN_CHANGED = '0A000';
const names = new Map<string, string>();
let generation = 0;

function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `af_${createHash('sha1').update(text).digest('hex').slice(0, 20)}_${generation}`;
    names.set(text, name);
  }
  return name;
}

/** Rows of `text` run as a named statement (one implicit transaction, like any single statement). */
export async function preparedRows<T = Record<string, unknown>>(db: DataSource, text: string, values: unknown[] = []): Promise<T[]> {
  const pool = (db.driver as unknown as { master?: PgPool }).master;
  if (!pool) throw new Error('the database is not connected');
  const name = nameOf(text);
  try {
    return (await pool.query(name ? { name, text, values } : { text, values })).rows as T[];
  } catch (err) {
    if (!name || (err as { code?: unknown }).code !== PLAN_CHANGED) throw err;
    // The statement failed as a whole (nothing was written): prepare it afresh under a new name.
    generation++;
    names.delete(text);
    return (await pool.query({ text, values })).rows as T[];
  }
}
