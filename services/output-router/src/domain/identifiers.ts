/**
 * Names a user gives to workspace tables and their columns become SQL
 * identifiers: only a safe subset is accepted (lower-case letters, digits,
 * underscores, starting with a letter; at most 63 bytes, PostgreSQL's limit),
 * never one starting with `_` (the metadata columns) or `pg_`, and every
 * identifier is double-quoted when it reaches SQL anyway.
 */
import { createHash } from 'node:crypto';

/** Why `name` cannot be a table or column name (shared with playbook validation). */
export { identifierProblem } from '@af/plan';

/** Double-quotes an identifier already checked by `identifierProblem` (or one of ours). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * The PostgreSQL schema holding one user's workspace tables: derived from a
 * hash of the user id, so any user id (opaque text) maps to a safe, fixed name.
 */
export function workspaceSchemaName(userId: string): string {
  return `ws_${createHash('sha256').update(userId).digest('hex').slice(0, 24)}`;
}

/** The SQL table of one workspace table: workspace and table name joined (the workspace id is checked like a name). */
export function workspaceSqlTable(workspaceId: string, tableName: string): string {
  const name = workspaceId === 'default' ? tableName : `${workspaceId}__${tableName}`;
  // Long pairs are shortened with a hash suffix to stay under 63 bytes.
  return name.length <= 63
    ? name
    : `${name.slice(0, 50)}_${createHash('sha256').update(name).digest('hex').slice(0, 12)}`;
}
