/**
 * The document index as the API reads it (EntityService SearchDocuments and
 * GetDocumentIndex, behind the gateway's /api/v1/documents routes): a search
 * over the caller's own indexed documents, as `search_documents` runs it,
 * and the ingestion status of one of them. The owner is always the
 * principal's user id: another user's document is NOT_FOUND, never read.
 */
import { AppError } from '@af/service-kit';
import { z } from 'zod';
import { parseOrThrow } from '../../app/parse.js';
import type { DocumentIndexRepository, IndexedDocument } from '../infra/document-index.repository.js';
import { FILE_TYPES, noFolderId, toFormats } from './document-actions.js';
import type { SearchDocuments } from './search-documents.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const MAX_TOP_K = 50;
export const DEFAULT_TOP_K = 8;

const SearchInput = z.strictObject({
  query: z.string().trim().min(1, 'must not be empty').max(2000, 'must be at most 2000 characters'),
  top_k: z.number().int('must be a whole number').min(1, 'must be at least 1').max(MAX_TOP_K, `must be at most ${MAX_TOP_K}`).default(DEFAULT_TOP_K),
  filters: z
    .strictObject({
      file_types: z.array(z.enum(FILE_TYPES)).optional(),
      folder_path: z.string().min(1).optional(),
      folder_id: z.string().min(1).optional(),
      document_ids: z.array(z.uuid()).max(1000).optional(),
      mode: z.enum(['hybrid', 'dense', 'bm25']).default('hybrid'),
    })
    .default({ mode: 'hybrid' }),
});

export type DocumentSearchInput = z.input<typeof SearchInput>;

export interface DocumentSearchAnswer {
  hits: Array<Record<string, unknown>>;
  embedder: string;
  confidence: number;
  mode: string;
  queryAnalysis: Record<string, unknown>;
}

export class DocumentQueries {
  constructor(
    private readonly search: SearchDocuments,
    private readonly index: Pick<DocumentIndexRepository, 'get'>,
    readonly embedderName: string,
  ) {}

  async searchDocuments(owner: string, input: unknown): Promise<DocumentSearchAnswer> {
    if (!owner) throw new AppError('UNAUTHENTICATED', 'the call names no principal');
    const p = parseOrThrow(SearchInput, input);
    noFolderId(p.filters, 'filters.folder_id');
    const formats = toFormats(p.filters.file_types);
    const r = await this.search.execute({
      owner,
      query: p.query,
      maxResults: p.top_k,
      mode: p.filters.mode,
      ...(formats ? { formats } : {}),
      ...(p.filters.folder_path ? { folderPath: p.filters.folder_path } : {}),
      ...(p.filters.document_ids ? { documentIds: p.filters.document_ids } : {}),
    });
    return {
      hits: r.hits.map((h, i) => ({
        rank: i + 1,
        document_id: h.documentId,
        file: h.title,
        chunk_id: h.chunkId,
        page: h.page,
        page_end: h.pageEnd,
        section: h.section || null,
        text: h.text,
        snippet: h.snippet,
        score: h.score,
        confidence: h.confidence,
        file_type: h.format,
        folder_path: h.folderPath,
      })),
      embedder: this.embedderName,
      confidence: r.confidence,
      mode: p.filters.mode,
      queryAnalysis: { text: r.analysis.text, filters: r.analysis.filters, names: r.analysis.names, dates: r.analysis.dates },
    };
  }

  /** The document's row in the index; NOT_FOUND when there is none for this owner. */
  async documentIndex(owner: string, documentId: string): Promise<IndexedDocument> {
    if (!owner) throw new AppError('UNAUTHENTICATED', 'the call names no principal');
    if (!UUID.test(documentId)) throw AppError.invalid('document_id', 'must be a document id (UUID)');
    const row = await this.index.get(owner, documentId);
    if (!row) throw AppError.notFound('document', documentId);
    return row;
  }
}
