/**
 * The document index in PostgreSQL: ingestion status per document and the
 * chunks with their full-text vectors (`english` text-search configuration).
 * BM25 (k1 1.2, b 0.75) is scored in memory over those stored lexemes by
 * `Bm25Index`, one per owner, loaded on first use and kept current by this
 * repository's own writes (the indexed chunks' lexemes come back from the
 * INSERT) and by the owner's `chunks` generation for other replicas' writes.
 * PostgreSQL stays the source of truth: the lexical index commits in the
 * same transaction as the chunks it describes, stemming is PostgreSQL's,
 * and a restart rebuilds the memory from it. `bm25InSql` is the same
 * formula as one SQL statement (the reference the tests compare against; it
 * took 0.4 s at 10k chunks and seconds at 100k, hence the memory index).
 */
import { sqlRows, type Queryable } from '@af/service-kit';
import { Bm25Index, parseTsvector, type LexicalChunk } from '../domain/bm25-index.js';
import type { Chunk } from '../domain/chunking.js';
import type { QueryFilters } from '../domain/query-analysis.js';
import { bumpGeneration, GenerationCache } from './generations.js';

type Tx = Queryable & { transaction<T>(fn: (m: Queryable) => Promise<T>): Promise<T> };

export type IndexStatus = 'queued' | 'parsing' | 'embedding' | 'indexed' | 'failed' | 'deleted';

export interface IndexedDocument {
  documentId: string;
  version: number;
  title: string;
  contentType: string;
  format: string | null;
  folderPath: string;
  status: IndexStatus;
  progress: number;
  chunksTotal: number;
  chunksDone: number;
  pageCount: number;
  errorCode: string | null;
  error: string | null;
  description: string;
  descriptionSource: string | null;
  embedder: string | null;
  updatedAt: Date;
}

const toDoc = (r: any): IndexedDocument => ({
  documentId: r.document_id,
  version: Number(r.version),
  title: r.title,
  contentType: r.content_type,
  format: r.format,
  folderPath: r.folder_path,
  status: r.status,
  progress: Number(r.progress),
  chunksTotal: Number(r.chunks_total),
  chunksDone: Number(r.chunks_done),
  pageCount: Number(r.page_count),
  errorCode: r.error_code,
  error: r.error,
  description: r.description,
  descriptionSource: r.description_source,
  embedder: r.embedder,
  updatedAt: new Date(r.updated_at),
});

export interface ChunkRow {
  id: string;
  documentId: string;
  title: string;
  folderPath: string;
  format: string | null;
  text: string;
  section: string;
  page: number | null;
  pageEnd: number | null;
  parentText: string | null;
  isTable: boolean;
}

const lexical = (r: { id: string; len: number; tsv: string }): LexicalChunk => ({ id: r.id, len: Number(r.len), terms: parseTsvector(r.tsv).terms });

export class DocumentIndexRepository {
  private readonly lexicalCache: GenerationCache<Bm25Index>;

  constructor(
    readonly db: Tx,
    maxOwnersCached = 64,
  ) {
    this.lexicalCache = new GenerationCache(maxOwnersCached);
  }

  async get(owner: string, documentId: string, q: Queryable = this.db): Promise<IndexedDocument | undefined> {
    const [r] = await sqlRows(q, 'SELECT * FROM doc_index_documents WHERE owner_user_id = $1 AND document_id = $2', [owner, documentId]);
    return r ? toDoc(r) : undefined;
  }

  async list(owner: string, limit = 100): Promise<IndexedDocument[]> {
    return (await sqlRows(this.db, 'SELECT * FROM doc_index_documents WHERE owner_user_id = $1 ORDER BY updated_at DESC LIMIT $2', [owner, limit])).map(toDoc);
  }

  /**
   * Claims `version` of a document for ingestion: true when it is newer
   * than what the index holds (or a failed/queued attempt of the same
   * version). An older or already indexed version answers false: that is
   * what makes redelivered events harmless.
   */
  async claim(owner: string, d: { documentId: string; version: number; title: string; contentType: string; folderPath: string }): Promise<boolean> {
    const rows = await sqlRows(
      this.db,
      `INSERT INTO doc_index_documents (owner_user_id, document_id, version, title, content_type, folder_path, status)
       VALUES ($1, $2, $3, $4, $5, $6, 'queued')
       ON CONFLICT (owner_user_id, document_id) DO UPDATE SET
         version = excluded.version, title = excluded.title, content_type = excluded.content_type, folder_path = excluded.folder_path,
         status = 'queued', progress = 0, chunks_done = 0, error = NULL, error_code = NULL, updated_at = now()
       WHERE doc_index_documents.status <> 'deleted'
         AND (doc_index_documents.version < excluded.version
              OR (doc_index_documents.version = excluded.version AND doc_index_documents.status IN ('queued', 'failed', 'parsing', 'embedding')))
       RETURNING document_id`,
      [owner, d.documentId, d.version, d.title, d.contentType, d.folderPath],
    );
    return rows.length > 0;
  }

