/**
 * Text embedders backed by langchain embeddings models (OpenAI, Ollama),
 * shared by the services that embed text: document search (entity-resolution)
 * and semantic playbook triggers (planner). Provider SDKs are imported lazily
 * so a deployment without an embedding model never loads them. Vectors are
 * L2-normalised, so cosine similarity is their dot product.
 */

export interface TextEmbedder {
  /** Named in config, logs and answers (e.g. `openai:text-embedding-3-small`). */
  readonly name: string;
  embed(texts: string[]): Promise<Float32Array[]>;
}

export type EmbeddingProvider = 'openai' | 'ollama';

export interface EmbeddingModelSettings {
  provider: EmbeddingProvider;
  /** Default: `text-embedding-3-small` (openai), `nomic-embed-text` (ollama). */
  model?: string | undefined;
  /** OpenAI only. */
  apiKey?: string | undefined;
  /** OpenAI-compatible base URL (e.g. `http://host/v1`) or the Ollama server URL. */
  baseUrl?: string | undefined;
  /** Retries of a failed call (OpenAI; langchain's default when unset). */
  maxRetries?: number | undefined;
}

export const DEFAULT_EMBEDDING_MODELS: Record<EmbeddingProvider, string> = { openai: 'text-embedding-3-small', ollama: 'nomic-embed-text' };

/** Scales `v` to unit length in place (a zero vector stays zero) and returns it. */
export function l2Normalise(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const n = Math.sqrt(sum) || 1;
  for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}

/** Cosine similarity of two vectors of the same length (0 when either is zero). */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`vectors differ in length (${a.length} and ${b.length})`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** Any langchain `Embeddings` (embedDocuments), vectors L2-normalised for cosine. */
export class LangchainEmbedder implements TextEmbedder {
  constructor(
    readonly name: string,
    private readonly model: { embedDocuments(texts: string[]): Promise<number[][]> },
  ) {}

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out = await this.model.embedDocuments(texts);
    if (!Array.isArray(out) || out.length !== texts.length) throw new Error(`embedding model '${this.name}' returned ${Array.isArray(out) ? out.length : 'no'} vectors for ${texts.length} texts`);
    return out.map((v) => l2Normalise(Float32Array.from(v)));
  }
}

/** The langchain embeddings model the settings name, as a TextEmbedder (`<provider>:<model>`). */
export async function createLangchainEmbedder(s: EmbeddingModelSettings): Promise<LangchainEmbedder> {
  const model = s.model ?? DEFAULT_EMBEDDING_MODELS[s.provider];
  if (s.provider === 'openai') {
    const { OpenAIEmbeddings } = await import('@langchain/openai');
    return new LangchainEmbedder(
      `openai:${model}`,
      new OpenAIEmbeddings({
        model,
        ...(s.apiKey ? { apiKey: s.apiKey } : {}),
        ...(s.maxRetries !== undefined ? { maxRetries: s.maxRetries } : {}),
        ...(s.baseUrl ? { configuration: { baseURL: s.baseUrl } } : {}),
      }),
    );
  }
  const { OllamaEmbeddings } = await import('@langchain/ollama');
  return new LangchainEmbedder(`ollama:${model}`, new OllamaEmbeddings({ model, ...(s.baseUrl ? { baseUrl: s.baseUrl } : {}) }));
}
