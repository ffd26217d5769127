/**
 * The document index, composed: embedder and vector store chosen by config,
 * the ingestion consumer (when output-router's address is known) and the two
 * search actions. The service's bootstrap adds `handlers` to its
 * ActionService and closes the module on shutdown.
 */
import { createChatModel, describeLlmConfig, LlmConfigError, llmConfigFromEnv } from '@af/llm';
import { ConfigError, type ActionHandler, type PrincipalSigner, type ServiceKit } from '@af/service-kit';
import type { EntityResolutionConfig } from '../config.js';
import { IngestDocument } from './app/ingest-document.js';
import { LlmReranker } from './app/llm-rerank.js';
import { documentActions } from './app/document-actions.js';
import { DocumentQueries } from './app/document-queries.js';
import { ReembedDocuments } from './app/reembed-documents.js';
import { defaultFusion, SearchDocuments } from './app/search-documents.js';
import { DocumentEventsConsumer } from './infra/document-events.consumer.js';
import { DocumentIndexRepository } from './infra/document-index.repository.js';
import { createEmbedder } from './infra/embedders.js';
import { EmbeddedVectorStore } from './infra/embedded-vector-store.js';
import type { VectorStore } from './infra/ports.js';
import { QdrantVectorStore } from './infra/qdrant-vector-store.js';
import { VectorScanPool } from './infra/vector-scan-pool.js';
import { workspaceDocuments } from './infra/workspace-documents.client.js';


export interface DocumentsModule {
  handlers: ActionHandler[];
  /** Search and ingestion status for EntityService (the gateway's /api/v1/documents routes). */
  queries: DocumentQueries;
  close(): Promise<void>;
}

/** The LLM reranker when DOCS_RERANK is `llm`: the LLM_* variables must then name a model. */
export async function createReranker(c: Pick<EntityResolutionConfig, 'DOCS_RERANK' | 'DOCS_RERANK_TIMEOUT_MS'>, env: Record<string, unknown>): Promise<LlmReranker | undefined> {
  if (c.DOCS_RERANK !== 'llm') return undefined;
  let llm;
  try {
    llm = llmConfigFromEnv(env);
  } catch (err) {
    if (err instanceof LlmConfigError) throw new ConfigError(err.problems.map((p) => ({ variable: p.field, reason: p.reason })));
    throw err;
  }
  if (llm.provider === 'none') throw new ConfigError([{ variable: 'LLM_PROVIDER', reason: 'must name a model when DOCS_RERANK is llm' }]);
  const model = await createChatModel(llm);
  return new LlmReranker(model!, describeLlmConfig(llm), c.DOCS_RERANK_TIMEOUT_MS);
}

export async function startDocuments(
  kit: ServiceKit<EntityResolutionConfig>,
  auth: PrincipalSigner,
  env: Record<string, unknown> = process.env,
): Promise<DocumentsModule> {
  const c = kit.config;
  if (c.DOCS_VECTOR_STORE === 'qdrant' && !c.QDRANT_URL)
    throw new ConfigError([{ variable: 'QDRANT_URL', reason: 'is required when DOCS_VECTOR_STORE is qdrant' }]);
  if (c.DOCS_EMBEDDER === 'openai' && !c.DOCS_EMBEDDING_API_KEY)
    throw new ConfigError([{ variable: 'DOCS_EMBEDDING_API_KEY', reason: 'is required when DOCS_EMBEDDER is openai' }]);
  const db = kit.db as unknown as ConstructorParameters<typeof DocumentIndexRepository>[0];
  const index = new DocumentIndexRepository(db);
  const embedder = await createEmbedder({
    provider: c.DOCS_EMBEDDER,
    model: c.DOCS_EMBEDDING_MODEL,
    dimensions: c.DOCS_EMBEDDING_DIMENSIONS,
    openaiApiKey: c.DOCS_EMBEDDING_API_KEY,
    openaiBaseUrl: c.DOCS_EMBEDDER === 'openai' ? c.DOCS_EMBEDDING_BASE_URL : undefined,
    ollamaBaseUrl: c.DOCS_EMBEDDER === 'ollama' ? c.DOCS_EMBEDDING_BASE_URL : undefined,
  });
  const pool =
    c.DOCS_VECTOR_STORE === 'embedded' && c.DOCS_SEARCH_THREADS > 0
      ? new VectorScanPool({
          threads: c.DOCS_SEARCH_THREADS,
          minRows: c.DOCS_SEARCH_THREADS_MIN_CHUNKS,
          onFallback: (reason) => kit.log.warn({ reason }, 'vector scan threads failed: this search ran on the event loop'),
        })
      : undefined;
  const vectors: VectorStore =
    c.DOCS_VECTOR_STORE === 'qdrant' ? new QdrantVectorStore(c.QDRANT_URL!, 'af_docs', c.QDRANT_API_KEY) : new EmbeddedVectorStore(kit.db, 64, pool);
  let consumer: DocumentEventsConsumer | undefined;
  if (c.OUTPUT_ROUTER_URL) {
    const ingest = new IngestDocument(
      index,
      workspaceDocuments(c.OUTPUT_ROUTER_URL, auth),
      embedder,
      vectors,
      { maxBytes: c.DOCS_MAX_INGEST_BYTES, chunkTokens: c.DOCS_CHUNK_TOKENS, embedBatch: 64 },
      kit.log,
    );
    consumer = new DocumentEventsConsumer(kit, ingest);
    await consumer.start();
  }
  // Documents indexed by another embedder get the configured one's vectors, off the request path.
  const reembedStop = new AbortController();
  const reembed = new ReembedDocuments(index, embedder, vectors, kit.log)
    .execute(reembedStop.signal)
    .catch((err) => kit.log.error({ reason: (err as Error)?.message ?? String(err) }, 're-embedding stopped'));
  const rerank = await createReranker(c, env);
  const search = new SearchDocuments(index, embedder, vectors, 50, defaultFusion(embedder.name, c.DOCS_FUSION_DENSE_WEIGHT, c.DOCS_FUSION), rerank);
  kit.log.info(
    {
      embedder: embedder.name,
      vectorStore: vectors.kind,
      ...(pool ? { searchThreads: pool.size } : {}),
      lexical: 'bm25 in memory over postgres english lexemes',
      fusion: search.fusion,
      rerank: rerank ? rerank.name : 'off',
      ingestion: consumer ? 'on' : 'off (OUTPUT_ROUTER_URL unset)',
    },
    'document index ready',
  );
  return {
    handlers: documentActions(search, embedder.name),
    queries: new DocumentQueries(search, index, embedder.name),
    close: async () => {
      reembedStop.abort();
      await reembed;
      await consumer?.stop();
      await pool?.close();
    },
  };
}