  async progress(owner: string, documentId: string, version: number, patch: { status: IndexStatus; progress: number; chunksTotal?: number; chunksDone?: number }): Promise<void> {
    await sqlRows(
      this.db,
      `UPDATE doc_index_documents SET status = $4, progress = $5, chunks_total = coalesce($6, chunks_total), chunks_done = coalesce($7, chunks_done), updated_at = now()
       WHERE owner_user_id = $1 AND document_id = $2 AND version = $3`,
      [owner, documentId, version, patch.status, patch.progress, patch.chunksTotal ?? null, patch.chunksDone ?? null],
    );
  }

  async fail(owner: string, documentId: string, version: number, code: string, message: string): Promise<void> {
    await sqlRows(
      this.db,
      `UPDATE doc_index_documents SET status = 'failed', error_code = $4, error = $5, updated_at = now()
       WHERE owner_user_id = $1 AND document_id = $2 AND version = $3`,
      [owner, documentId, version, code, message.slice(0, 2000)],
    );
  }

  /** Replaces the document's chunks with those of `version` and marks it indexed — unless a newer version took over meanwhile. */
  async commit(
    owner: string,
    documentId: string,
    version: number,
    meta: { format: string; pageCount: number; description: string; descriptionSource: string; years: number[]; embedder: string },
    chunks: Chunk[],
  ): Promise<boolean> {
    const indexed: LexicalChunk[] = [];
    const generation = await this.db.transaction(async (m) => {
      await sqlRows(m, 'SELECT pg_advisory_xact_lock(hashtext($1))', [`doc-index:${documentId}`]);
      const [cur] = await sqlRows(m, 'SELECT version, status FROM doc_index_documents WHERE owner_user_id = $1 AND document_id = $2', [owner, documentId]);
      if (!cur || Number(cur.version) !== version || cur.status === 'deleted') return undefined;
      await sqlRows(m, 'DELETE FROM doc_chunks WHERE owner_user_id = $1 AND document_id = $2', [owner, documentId]);
      for (let i = 0; i < chunks.length; i += 200) {
        const part = chunks.slice(i, i + 200);
        const values: unknown[] = [];
        const rows = part.map((c, j) => {
          values.push(`${documentId}:${version}:${c.ordinal}`, owner, documentId, version, c.ordinal, c.kind, c.parentOrdinal ?? null, c.text, c.section, c.page ?? null, c.pageEnd ?? null, c.table, c.tokens);
          const b = j * 13;
          const ph = Array.from({ length: 13 }, (_, k) => `$${b + k + 1}`);
          return `(${ph.join(', ')}, array_length(regexp_split_to_array(trim(${ph[7]}), '\\s+'), 1), to_tsvector('english', ${ph[7]}))`;
        });
        const back = await sqlRows(
          m,
          `INSERT INTO doc_chunks (id, owner_user_id, document_id, version, ordinal, kind, parent_ordinal, text, section, page, page_end, is_table, tokens, len, tsv) VALUES ${rows.join(', ')}
           RETURNING id, kind, len, tsv::text AS tsv`,
          values,
        );
        for (const r of back) if (r.kind === 'child') indexed.push(lexical(r));
      }
      await sqlRows(
        m,
        `UPDATE doc_index_documents SET status = 'indexed', progress = 1, chunks_total = $4, chunks_done = $4, format = $5, page_count = $6,
           description = $7, description_source = $8, years = $9, embedder = $10, error = NULL, error_code = NULL, updated_at = now()
         WHERE owner_user_id = $1 AND document_id = $2 AND version = $3`,
        [owner, documentId, version, chunks.filter((c) => c.kind === 'child').length, meta.format, meta.pageCount, meta.description, meta.descriptionSource, meta.years, meta.embedder],
      );
      return bumpGeneration(m, owner, 'chunks');
    });
    if (generation === undefined) return false;
    this.lexicalCache.applied(owner, generation, (ix) => ix.setDocument(documentId, indexed));
    return true;
  }

