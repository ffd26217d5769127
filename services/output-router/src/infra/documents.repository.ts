/**
 * Folders, documents and their versions in PostgreSQL (bytes in the blob
 * store). Every query is scoped by owner: another user's ids simply match
 * nothing, which callers report as NOT_FOUND.
 */
import { randomUUID } from 'node:crypto';
import { appendOutbox, sqlRows, type OutboxRow, type Queryable, type ServiceKit } from '@af/service-kit';
import type { DocumentMeta, Folder, Origin } from '../domain/workspace.js';
import type { BlobStore } from './blob-store.js';

const DOC_COLUMNS = `d.id, d.title, d.folder_id, coalesce(f.path, '') AS folder_path, d.content_type, d.size_bytes, d.version, d.source, d.created_at, d.updated_at`;

const toDoc = (r: any): DocumentMeta => ({
  id: r.id,
  title: r.title,
  folderId: r.folder_id,
  folderPath: r.folder_path,
  contentType: r.content_type,
  sizeBytes: Number(r.size_bytes),
  version: Number(r.version),
  source: r.source ?? {},
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

const toFolder = (r: any): Folder => ({
  id: r.id,
  name: r.name,
  parentId: r.parent_id,
  path: r.path,
  teamId: r.team_id ?? null,
  createdAt: new Date(r.created_at),
});

export interface NewDocument {
  owner: string;
  title: string;
  contentType: string;
  content: Uint8Array;
  folderId: string | null;
  origin?: Origin;
}

export class DocumentsRepository {
  constructor(
    readonly db: Queryable & { transaction<T>(fn: (m: Queryable) => Promise<T>): Promise<T> },
    readonly blobs: BlobStore,
    /** Where document created/updated/deleted events go (the outbox, in the same transaction); unset: none. */
    private readonly events?: Pick<ServiceKit, 'subjects' | 'relay'>,
  ) {}

  /** Appends `af.document.<id>.<type>` to the outbox inside `m` (the document index ingests from it). */
  private async emit(m: Queryable, type: 'created' | 'updated' | 'deleted', owner: string, d: DocumentMeta): Promise<OutboxRow[]> {
    if (!this.events) return [];
    const payload = {
      type,
      documentId: d.id,
      ownerUserId: owner,
      version: d.version,
      title: d.title,
      contentType: d.contentType,
      sizeBytes: d.sizeBytes,
      folderPath: d.folderPath,
    };
    return appendOutbox(m as never, [{ subject: this.events.subjects.document(d.id, type), payload, msgId: `document:${d.id}:${d.version}:${type}` }]);
  }

  /** Runs `fn` in the caller's transaction, or in its own and then publishes the events it appended at once. */
  private async tx<T>(q: Queryable | undefined, fn: (m: Queryable, rows: OutboxRow[]) => Promise<T>): Promise<T> {
    const rows: OutboxRow[] = [];
    if (q) return fn(q, rows);
    const out = await this.db.transaction((m) => fn(m, rows));
    if (rows.length) this.events?.relay.publishCommitted(rows);
    return out;
  }

  async listFolders(owner: string): Promise<Folder[]> {
    return (
      await sqlRows(this.db, 'SELECT * FROM folders WHERE owner_user_id = $1 ORDER BY path', [owner])
    ).map(toFolder);
  }

  async folder(owner: string, id: string, q: Queryable = this.db): Promise<Folder | undefined> {
    if (!isUuid(id)) return undefined;
    const [row] = await sqlRows(q, 'SELECT * FROM folders WHERE owner_user_id = $1 AND id = $2', [owner, id]);
    return row ? toFolder(row) : undefined;
  }

  /**
   * The folder `name` under `parentId`, created when missing. A sub-folder
   * belongs to its parent's team; a new top-level folder to `teamId` (an
   * existing folder's team is not changed).
   */
  async ensureFolder(
    owner: string,
    name: string,
    parent: Folder | null,
    q: Queryable = this.db,
    teamId: string | null = null,
  ): Promise<{ folder: Folder; created: boolean }> {
    const path = `${parent?.path ?? ''}/${name}`;
    const inserted = await sqlRows(
      q,
      `INSERT INTO folders (id, owner_user_id, parent_id, name, path, team_id) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (owner_user_id, coalesce(parent_id, '00000000-0000-0000-0000-000000000000'::uuid), lower(name)) DO NOTHING RETURNING *`,
      [randomUUID(), owner, parent?.id ?? null, name, path, parent ? parent.teamId : teamId],
    );
    if (inserted.length) return { folder: toFolder(inserted[0]), created: true };
    const [row] = await sqlRows(
      q,
      `SELECT * FROM folders WHERE owner_user_id = $1 AND parent_id IS NOT DISTINCT FROM $2 AND lower(name) = lower($3)`,
      [owner, parent?.id ?? null, name],
    );
    return { folder: toFolder(row), created: false };
  }

  /** Deletes an empty folder; false when it has documents or sub-folders. */
  async deleteFolder(owner: string, id: string): Promise<'deleted' | 'not_found' | 'not_empty'> {
    if (!(await this.folder(owner, id))) return 'not_found';
    const [busy] = await sqlRows(
      this.db,
      `SELECT (EXISTS (SELECT 1 FROM documents WHERE folder_id = $1) OR EXISTS (SELECT 1 FROM folders WHERE parent_id = $1)) AS busy`,
      [id],
    );
    if (busy.busy) return 'not_empty';
    await sqlRows(this.db, 'DELETE FROM folders WHERE owner_user_id = $1 AND id = $2', [owner, id]);
    return 'deleted';
  }

  async document(owner: string, id: string, q: Queryable = this.db): Promise<DocumentMeta | undefined> {
    if (!isUuid(id)) return undefined;
    const [row] = await sqlRows(
      q,
      `SELECT ${DOC_COLUMNS} FROM documents d LEFT JOIN folders f ON f.id = d.folder_id WHERE d.owner_user_id = $1 AND d.id = $2`,
      [owner, id],
    );
    return row ? toDoc(row) : undefined;
  }

  /** Documents of an owner, newest first; `title` filters (exact or substring, case-insensitive). */
  async listDocuments(
    owner: string,
    opts: {
      folderId?: string | null;
      query?: string;
      exact?: boolean;
      limit: number;
      before?: { createdAt: Date; id: string };
    },
  ): Promise<DocumentMeta[]> {
    const where = ['d.owner_user_id = $1'];
    const params: unknown[] = [owner];
    if (opts.folderId !== undefined) {
      params.push(opts.folderId);
      where.push(`d.folder_id IS NOT DISTINCT FROM $${params.length}::uuid`);
    }
    if (opts.query) {
      params.push(
        opts.exact
          ? opts.query.toLowerCase()
          : `%${opts.query.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
      );
      where.push(opts.exact ? `lower(d.title) = $${params.length}` : `lower(d.title) LIKE $${params.length}`);
    }
    if (opts.before) {
      params.push(opts.before.createdAt, opts.before.id);
      where.push(`(d.created_at, d.id) < ($${params.length - 1}, $${params.length})`);
    }
    params.push(opts.limit);
    const rows = await sqlRows(
      this.db,
      `SELECT ${DOC_COLUMNS} FROM documents d LEFT JOIN folders f ON f.id = d.folder_id WHERE ${where.join(' AND ')} ORDER BY d.created_at DESC, d.id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toDoc);
  }

  /**
   * Documents in a team's shared folders (their sub-folders too), newest
   * first; `query` filters titles (substring, case-insensitive) unless
   * `matchContent` (the caller searches the content), `folderPath` a folder
   * and what is below it.
   */
  async teamDocuments(
    teamId: string,
    opts: { folderPath?: string; contentTypes?: readonly string[]; limit: number },
  ): Promise<Array<DocumentMeta & { author: string }>> {
    const where = ['f.team_id = $1'];
    const params: unknown[] = [teamId];
    if (opts.folderPath) {
      params.push(opts.folderPath.toLowerCase(), `${opts.folderPath.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}/%`);
      where.push(`(lower(f.path) = $${params.length - 1} OR lower(f.path) LIKE $${params.length})`);
    }
    if (opts.contentTypes?.length) {
      params.push(opts.contentTypes);
      where.push(`d.content_type = ANY($${params.length})`);
    }
    params.push(opts.limit);
    const rows = await sqlRows(
      this.db,
      `SELECT ${DOC_COLUMNS}, d.owner_user_id FROM documents d JOIN folders f ON f.id = d.folder_id WHERE ${where.join(' AND ')} ORDER BY d.updated_at DESC, d.id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) => ({ ...toDoc(r), author: r.owner_user_id as string }));
  }

  /** A document of a team's shared folders with its latest bytes, or undefined (not there, or not the team's). */
  async teamDocument(teamId: string, id: string): Promise<{ meta: DocumentMeta & { author: string }; content: Buffer } | undefined> {
    if (!isUuid(id)) return undefined;
    const [row] = await sqlRows(
      this.db,
      `SELECT ${DOC_COLUMNS}, d.owner_user_id, v.blob_key FROM documents d JOIN folders f ON f.id = d.folder_id
       JOIN document_versions v ON v.document_id = d.id AND v.version = d.version WHERE f.team_id = $1 AND d.id = $2`,
      [teamId, id],
    );
    if (!row) return undefined;
    return { meta: { ...toDoc(row), author: row.owner_user_id as string }, content: await this.blobs.get(row.blob_key) };
  }

  /** A new document at version 1. */
  async create(doc: NewDocument, q?: Queryable): Promise<DocumentMeta> {
    return this.tx(q, async (m, events) => {
      const id = randomUUID();
      const key = await this.blobs.put(doc.content, m);
      const source = {
        ...(doc.origin?.runId ? { run_id: doc.origin.runId } : {}),
        ...(doc.origin?.nodeId ? { node_id: doc.origin.nodeId } : {}),
        ...(doc.origin?.action ? { action: doc.origin.action } : {}),
      };
      await sqlRows(
        m,
        'INSERT INTO documents (id, owner_user_id, folder_id, title, content_type, size_bytes, version, source) VALUES ($1,$2,$3,$4,$5,$6,1,$7)',
        [
          id,
          doc.owner,
          doc.folderId,
          doc.title,
          doc.contentType,
          doc.content.byteLength,
          JSON.stringify(source),
        ],
      );
      await sqlRows(
        m,
        'INSERT INTO document_versions (document_id, version, blob_key, size_bytes, content_type) VALUES ($1, 1, $2, $3, $4)',
        [id, key, doc.content.byteLength, doc.contentType],
      );
      const created = (await this.document(doc.owner, id, m))!;
      events.push(...(await this.emit(m, 'created', doc.owner, created)));
      return created;
    });
  }

  /** A new version of an existing document (its previous versions are kept). */
  async addVersion(
    owner: string,
    id: string,
    content: Uint8Array,
    contentType: string,
    q?: Queryable,
  ): Promise<DocumentMeta | undefined> {
    if (!isUuid(id)) return undefined;
    return this.tx(q, async (m, events) => {
      const [row] = await sqlRows(
        m,
        'SELECT version FROM documents WHERE owner_user_id = $1 AND id = $2 FOR UPDATE',
        [owner, id],
      );
      if (!row) return undefined;
      const version = Number(row.version) + 1;
      const key = await this.blobs.put(content, m);
      await sqlRows(
        m,
        'INSERT INTO document_versions (document_id, version, blob_key, size_bytes, content_type) VALUES ($1, $2, $3, $4, $5)',
        [id, version, key, content.byteLength, contentType],
      );
      await sqlRows(
        m,
        'UPDATE documents SET version = $2, size_bytes = $3, content_type = $4, updated_at = now() WHERE id = $1',
        [id, version, content.byteLength, contentType],
      );
      const updated = await this.document(owner, id, m);
      if (updated) events.push(...(await this.emit(m, 'updated', owner, updated)));
      return updated;
    });
  }

  /** The bytes of one version (0: the latest). */
  async content(
    owner: string,
    id: string,
    version = 0,
  ): Promise<{ meta: DocumentMeta; content: Buffer; version: number } | undefined> {
    const meta = await this.document(owner, id);
    if (!meta) return undefined;
    const v = version || meta.version;
    const [row] = await sqlRows(
      this.db,
      'SELECT blob_key FROM document_versions WHERE document_id = $1 AND version = $2',
      [id, v],
    );
    if (!row) return undefined;
    return { meta, content: await this.blobs.get(row.blob_key), version: v };
  }

  async move(owner: string, id: string, folderId: string | null): Promise<DocumentMeta | undefined> {
    if (!isUuid(id)) return undefined;
    await sqlRows(
      this.db,
      'UPDATE documents SET folder_id = $3, updated_at = now() WHERE owner_user_id = $1 AND id = $2',
      [owner, id, folderId],
    );
    return this.document(owner, id);
  }

  /** Deletes a document, every version and their bytes. */
  async delete(owner: string, id: string, q?: Queryable): Promise<DocumentMeta | undefined> {
    return this.tx(q, async (m, events) => {
      const meta = await this.document(owner, id, m);
      if (!meta) return undefined;
      const keys = (
        await sqlRows(m, 'SELECT blob_key FROM document_versions WHERE document_id = $1', [id])
      ).map((r) => r.blob_key as string);
      await sqlRows(m, 'DELETE FROM documents WHERE owner_user_id = $1 AND id = $2', [owner, id]);
      await this.blobs.delete(keys, m);
      events.push(...(await this.emit(m, 'deleted', owner, meta)));
      return meta;
    });
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Ids from outside that are not UUIDs match nothing (instead of a PostgreSQL cast error). */
export const isUuid = (id: string): boolean => UUID.test(id);
