/**
 * Embedders by configuration: the offline ones (no model server, no
 * download at run time) or a langchain embeddings model (OpenAI, Ollama)
 * built by `@af/llm`, which loads the provider SDK lazily so the default
 * mode never imports one.
 *
 * - `offline` (default): `offline-wordvec-v1`, word vectors shipped in
 *   data/word-vectors (6.4 MB, read once per process) plus hashed n-grams.
 * - `offline-hashed`: `offline-hashed-ngram-v1`, hashed n-grams only
 *   (lexical; the embedder before word vectors were shipped).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createLangchainEmbedder } from '@af/llm';
import { HashedEmbedder } from '../domain/hashed-embedder.js';
import { parseWordVectors, type WordVectors } from '../domain/word-vectors.js';
import { WordVectorEmbedder, type WordVectorEmbedderOptions } from '../domain/wordvec-embedder.js';
import type { Embedder } from './ports.js';

export interface EmbedderSettings {
  provider: 'offline' | 'offline-hashed' | 'openai' | 'ollama';
  model?: string | undefined;
  /** Dimensions of the hashed n-gram features (the whole vector of `offline-hashed`, the lexical block of `offline`). */
  dimensions: number;
  openaiApiKey?: string | undefined;
  openaiBaseUrl?: string | undefined;
  ollamaBaseUrl?: string | undefined;
}

/** The word vectors shipped with the service (see data/word-vectors/README.md). */
export const SHIPPED_WORD_VECTORS = fileURLToPath(new URL('../../../data/word-vectors/wink-glove-100d-60k.bin', import.meta.url));

let shipped: WordVectors | undefined;

/** Reads and parses a word-vector file (the shipped one once per process); a missing or malformed file throws naming it. */
export function loadWordVectors(file = SHIPPED_WORD_VECTORS): WordVectors {
  if (file === SHIPPED_WORD_VECTORS && shipped) return shipped;
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    throw new Error(`word vectors: cannot read ${file}: ${(err as Error).message}`);
  }
  const wv = parseWordVectors(bytes);
  if (file === SHIPPED_WORD_VECTORS) shipped = wv;
  return wv;
}

/** The offline hashed n-gram embedder (`offline-hashed-ngram-v1`). */
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

/** The offline semantic embedder (`offline-wordvec-v1`): shipped word vectors plus hashed n-grams. */
export class OfflineWordVectorEmbedder implements Embedder {
  readonly name: string;
  readonly dimensions: number;
  /** The first `semanticDimensions` of each vector are dense (the vector index stores them row by row). */
  readonly semanticDimensions: number;
  readonly source: string;
  private readonly e: WordVectorEmbedder;

  constructor(hashedDimensions = 512, wordVectors: WordVectors = loadWordVectors(), options: Omit<WordVectorEmbedderOptions, 'hashedDimensions'> = {}) {
    this.e = new WordVectorEmbedder(wordVectors, { ...options, hashedDimensions });
    this.name = this.e.name;
    this.dimensions = this.e.dimensions;
    this.semanticDimensions = this.e.semanticDimensions;
    this.source = wordVectors.source;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.e.embed(t));
  }
}

export async function createEmbedder(s: EmbedderSettings): Promise<Embedder> {
  if (s.provider === 'offline') return new OfflineWordVectorEmbedder(s.dimensions);
  if (s.provider === 'offline-hashed') return new OfflineEmbedder(s.dimensions);
  const baseUrl = s.provider === 'openai' ? s.openaiBaseUrl : s.ollamaBaseUrl;
  return createLangchainEmbedder({ provider: s.provider, model: s.model, apiKey: s.openaiApiKey, baseUrl });
}