  /** Removes the document's chunks; the row stays as a `deleted` tombstone so late events for it change nothing. */
  async remove(owner: string, documentId: string, version: number): Promise<void> {
    const generation = await this.db.transaction(async (m) => {
      await sqlRows(m, 'SELECT pg_advisory_xact_lock(hashtext($1))', [`doc-index:${documentId}`]);
      await sqlRows(m, 'DELETE FROM doc_chunks WHERE owner_user_id = $1 AND document_id = $2', [owner, documentId]);
      await sqlRows(
        m,
        `INSERT INTO doc_index_documents (owner_user_id, document_id, version, status) VALUES ($1, $2, $3, 'deleted')
         ON CONFLICT (owner_user_id, document_id) DO UPDATE SET status = 'deleted', version = greatest(doc_index_documents.version, excluded.version), updated_at = now()`,
        [owner, documentId, version],
      );
      return bumpGeneration(m, owner, 'chunks');
    });
    this.lexicalCache.applied(owner, generation, (ix) => ix.removeDocument(documentId));
  }

  /** Indexed documents of `owner` passing the filters (undefined: no filter asked, every document qualifies). */
  async filterDocuments(owner: string, f: QueryFilters & { folderPath?: string; documentIds?: string[] }): Promise<string[] | undefined> {
    const where = [`owner_user_id = $1`, `status = 'indexed'`];
    const params: unknown[] = [owner];
    const add = (sql: (n: number) => string, v: unknown) => {
      params.push(v);
      where.push(sql(params.length));
    };
    if (f.formats?.length) add((n) => `format = ANY($${n})`, f.formats);
    if (f.years?.length) add((n) => `years && $${n}::int[]`, f.years);
    if (f.titles?.length) add((n) => `EXISTS (SELECT 1 FROM unnest($${n}::text[]) t WHERE lower(title) LIKE '%' || lower(t) || '%')`, f.titles);
    if (f.folderPath) add((n) => `(folder_path = $${n} OR folder_path LIKE $${n} || '/%')`, f.folderPath);
    if (f.documentIds) add((n) => `document_id::text = ANY($${n})`, f.documentIds);
    if (params.length === 1) return undefined;
    return (await sqlRows(this.db, `SELECT document_id FROM doc_index_documents WHERE ${where.join(' AND ')}`, params)).map((r) => r.document_id as string);
  }

  /** Okapi BM25 over the owner's child chunks, in memory (see the class comment). */
  async bm25(owner: string, query: string, k: number, documentIds?: readonly string[]): Promise<Array<{ id: string; score: number }>> {
    if (documentIds && !documentIds.length) return [];
    const [r] = await sqlRows(
      this.db,
      `SELECT tsvector_to_array(to_tsvector('english', $2)) AS lex,
              (SELECT generation FROM doc_index_generations WHERE owner_user_id = $1 AND part = 'chunks') AS generation`,
      [owner, query],
    );
    const lexemes: string[] = r?.lex ?? [];
    if (!lexemes.length) return [];
    const ix = await this.lexicalCache.get(owner, Number(r?.generation ?? 0), () => this.loadLexical(owner));
    return ix.search(lexemes, k, documentIds);
  }

  private async loadLexical(owner: string): Promise<Bm25Index> {
    const ix = new Bm25Index();
    const rows = await sqlRows(
      this.db,
      `SELECT document_id, id, len, tsv::text AS tsv FROM doc_chunks WHERE owner_user_id = $1 AND kind = 'child' ORDER BY document_id, ordinal`,
      [owner],
    );
    let i = 0;
    while (i < rows.length) {
      const doc = rows[i].document_id as string;
      const part: LexicalChunk[] = [];
      for (; i < rows.length && rows[i].document_id === doc; i++) part.push(lexical(rows[i]));
      ix.setDocument(doc, part);
    }
    return ix;
  }

