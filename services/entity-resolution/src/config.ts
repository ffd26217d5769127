import { baseEnvSchema, grpcAddress } from '@af/service-kit';
import { z } from 'zod';

/** The document index (src/documents): embedder, vector store, limits. */
export const documentsEnvSchema = z.object({
  /** `offline` (default): the deterministic hashed n-gram embedder, no model; `openai` / `ollama`: a langchain embeddings model. */
  DOCS_EMBEDDER: z.enum(['offline', 'openai', 'ollama']).default('offline'),
  /** Embedding model name for openai / ollama (defaults: text-embedding-3-small, nomic-embed-text). */
  DOCS_EMBEDDING_MODEL: z.string().min(1).optional(),
  /** Dimensions of the offline embedder. */
  DOCS_EMBEDDING_DIMENSIONS: z.coerce.number().int().min(64).max(4096).default(512),
  /** API key (openai) — never logged. */
  DOCS_EMBEDDING_API_KEY: z.string().min(1).optional(),
  /** Base URL of the embeddings API (openai-compatible server, or the Ollama server). */
  DOCS_EMBEDDING_BASE_URL: z.url().optional(),
  /** `embedded` (default; vectors in PostgreSQL, searched in memory) or `qdrant` (needs QDRANT_URL). */
  DOCS_VECTOR_STORE: z.enum(['embedded', 'qdrant']).default('embedded'),
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
  GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50056),
  /** Probability at or above which a record merges without review (never below 0.7). */
  ER_AUTO_THRESHOLD: z.coerce.number().min(0.7).max(1).default(0.9),
  /** Probability at or above which (below the auto threshold) a pair goes to the review queue. */
  ER_REVIEW_THRESHOLD: z.coerce.number().min(0).max(1).default(0.5),
  /** Largest `max_nodes` analyze_graph and graph queries accept. */
  ER_MAX_ANALYZE_NODES: z.coerce.number().int().min(10).max(1_000_000).default(10_000),
});


export type EntityResolutionConfig = z.infer<typeof entityResolutionEnvSchema>;
