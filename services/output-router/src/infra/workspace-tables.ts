/**
 * Workspace tables: real PostgreSQL tables in a per-user schema
 * (`ws_<hash of the user id>`), catalogued in `workspace_tables`. Every
 * identifier reaching SQL was checked by domain/identifiers and is quoted;
 * values are parameters. Each table has the metadata columns `_source`,
 * `_query`, `_timestamp`; a `deduplication_key` or `upsert_key` is a unique
 * index, so "skip the duplicate" and "update the existing row" are one
 * `INSERT … ON CONFLICT` per batch.
 */
import { AppError, sqlRows, type Queryable } from '@af/service-kit';
import { quoteIdent, workspaceSchemaName, workspaceSqlTable } from '../domain/identifiers.js';
import { filterClause, type TableFilter } from '../domain/table-filter.js';
import { columnValue, lastPerKey, reconcileColumns, SQL_TYPES, type Column } from '../domain/table-schema.js';

export interface TableWrite {
  owner: string;
  workspaceId: string;
  tableName: string;
  columns: Column[];
  rows: Record<string, unknown>[];
  createIfMissing: boolean;
  /** Rows whose key columns match an existing row are skipped. */
  dedupKey?: string[];
  /** Rows whose key matches an existing row update it. */
  upsertKey?: string;
  source?: string;
  query?: string;
  /** Field the problems name (`inputs.data`, `params.destinations[0]`). */
  field: string;
}

export interface TableInfo {
  workspaceId: string;
  tableName: string;
  columns: Column[];
  rowCount: number;
  createdAt: Date;
  schemaName: string;
  sqlTable: string;
}

type Tx = Queryable & { transaction<T>(fn: (m: Queryable) => Promise<T>): Promise<T> };

export class WorkspaceTables {
  constructor(private readonly db: Tx) {}