  /** Okapi BM25 as one SQL statement: the reference `bm25` is checked against (see the class comment). */
  async bm25InSql(owner: string, query: string, k: number, documentIds?: readonly string[]): Promise<Array<{ id: string; score: number }>> {
    const [lx] = await sqlRows(this.db, `SELECT tsvector_to_array(to_tsvector('english', $1)) AS lex`, [query]);
    const lexemes: string[] = lx?.lex ?? [];
    if (!lexemes.length || (documentIds && !documentIds.length)) return [];
    // One condition for every part: the GIN index answers the document frequencies and the candidates.
    const scope = `c.owner_user_id = $1 AND c.kind = 'child' AND ($4::uuid[] IS NULL OR c.document_id = ANY($4::uuid[]))`;
    const rows = await sqlRows(
      this.db,
      `WITH stats AS MATERIALIZED (SELECT count(*)::float8 AS n, greatest(avg(c.len), 1)::float8 AS avglen FROM doc_chunks c WHERE ${scope}),
       idf AS MATERIALIZED (
         SELECT q.lex, ln(1 + (stats.n - x.df + 0.5) / (x.df + 0.5)) AS idf
         FROM unnest($2::text[]) AS q(lex) CROSS JOIN stats
         CROSS JOIN LATERAL (SELECT count(*)::float8 AS df FROM doc_chunks c WHERE ${scope} AND c.tsv @@ quote_literal(q.lex)::tsquery) x),
       hits AS MATERIALIZED (SELECT c.id, c.tsv, c.len FROM doc_chunks c WHERE ${scope} AND c.tsv @@ to_tsquery('simple', $3))
       SELECT h.id, sum(idf.idf * (u.tf * 2.2) / (u.tf + 1.2 * (0.25 + 0.75 * h.len / stats.avglen))) AS score
       FROM hits h
       CROSS JOIN LATERAL (SELECT lexeme, coalesce(array_length(positions, 1), 1)::float8 AS tf FROM unnest(h.tsv)) u
       JOIN idf ON idf.lex = u.lexeme
       CROSS JOIN stats
       GROUP BY h.id ORDER BY score DESC, h.id LIMIT $5`,
      [owner, lexemes, lexemes.map((l) => `'${l.replace(/'/g, "''")}'`).join(' | '), documentIds ? [...documentIds] : null, k],
    );
    return rows.map((r) => ({ id: r.id, score: Number(r.score) }));
  }

  /**
   * Indexed documents whose vectors another embedder made (the `embedder`
   * column differs from `current`), oldest first: what `ReembedDocuments`
   * brings up to date.
   */
  async staleEmbeddings(
    current: string,
    limit: number,
  ): Promise<Array<{ owner: string; documentId: string; version: number; title: string; format: string; years: number[]; embedder: string | null }>> {
    const rows = await sqlRows(
      this.db,
      `SELECT owner_user_id, document_id, version, title, format, years, embedder FROM doc_index_documents
       WHERE status = 'indexed' AND embedder IS DISTINCT FROM $1 ORDER BY updated_at LIMIT $2`,
      [current, limit],
    );
    return rows.map((r) => ({
      owner: r.owner_user_id,
      documentId: r.document_id,
      version: Number(r.version),
      title: r.title,
      format: r.format ?? '',
      years: (r.years ?? []).map(Number),
      embedder: r.embedder,
    }));
  }

  /** The child chunks of one version of a document, in order (what its vectors are made of). */
  async childChunks(owner: string, documentId: string, version: number): Promise<Array<{ ordinal: number; text: string; section: string; page: number | null }>> {
    const rows = await sqlRows(
      this.db,
      `SELECT ordinal, text, section, page FROM doc_chunks WHERE owner_user_id = $1 AND document_id = $2 AND version = $3 AND kind = 'child' ORDER BY ordinal`,
      [owner, documentId, version],
    );
    return rows.map((r) => ({ ordinal: Number(r.ordinal), text: r.text, section: r.section, page: r.page === null ? null : Number(r.page) }));
  }

  /** Records that `version` of a document is embedded by `embedder`; false when the document moved on meanwhile. */
  async setEmbedder(owner: string, documentId: string, version: number, embedder: string): Promise<boolean> {
    const rows = await sqlRows(
      this.db,
      `UPDATE doc_index_documents SET embedder = $4, updated_at = now()
       WHERE owner_user_id = $1 AND document_id = $2 AND version = $3 AND status = 'indexed' RETURNING document_id`,
      [owner, documentId, version, embedder],
    );
    return rows.length > 0;
  }

  /** The rows of chunk ids, each with its parent's text (found by the parent's id, `<document>:<version>:<ordinal>`). */
  async chunks(owner: string, ids: string[]): Promise<ChunkRow[]> {
    if (!ids.length) return [];
    const rows = await sqlRows(
      this.db,
      `SELECT c.id, c.document_id, d.title, d.folder_path, d.format, c.text, c.section, c.page, c.page_end, c.is_table, p.text AS parent_text
       FROM doc_chunks c
       JOIN doc_index_documents d ON d.owner_user_id = c.owner_user_id AND d.document_id = c.document_id
       LEFT JOIN doc_chunks p ON p.id = c.document_id::text || ':' || c.version || ':' || c.parent_ordinal AND p.owner_user_id = c.owner_user_id
       WHERE c.owner_user_id = $1 AND c.id = ANY($2)`,
      [owner, ids],
    );
    return rows.map((r) => ({
      id: r.id,
      documentId: r.document_id,
      title: r.title,
      folderPath: r.folder_path,
      format: r.format,
      text: r.text,
      section: r.section,
      page: r.page,
      pageEnd: r.page_end,
      parentText: r.parent_text,
      isTable: r.is_table,
    }));
  }
}
