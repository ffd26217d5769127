/**
 * Hybrid document search for one owner: analyse the question into filters,
 * run the dense (vector store) and BM25 (PostgreSQL) searches over the
 * owner's chunks, fuse them (score fusion or weighted RRF), and answer chunks with
 * their sources (file, page, section) and a confidence.
 */
import { fuse, hitConfidence, type FusionMethod, type FusionSettings } from '../domain/fusion.js';
import { analyseQuery, type QueryAnalysis } from '../domain/query-analysis.js';
import type { DocumentIndexRepository } from '../infra/document-index.repository.js';
import type { Embedder, VectorStore } from '../infra/ports.js';
import type { LlmReranker } from './llm-rerank.js';

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
  /** Rerank with the model when one is configured (default true). */
  rerank?: boolean;
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
  /** Present when a reranker is configured: what it did with this query. */
  rerank?: { model: string; status: 'reranked' | 'kept_fused_order' | 'not_asked'; reason?: string };
}

/** How many fused candidates the reranker sees (it answers the top `maxResults`, at most 8 by default). */
const RERANK_CANDIDATES = 20;

const snippet = (text: string, section: string) => {
  const body = section && text.startsWith(section) ? text.slice(section.length).trim() : text;
  return body.length > 320 ? `${body.slice(0, 317)}…` : body;
};

/**
 * The fusion used when none is configured, per embedder. The offline ones
 * were measured on bench/rag (fusion chosen on half A of the questions,
 * reported on half B): score fusion, because BM25's score gaps (an
 * identifier matched) carry what ranks lose; dense weight 1 with
 * `offline-wordvec-v1`, 0.75 with the lexical `offline-hashed-ngram-v1`
 * (its list is a noisier copy of BM25's). A model embedder was not
 * measured here: plain RRF, the literature's default.
 */
export function defaultFusion(embedderName: string, denseWeight?: number, method?: FusionMethod): FusionSettings {
  const measured: Record<string, FusionSettings> = {
    'offline-wordvec-v1': { method: 'score', weights: [1, 1] },
    'offline-hashed-ngram-v1': { method: 'score', weights: [0.75, 1] },
  };
  const base = measured[embedderName] ?? { method: 'rrf', weights: [1, 1] };
  return { method: method ?? base.method, weights: [denseWeight ?? base.weights[0]!, 1] };
}

/** What the retrievers answered for one request, before fusion (the bench fuses these itself). */
export interface Candidates {
  analysis: QueryAnalysis;
  dense: Array<{ id: string; score: number }>;
  lexical: Array<{ id: string; score: number }>;
}

export class SearchDocuments {
  constructor(
    private readonly index: DocumentIndexRepository,
    private readonly embedder: Embedder,
    private readonly vectors: VectorStore,
    /** How many candidates each retriever contributes before fusion. */
    private readonly candidates = 50,
    /** How the two lists are fused (dense first, BM25 second); see `defaultFusion`. */
    readonly fusion: FusionSettings = defaultFusion(embedder.name),
    private readonly reranker?: LlmReranker,
  ) {}

  /** Weight of the dense list in the fusion (BM25's is 1). */
  get denseWeight(): number {
    return this.fusion.weights[0] ?? 1;
  }

  /** The dense and BM25 candidates of a request (`candidates` each), after query analysis and filters. */
  async retrieve(r: SearchRequest): Promise<Candidates> {
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
    return { analysis, dense, lexical };
  }

  async execute(r: SearchRequest): Promise<SearchResult> {
    const mode = r.mode ?? 'hybrid';
    const { analysis, dense, lexical } = await this.retrieve(r);
    const rerank = this.reranker && r.rerank !== false;
    // A single-method search ranks by its own list (RRF of one list keeps its order).
    const settings: FusionSettings = mode === 'hybrid' ? this.fusion : { method: 'rrf', weights: [1, 1] };
    let fused = fuse([dense, lexical], settings).slice(0, rerank ? Math.max(RERANK_CANDIDATES, r.maxResults) : r.maxResults);
    const cos = new Map(dense.map((d) => [d.id, d.score]));
    const rows = new Map((await this.index.chunks(r.owner, fused.map((f) => f.id))).map((c) => [c.id, c]));
    let reranked: SearchResult['rerank'];
    if (this.reranker) reranked = { model: this.reranker.name, status: 'not_asked' };
    if (rerank && this.reranker) {
      const candidates = fused.flatMap((f) => {
        const c = rows.get(f.id);
        return c ? [{ chunkId: c.id, title: c.title, section: c.section, text: c.text }] : [];
      });
      const outcome = await this.reranker.rerank(analysis.text, candidates);
      const byId = new Map(fused.map((f) => [f.id, f]));
      fused = outcome.order.map((id) => byId.get(id)!);
      reranked = { model: this.reranker.name, status: outcome.status, ...(outcome.reason ? { reason: outcome.reason } : {}) };
    }
    fused = fused.slice(0, r.maxResults);
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
    return { hits, analysis, confidence: hits[0]?.confidence ?? 0, ...(reranked ? { rerank: reranked } : {}) };
  }
}
