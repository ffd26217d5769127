/**
 * Hybrid document search for one owner: analyse the question into filters,
 * run the dense (vector store) and BM25 (PostgreSQL) searches over the
 * owner's chunks, fuse them by reciprocal rank, and answer chunks with
 * their sources (file, page, section) and a confidence.
 */
import { hitConfidence, reciprocalRankFusion } from '../domain/fusion.js';
import { analyseQuery, type QueryAnalysis } from '../domain/query-analysis.js';
import type { DocumentIndexRepository } from '../infra/document-index.repository.js';
import type { Embedder, VectorStore } from '../infra/ports.js';

export type SearchMode = 'hybrid' | 'dense' | 'bm25';

export interface SearchRequest {
  owner: string;
  query: string;
  maxResults: number;
  mode?: SearchMode;
  formats?: string[];
  folderPath?: string;
  documentIds?: string[];
  /** Skip query analysis (the bench measures the retrievers themselves). */
  analyse?: boolean;
}

export interface SearchHit {
  chunkId: string;
  documentId: string;
  title: string;
  folderPath: string;
  format: string | null;
  snippet: string;
  text: string;
  section: string;
  page: number | null;
  pageEnd: number | null;
  parentText: string | null;
  score: number;
  denseScore: number | null;
  bm25Rank: number | null;
  denseRank: number | null;
  confidence: number;
}

export interface SearchResult {
  hits: SearchHit[];
  analysis: QueryAnalysis;
  confidence: number;
}

const snippet = (text: string, section: string) => {
  const body = section && text.startsWith(section) ? text.slice(section.length).trim() : text;
  return body.length > 320 ? `${body.slice(0, 317)}…` : body;
};

export class SearchDocuments {
  constructor(
    private readonly index: DocumentIndexRepository,
    private readonly embedder: Embedder,
    private readonly vectors: VectorStore,
    /** How many candidates each retriever contributes before fusion. */
    private readonly candidates = 50,
  ) {}

  async execute(r: SearchRequest): Promise<SearchResult> {
    const analysis: QueryAnalysis = r.analyse === false ? { text: r.query, filters: {}, names: [], dates: [] } : analyseQuery(r.query);
    const formats = r.formats?.length ? r.formats : analysis.filters.formats;
    const allowed = await this.index.filterDocuments(r.owner, {
      ...analysis.filters,
      ...(formats ? { formats: formats as never } : {}),
      ...(r.folderPath ? { folderPath: r.folderPath } : {}),
      ...(r.documentIds ? { documentIds: r.documentIds } : {}),
    });
    const mode = r.mode ?? 'hybrid';
    const k = Math.max(this.candidates, r.maxResults);
    const [dense, lexical] = await Promise.all([
      mode === 'bm25' ? [] : this.embedder.embed([analysis.text]).then(([v]) => this.vectors.search(r.owner, v!, k, allowed)),
      mode === 'dense' ? [] : this.index.bm25(r.owner, analysis.text, k, allowed),
    ]);
    const fused = reciprocalRankFusion([dense, lexical]).slice(0, r.maxResults);
    const cos = new Map(dense.map((d) => [d.id, d.score]));
    const rows = new Map((await this.index.chunks(r.owner, fused.map((f) => f.id))).map((c) => [c.id, c]));
    const hits: SearchHit[] = [];
    for (const f of fused) {
      const c = rows.get(f.id);
      // A chunk whose document was re-indexed between the two reads: gone, skip it.
      if (!c) continue;
      const ranks = mode === 'hybrid' ? f.ranks : [f.ranks[mode === 'dense' ? 0 : 1]];
      hits.push({
        chunkId: c.id,
        documentId: c.documentId,
        title: c.title,
        folderPath: c.folderPath,
        format: c.format,
        snippet: snippet(c.text, c.section),
        text: c.text,
        section: c.section,
        page: c.page,
        pageEnd: c.pageEnd,
        parentText: c.parentText,
        score: Math.round(f.score * 1e6) / 1e6,
        denseScore: cos.get(f.id) ?? null,
        denseRank: f.ranks[0] ?? null,
        bm25Rank: f.ranks[1] ?? null,
        confidence: hitConfidence(cos.get(f.id), ranks),
      });
    }
    return { hits, analysis, confidence: hits[0]?.confidence ?? 0 };
  }
}
