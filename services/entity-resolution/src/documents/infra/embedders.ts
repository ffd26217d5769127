/**
 * Embedders by configuration: the offline deterministic one (default, no
 * model) or a langchain embeddings model (OpenAI, Ollama). Loaded lazily so
 * the default mode never imports a provider SDK.
 */
import { HashedEmbedder } from '../domain/hashed-embedder.js';
import type { Embedder } from './ports.js';

export interface EmbedderSettings {
  provider: 'offline' | 'openai' | 'ollama';
  model?: string | undefined;
  dimensions: number;
  openaiApiKey?: string | undefined;
  openaiBaseUrl?: string | undefined;
  ollamaBaseUrl?: string | undefined;
}

export class OfflineEmbedder implements Embedder {
  private readonly h: HashedEmbedder;
  readonly name: string;

  constructor(dimensions = 512) {
    this.h = new HashedEmbedder(dimensions);
    this.name = this.h.name;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.h.embed(t));
  }
}

/** Any langchain `Embeddings` (embedDocuments), vectors L2-normalised for cosine. */
export class LangchainEmbedder implements Embedder {
  constructor(
    readonly name: string,
    private readonly model: { embedDocuments(texts: string[]): Promise<number[][]> },
  ) {}

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out = await this.model.embedDocuments(texts);
    return out.map((v) => {
      const f = Float32Array.from(v);
      const n = Math.hypot(...f) || 1;
      for (let i = 0; i < f.length; i++) f[i]! /= n;
      return f;
    });
  }
}

export async function createEmbedder(s: EmbedderSettings): Promise<Embedder> {
  if (s.provider === 'openai') {
    const { OpenAIEmbeddings } = await import('@langchain/openai');
    const model = s.model ?? 'text-embedding-3-small';
    return new LangchainEmbedder(
      `openai:${model}`,
      new OpenAIEmbeddings({
        model,
        ...(s.openaiApiKey ? { apiKey: s.openaiApiKey } : {}),
        ...(s.openaiBaseUrl ? { configuration: { baseURL: s.openaiBaseUrl } } : {}),
      }),
    );
  }
  if (s.provider === 'ollama') {
    const { OllamaEmbeddings } = await import('@langchain/ollama');
    const model = s.model ?? 'nomic-embed-text';
    return new LangchainEmbedder(`ollama:${model}`, new OllamaEmbeddings({ model, ...(s.ollamaBaseUrl ? { baseUrl: s.ollamaBaseUrl } : {}) }));
  }
  return new OfflineEmbedder(s.dimensions);
}