  /** Writes rows (creating or widening the table as allowed); answers what it did. */
  async write(w: TableWrite, q?: Queryable): Promise<{ inserted: number; updated: number; skipped: number }> {
    const run = async (m: Queryable) => {
      const schema = workspaceSchemaName(w.owner);
      const table = workspaceSqlTable(w.workspaceId, w.tableName);
      // One writer per table at a time: create / alter / index decisions are not raced.
      await sqlRows(m, 'SELECT pg_advisory_xact_lock(hashtext($1))', [`${schema}.${table}`]);
      const [entry] = await sqlRows(
        m,
        'SELECT columns FROM workspace_tables WHERE owner_user_id = $1 AND workspace_id = $2 AND table_name = $3',
        [w.owner, w.workspaceId, w.tableName],
      );
      const qt = `${quoteIdent(schema)}.${quoteIdent(table)}`;
      let columns: Column[];
      if (!entry) {
        if (!w.createIfMissing)
          throw AppError.invalid(
            `${w.field}.table_name`,
            `workspace table ${w.tableName} does not exist (set create_if_missing to create it)`,
          );
        await sqlRows(m, `CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
        const defs = w.columns.map((c) => `${quoteIdent(c.name)} ${SQL_TYPES[c.type]}`);
        await sqlRows(
          m,
          `CREATE TABLE ${qt} (_id bigserial PRIMARY KEY, ${[...defs, '_source text', '_query text', '_timestamp timestamptz NOT NULL DEFAULT now()'].join(', ')})`,
        );
        await sqlRows(
          m,
          'INSERT INTO workspace_tables (owner_user_id, workspace_id, table_name, schema_name, sql_table, columns) VALUES ($1,$2,$3,$4,$5,$6)',
          [w.owner, w.workspaceId, w.tableName, schema, table, JSON.stringify(w.columns)],
        );
        columns = w.columns;
      } else {
        const existing = entry.columns as Column[];
        const { added, problems } = reconcileColumns(existing, w.columns, `${w.field}.schema_mapping`);
        if (problems.length)
          throw new AppError(
            'FAILED_PRECONDITION',
            problems.map((p) => `${p.field}: ${p.reason}`).join('; '),
            { violations: problems },
          );
        for (const c of added)
          await sqlRows(m, `ALTER TABLE ${qt} ADD COLUMN ${quoteIdent(c.name)} ${SQL_TYPES[c.type]}`);
        columns = [...existing, ...added];
        if (added.length) {
          await sqlRows(
            m,
            'UPDATE workspace_tables SET columns = $4 WHERE owner_user_id = $1 AND workspace_id = $2 AND table_name = $3',
            [w.owner, w.workspaceId, w.tableName, JSON.stringify(columns)],
          );
        }
      }
      const key = w.upsertKey ? [w.upsertKey] : w.dedupKey;
      if (key?.length) {
        const idx = quoteIdent(`${table.slice(0, 40)}_${key.join('_').slice(0, 18)}_key`);
        await sqlRows(
          m,
          `CREATE UNIQUE INDEX IF NOT EXISTS ${idx} ON ${qt} (${key.map(quoteIdent).join(', ')})`,
        );
      }
      const rows = w.upsertKey ? lastPerKey(w.rows, w.upsertKey) : w.rows;
      const done = await this.insert(m, qt, columns, { ...w, rows }, key);
      return { ...done, skipped: w.rows.length - done.inserted - done.updated };
    };
    return q ? run(q) : this.db.transaction(run);
  }

  private async insert(
    m: Queryable,
    qt: string,
    columns: Column[],
    w: TableWrite,
    key: string[] | undefined,
  ) {
    const wanted = new Set(w.columns.map((c) => c.name));
    const cols = columns.filter((c) => wanted.has(c.name));
    const names = [...cols.map((c) => quoteIdent(c.name)), '_source', '_query'];
    // Bind parameters per statement are limited (65535): batches sized to stay well under.
    const batch = Math.max(1, Math.floor(30_000 / names.length));
    let inserted = 0;
    let updated = 0;
    for (let start = 0; start < w.rows.length; start += batch) {
      const params: unknown[] = [];
      const tuples: string[] = [];
      w.rows.slice(start, start + batch).forEach((row, j) => {
        const values = cols.map((c) => {
          const v = columnValue(c, row[c.name]);
          if ('problem' in v) throw AppError.invalid(`${w.field}[${start + j}].${c.name}`, v.problem);
          return v.value;
        });
        values.push(w.source ?? 'unknown', w.query ?? '');
        tuples.push(`(${values.map((v) => (params.push(v), `$${params.length}`)).join(', ')})`);
      });
      const conflict = !key?.length
        ? ''
        : w.upsertKey
          ? ` ON CONFLICT (${key.map(quoteIdent).join(', ')}) DO UPDATE SET ${[...cols.filter((c) => c.name !== w.upsertKey).map((c) => `${quoteIdent(c.name)} = EXCLUDED.${quoteIdent(c.name)}`), '_source = EXCLUDED._source', '_query = EXCLUDED._query', '_timestamp = now()'].join(', ')}`
          : ` ON CONFLICT (${key.map(quoteIdent).join(', ')}) DO NOTHING`;
      // Counted in the database: one row comes back per batch, not one per row written.
      const [counts] = await sqlRows<{ inserted: number; updated: number }>(
        m,
        `WITH w AS (INSERT INTO ${qt} (${names.join(', ')}) VALUES ${tuples.join(', ')}${conflict} RETURNING (xmax = 0) AS fresh)
         SELECT (count(*) FILTER (WHERE fresh))::int AS inserted, (count(*) FILTER (WHERE NOT fresh))::int AS updated FROM w`,
        params,
      );
      inserted += counts!.inserted;
      updated += counts!.updated;
    }
    return { inserted, updated, skipped: w.rows.length - inserted - updated };
  }

  async list(owner: string): Promise<TableInfo[]> {
    const rows = await sqlRows(
      this.db,
      'SELECT * FROM workspace_tables WHERE owner_user_id = $1 ORDER BY workspace_id, table_name',
      [owner],
    );
    const out: TableInfo[] = [];
    for (const r of rows) {
      const [c] = await sqlRows(
        this.db,
        `SELECT count(*)::bigint AS n FROM ${quoteIdent(r.schema_name)}.${quoteIdent(r.sql_table)}`,
      );
      out.push({
        workspaceId: r.workspace_id,
        tableName: r.table_name,
        columns: r.columns,
        rowCount: Number(c.n),
        createdAt: new Date(r.created_at),
        schemaName: r.schema_name,
        sqlTable: r.sql_table,
      });
    }
    return out;
  }

  async info(owner: string, workspaceId: string, tableName: string): Promise<TableInfo | undefined> {
    return (await this.list(owner)).find((t) => t.workspaceId === workspaceId && t.tableName === tableName);
  }

  /**
   * Rows in insertion order after `afterId`, metadata columns included; with
   * `filters`, only rows whose columns equal the values (checked by domain/table-filter).
   */
  async rows(
    t: TableInfo,
    afterId: number,
    limit: number,
    filters: TableFilter[] = [],
  ): Promise<Array<Record<string, unknown>>> {
    const names = [...t.columns.map((c) => quoteIdent(c.name)), '_id', '_source', '_query', '_timestamp'];
    const where = filterClause(t.columns, filters, 3);
    const rows = await sqlRows(
      this.db,
      `SELECT ${names.join(', ')} FROM ${quoteIdent(t.schemaName)}.${quoteIdent(t.sqlTable)} WHERE ${['_id > $1', ...where.sql].join(' AND ')} ORDER BY _id LIMIT $2`,
      [afterId, limit, ...where.params],
    );
    // pg answers bigint as text: integers JSON can hold exactly are given back as numbers.
    const ints = t.columns.filter((c) => c.type === 'integer').map((c) => c.name);
    for (const r of rows) {
      for (const k of [...ints, '_id']) {
        const n = typeof r[k] === 'string' ? Number(r[k]) : undefined;
        if (n !== undefined && Number.isSafeInteger(n)) r[k] = n;
      }
    }
    return rows;
  }
}
