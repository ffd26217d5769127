import { llmEnvShape } from '@af/llm';
import { baseEnvSchema, grpcAddress } from '@af/service-kit';
import { z } from 'zod';

/** The document index (src/documents): embedder, vector store, limits. */
export const documentsEnvSchema = z.object({
  /**
   * `offline` (default): `offline-wordvec-v1`, shipped word vectors plus hashed n-grams, no model server;
   * `offline-hashed`: `offline-hashed-ngram-v1`, hashed n-grams only (lexical);
   * `openai` / `ollama`: a langchain embeddings model.
   */
  DOCS_EMBEDDER: z.enum(['offline', 'offline-hashed', 'openai', 'ollama']).default('offline'),
  /** Embedding model name for openai / ollama (defaults: text-embedding-3-small, nomic-embed-text). */
  DOCS_EMBEDDING_MODEL: z.string().min(1).optional(),
  /** Dimensions of the offline hashed n-gram features (the whole `offline-hashed` vector, the lexical block of `offline`, which adds 100 semantic ones). */
  DOCS_EMBEDDING_DIMENSIONS: z.coerce.number().int().min(64).max(4096).default(512),
  /** API key (openai) — never logged. */
  DOCS_EMBEDDING_API_KEY: z.string().min(1).optional(),
  /** Base URL of the embeddings API (openai-compatible server, or the Ollama server). */
  DOCS_EMBEDDING_BASE_URL: z.url().optional(),
  /** `embedded` (default; vectors in PostgreSQL, searched in memory) or `qdrant` (needs QDRANT_URL). */
  DOCS_VECTOR_STORE: z.enum(['embedded', 'qdrant']).default('embedded'),
  /**
   * Worker threads that scan the embedded store's vectors of an owner with at least
   * DOCS_SEARCH_THREADS_MIN_CHUNKS chunks, a slice each (shared memory, no copy); 0: scanned on the event loop.
   */
  DOCS_SEARCH_THREADS: z.coerce.number().int().min(0).max(16).default(2),
  /** Owners with fewer chunks are scanned on the event loop (posting to threads would cost more than it saves). */
  DOCS_SEARCH_THREADS_MIN_CHUNKS: z.coerce.number().int().min(0).default(20_000),
  /**
   * Weight of the dense list in the fusion (BM25 weighs 1). Unset: 1 with
   * `offline-wordvec-v1` and model embedders, 0.75 with `offline-hashed-ngram-v1`
   * (itself lexical, a noisier copy of what BM25 finds).
   */
  DOCS_FUSION_DENSE_WEIGHT: z.coerce.number().min(0).max(10).optional(),
  /**
   * `score`: min-max normalised scores added by weight; `rrf`: weighted reciprocal
   * rank fusion. Unset: `score` with the offline embedders (measured in bench/rag), `rrf` with a model.
   */
  DOCS_FUSION: z.enum(['rrf', 'score']).optional(),
  /** `llm`: rerank search_documents' fused top 20 with the chat model of the LLM_* variables (which must name one); `off` (default). */
  DOCS_RERANK: z.enum(['off', 'llm']).default('off'),
  /** Time the rerank model call may take before the fused order is kept. */
  DOCS_RERANK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  QDRANT_URL: z.url().optional(),
  QDRANT_API_KEY: z.string().min(1).optional(),
  /** Largest file the index reads; larger ones end as status failed / too_large. */
  DOCS_MAX_INGEST_BYTES: z.coerce.number().int().min(1024).default(50 * 1024 * 1024),
  /** Target size of a chunk in tokens. */
  DOCS_CHUNK_TOKENS: z.coerce.number().int().min(64).max(8192).default(1024),
  /** output-router's gRPC address: where document bytes are read. Unset: documents are not ingested (search still answers). */
  OUTPUT_ROUTER_URL: grpcAddress().optional(),
});

/** Entity-resolution service configuration (env names are the keys). */
export const entityResolutionEnvSchema = baseEnvSchema.extend({
  ...documentsEnvSchema.shape,
  /** LLM_*: with a model configured, extract_entities reads free text through it (else rule-based). */
  ...llmEnvShape,
  GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50056),
  /** Probability at or above which a record merges without review (never below 0.7). */
  ER_AUTO_THRESHOLD: z.coerce.number().min(0.7).max(1).default(0.9),
  /** Probability at or above which (below the auto threshold) a pair goes to the review queue. */
  ER_REVIEW_THRESHOLD: z.coerce.number().min(0).max(1).default(0.4),
  /** A model file `er fit` wrote (the deployment's own m / u tables and calibration); unset: the shipped model. */
  ER_MODEL_FILE: z.string().min(1).optional(),
  /** Bolt URL of a Neo4j server (`neo4j://host:7687`, `bolt://…`, `neo4j+s://…`): the knowledge graph lives there; unset: in PostgreSQL. */
  NEO4J_URL: z
    .string()
    .regex(/^(neo4j|bolt)(\+s|\+ssc)?:\/\/[^\s]+$/, 'must be a neo4j://, neo4j+s://, bolt:// or bolt+s:// URL')
    .optional(),
  NEO4J_USER: z.string().min(1).optional(),
  /** Never logged. */
  NEO4J_PASSWORD: z.string().min(1).optional(),
  /** Database name (default: the server's default database). */
  NEO4J_DATABASE: z.string().min(1).optional(),
  /** Largest `max_nodes` analyze_graph and graph queries accept. */
  ER_MAX_ANALYZE_NODES: z.coerce.number().int().min(10).max(1_000_000).default(10_000),
}).superRefine((c, ctx) => {
  // Refused rather than quietly cut to the auto threshold: the review band would be empty.
  if (c.ER_REVIEW_THRESHOLD > c.ER_AUTO_THRESHOLD)
    ctx.addIssue({
      code: 'custom',
      path: ['ER_REVIEW_THRESHOLD'],
      message: `must not exceed ER_AUTO_THRESHOLD (${c.ER_AUTO_THRESHOLD})`,
    });
});


export type EntityResolutionConfig = z.infer<typeof entityResolutionEnvSchema>;
