/**
 * Exports of workspace tables, and the list of a user's exports. A table's
 * rows (filtered as the rows route filters them) are rendered as csv, json,
 * markdown or xlsx by the same renderers as route_output's `file_export`
 * destination and kept in the same `exports` table and blob store, so the
 * one download route (with its expiring link) serves both.
 */
import { randomUUID } from 'node:crypto';
import { AppError, sqlRows } from '@af/service-kit';
import type { Documents } from './documents.js';
import { CONTENT_TYPES, EXTENSIONS, render, type Format } from '../domain/render.js';
import type { TableFilter } from '../domain/table-filter.js';
import { renderXlsx } from '../domain/xlsx.js';
import type { TableInfo, WorkspaceTables } from '../infra/workspace-tables.js';

/** The formats a table exports to. */
export const TABLE_EXPORT_FORMATS = ['csv', 'json', 'markdown', 'xlsx'] as const;
export type TableExportFormat = (typeof TABLE_EXPORT_FORMATS)[number];

export interface ExportView {
  id: string;
  filename: string;
  format: string;
  contentType: string;
  sizeBytes: number;
  createdAt: string;
  expiresAt: string;
  downloadUrl: string;
  expired: boolean;
}

export const downloadUrl = (id: string) => `/api/agent-factory/workspace/exports/${id}/download`;

/** The format a stored export has, from its content type (`text` for anything else). */
export function formatOf(contentType: string): string {
  const base = contentType.split(';')[0]!.trim().toLowerCase();
  const hit = (Object.keys(CONTENT_TYPES) as Format[]).find((f) => CONTENT_TYPES[f] === base);
  return hit ?? 'text';
}

function view(r: Record<string, any>): ExportView {
  return {
    id: r.id,
    filename: r.filename,
    format: formatOf(r.content_type),
    contentType: r.content_type,
    sizeBytes: Number(r.size_bytes),
    createdAt: new Date(r.created_at).toISOString(),
    expiresAt: new Date(r.expires_at).toISOString(),
    downloadUrl: downloadUrl(r.id),
    expired: Boolean(r.expired),
  };
}

export class TableExports {
  constructor(
    private readonly documents: Documents,
    private readonly tables: WorkspaceTables,
    private readonly limits: { maxRows: number; ttlSeconds: number },
  ) {}

  /** Writes the file of `t`'s rows matching `filters` as an export of `owner`. */
  async export(
    owner: string,
    t: TableInfo,
    format: string,
    filters: TableFilter[],
    now = new Date(),
  ): Promise<{ export: ExportView; rowCount: number }> {
    if (!(TABLE_EXPORT_FORMATS as readonly string[]).includes(format))
      throw AppError.invalid('format', `must be one of ${TABLE_EXPORT_FORMATS.join(', ')} (got ${JSON.stringify(format)})`);
    const f = format as TableExportFormat;
    const rows = await this.tables.rows(t, 0, this.limits.maxRows + 1, filters);
    if (rows.length > this.limits.maxRows)
      throw new AppError(
        'FAILED_PRECONDITION',
        `table ${t.tableName} has more than ${this.limits.maxRows} rows to export: narrow it with filters`,
      );
    const columns = [...t.columns.map((c) => c.name), '_source', '_timestamp'];
    const records = rows.map((r) =>
      Object.fromEntries(
        columns.map((c) => [c, r[c] instanceof Date ? (r[c] as Date).toISOString() : (r[c] ?? null)]),
      ),
    );
    const content =
      f === 'xlsx'
        ? await renderXlsx(records, t.tableName)
        : new TextEncoder().encode(render(records, f, t.tableName));
    const type = this.documents.check(CONTENT_TYPES[f], content);
    const filename = `${t.tableName}_${now.toISOString().slice(0, 10)}.${EXTENSIONS[f]}`;
    const db = this.documents.repo.db;
    const row = await db.transaction(async (q) => {
      const id = randomUUID();
      const blob = await this.documents.repo.blobs.put(content, q);
      const [r] = await sqlRows(
        q,
        `INSERT INTO exports (id, owner_user_id, filename, content_type, blob_key, size_bytes, expires_at)
         VALUES ($1,$2,$3,$4,$5,$6, now() + ($7::int * interval '1 second'))
         RETURNING id, filename, content_type, size_bytes, created_at, expires_at, false AS expired`,
        [id, owner, filename, type, blob, content.byteLength, this.limits.ttlSeconds],
      );
      return r!;
    });
    return { export: view(row), rowCount: rows.length };
  }

  /** `owner`'s exports newest first, after the keyset `after` (millisecond created_at, id). */
  async list(owner: string, limit: number, after?: { createdAt: Date; id: string }): Promise<ExportView[]> {
    const rows = await sqlRows(
      this.documents.repo.db,
      `SELECT id, filename, content_type, size_bytes, created_at, expires_at, expires_at < now() AS expired
         FROM exports
        WHERE owner_user_id = $1
          AND ($2::timestamptz IS NULL OR (date_trunc('milliseconds', created_at), id) < ($2::timestamptz, $3::uuid))
        ORDER BY date_trunc('milliseconds', created_at) DESC, id DESC
        LIMIT $4`,
      [owner, after?.createdAt.toISOString() ?? null, after?.id ?? null, limit],
    );
    return rows.map(view);
  }
}
