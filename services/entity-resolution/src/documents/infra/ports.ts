/** The ports the document index is built on: an embedder and a vector store. */

export interface Embedder {
  /** Named in config, logs and answers (e.g. `offline-hashed-ngram-v1`, `openai:text-embedding-3-small`). */
  readonly name: string;
  embed(texts: string[]): Promise<Float32Array[]>;
}

export interface VectorPoint {
  /** Chunk id: `<documentId>:<version>:<ordinal>`. */
  id: string;
  documentId: string;
  vector: Float32Array;
  payload: { format: string; section: string; page: number | null; years: number[] };
}

export interface VectorStore {
  /** `embedded` or `qdrant`. */
  readonly kind: string;
  upsert(owner: string, points: VectorPoint[]): Promise<void>;
  deleteDocument(owner: string, documentId: string): Promise<void>;
  /** The k nearest chunks of `owner` (cosine), restricted to `documentIds` when given. */
  search(owner: string, vector: Float32Array, k: number, documentIds?: readonly string[]): Promise<Array<{ id: string; score: number }>>;
}

/** The document id of a chunk id. */
export const chunkDocumentId = (chunkId: string) => chunkId.slice(0, 36);
