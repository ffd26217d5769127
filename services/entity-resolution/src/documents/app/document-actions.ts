/**
 * `search_documents` and `find_file_by_vectors`, served over ActionService.
 * Both search only the caller's own documents (the principal's user id is
 * the owner every query is scoped by).
 */
import { AppError, type ActionContext, type ActionHandler } from '@af/service-kit';
import { z } from 'zod';
import { parseOrThrow } from '../../app/parse.js';
import { SUPPORTED_FORMATS } from '../domain/file-type.js';
import type { SearchDocuments, SearchHit } from './search-documents.js';

export const FILE_TYPES = [...SUPPORTED_FORMATS, 'md', 'txt', 'htm', 'spreadsheet'] as const;
const FORMAT_OF: Record<string, string[]> = { md: ['markdown'], txt: ['text'], htm: ['html'], spreadsheet: ['xlsx', 'csv'] };
export const toFormats = (types?: string[]) => types?.flatMap((t) => FORMAT_OF[t] ?? [t]);

const queryInputs = z.object({ query: z.string().trim().min(1, 'must not be empty').max(2000, 'must be at most 2000 characters') }).loose();
const searchParams = z
  .object({
    max_results: z.number().int().min(1).max(50).default(8),
    folder_id: z.string().min(1).optional(),
    folder_path: z.string().min(1).optional(),
    file_types: z.array(z.enum(FILE_TYPES)).optional(),
    document_ids: z.array(z.uuid()).max(1000).optional(),
    mode: z.enum(['hybrid', 'dense', 'bm25']).default('hybrid'),
  })
  .strict();
const findInputs = queryInputs.extend({
  scope: z.literal('my_docs', { error: 'only "my_docs" is searchable: the index holds each user\'s own documents' }).optional(),
  team_id: z.never({ error: 'team documents are not indexed; leave team_id out' }).optional(),
});
const findParams = z
  .object({
    max_results: z.number().int().min(1).max(50).default(10),
    file_types: z.array(z.enum(FILE_TYPES)).optional(),
    folder_id: z.string().min(1).optional(),
    folder_path: z.string().min(1).optional(),
    min_score: z.number().min(0).max(1).optional(),
  })
  .strict();

const owner = (ctx: ActionContext) => {
  if (!ctx.principal.userId) throw new AppError('UNAUTHENTICATED', 'the call names no principal');
  return ctx.principal.userId;
};

/** folder_id names a workspace folder, which the index knows by path: refused up front rather than ignored. */
export function noFolderId(p: { folder_id?: string | undefined }, field = 'params.folder_id') {
  if (p.folder_id)
    throw AppError.invalid(field, 'the document index filters by folder path: use params.folder_path (e.g. "/reports")');
}

const source = (h: SearchHit, n: number) => ({
  n,
  document_id: h.documentId,
  file: h.title,
  title: h.title,
  page: h.page,
  page_end: h.pageEnd,
  section: h.section,
  chunk_id: h.chunkId,
});

export function documentActions(search: SearchDocuments, embedderName: string): ActionHandler[] {
  const searchDocuments: ActionHandler = {
    name: 'search_documents',
    sideEffects: false,
    async execute(ctx) {
      const { query } = parseOrThrow(queryInputs, ctx.inputs, 'inputs');
      const p = parseOrThrow(searchParams, ctx.params, 'params');
      noFolderId(p);
      const formats = toFormats(p.file_types);
      const r = await search.execute({
        owner: owner(ctx),
        query,
        maxResults: p.max_results,
        mode: p.mode,
        ...(formats ? { formats } : {}),
        ...(p.folder_path ? { folderPath: p.folder_path } : {}),
        ...(p.document_ids ? { documentIds: p.document_ids } : {}),
      });
      return {
        documents: r.hits.map((h, i) => ({
          document_id: h.documentId,
          title: h.title,
          snippet: h.snippet,
          text: h.text,
          score: h.score,
          confidence: h.confidence,
          folder_path: h.folderPath,
          file_type: h.format,
          chunk_id: h.chunkId,
          page: h.page,
          page_end: h.pageEnd,
          section: h.section,
          parent_context: h.parentText,
          source: i + 1,
        })),
        sources: r.hits.map((h, i) => source(h, i + 1)),
        count: r.hits.length,
        confidence: r.confidence,
        query_analysis: { text: r.analysis.text, filters: r.analysis.filters, names: r.analysis.names, dates: r.analysis.dates },
        retrieval: { mode: p.mode, embedder: embedderName, ...(r.rerank ? { rerank: r.rerank } : {}) },
      };
    },
  };

  const findFile: ActionHandler = {
    name: 'find_file_by_vectors',
    sideEffects: false,
    async execute(ctx) {
      const { query } = parseOrThrow(findInputs, ctx.inputs, 'inputs');
      const p = parseOrThrow(findParams, ctx.params, 'params');
      noFolderId(p);
      const formats = toFormats(p.file_types);
      const r = await search.execute({
        owner: owner(ctx),
        query,
        maxResults: Math.min(50, p.max_results * 5),
        // One entry per file from many chunks: the chunk order within the top matters little, no model call.
        rerank: false,
        ...(formats ? { formats } : {}),
        ...(p.folder_path ? { folderPath: p.folder_path } : {}),
      });
      const best = new Map<string, SearchHit>();
      for (const h of r.hits) if (!best.has(h.documentId)) best.set(h.documentId, h);
      const documents = [...best.values()]
        .filter((h) => p.min_score === undefined || h.confidence >= p.min_score)
        .slice(0, p.max_results)
        .map((h) => ({
          document_id: h.documentId,
          title: h.title,
          folder_path: h.folderPath,
          file_type: h.format,
          score: h.confidence,
          best_match: { chunk_id: h.chunkId, snippet: h.snippet, page: h.page, section: h.section },
        }));
      return { documents, count: documents.length, retrieval: { embedder: embedderName } };
    },
  };
  return [searchDocuments, findFile];
}
