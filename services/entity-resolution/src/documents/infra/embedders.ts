/**
 * Embedders by configuration: the offline deterministic one (default, no
 * model) or a langchain embeddings model (OpenAI, Ollama) built by `@af/llm`,
 * which loads the provider SDK lazily so the default mode never imports one.
 */
import { createLangchainEmbedder } from '@af/llm';
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

export async function createEmbedder(s: EmbedderSettings): Promise<Embedder> {
  if (s.provider === 'offline') return new OfflineEmbedder(s.dimensions);
  const baseUrl = s.provider === 'openai' ? s.openaiBaseUrl : s.ollamaBaseUrl;
  return createLangchainEmbedder({ provider: s.provider, model: s.model, apiKey: s.openaiApiKey, baseUrl });
}
