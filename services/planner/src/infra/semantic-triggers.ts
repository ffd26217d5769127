/**
 * Semantic playbook triggers by an embedding model (TRIGGER_EMBEDDER): the
 * message is embedded once per match, together with the patterns not yet
 * cached; pattern vectors are kept (bounded, oldest dropped first) since the
 * same playbooks' triggers come back on every message. Vectors are
 * L2-normalised by `@af/llm`, and compared by cosine similarity.
 */
import { cosineSimilarity, createLangchainEmbedder, type TextEmbedder } from '@af/llm';
import { ConfigError } from '@af/service-kit';
import type { SemanticModel } from '../domain/profiles/triggers.js';
import type { PlannerConfig } from '../config.js';

export const PATTERN_CACHE_SIZE = 2_000;

export class EmbeddingTriggerModel implements SemanticModel {
  readonly name: string;
  private readonly cache = new Map<string, Float32Array>();

  constructor(
    private readonly embedder: TextEmbedder,
    readonly threshold: number,
    private readonly timeoutMs = 10_000,
    private readonly cacheSize = PATTERN_CACHE_SIZE,
  ) {
    this.name = embedder.name;
  }

  async similarities(query: string, patterns: readonly string[]): Promise<number[]> {
    const missing = [...new Set(patterns.filter((p) => !this.cache.has(p)))];
    const vectors = await this.embed([query, ...missing]);
    if (vectors.length !== missing.length + 1) throw new Error(`the model returned ${vectors.length} vectors for ${missing.length + 1} texts`);
    missing.forEach((p, i) => this.remember(p, vectors[i + 1]!));
    const q = vectors[0]!;
    return patterns.map((p) => cosineSimilarity(q, this.cache.get(p) ?? vectors[1 + missing.indexOf(p)]!));
  }

  private embed(texts: string[]): Promise<Float32Array[]> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    return Promise.race([this.embedder.embed(texts), timeout]).finally(() => clearTimeout(timer));
  }

  private remember(pattern: string, v: Float32Array): void {
    if (this.cache.size >= this.cacheSize) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(pattern, v);
  }
}

/** The configured trigger embedding model, or undefined for TRIGGER_EMBEDDER=none. */
export async function triggerModelFromConfig(c: PlannerConfig): Promise<EmbeddingTriggerModel | undefined> {
  if (c.TRIGGER_EMBEDDER === 'none') return undefined;
  if (c.TRIGGER_EMBEDDER === 'openai' && !c.TRIGGER_EMBEDDING_API_KEY)
    throw new ConfigError([{ variable: 'TRIGGER_EMBEDDING_API_KEY', reason: 'is required when TRIGGER_EMBEDDER is openai' }]);
  const embedder = await createLangchainEmbedder({
    provider: c.TRIGGER_EMBEDDER,
    model: c.TRIGGER_EMBEDDING_MODEL,
    apiKey: c.TRIGGER_EMBEDDING_API_KEY,
    baseUrl: c.TRIGGER_EMBEDDING_BASE_URL,
    maxRetries: 1,
  });
  return new EmbeddingTriggerModel(withoutSecret(embedder, c.TRIGGER_EMBEDDING_API_KEY), c.TRIGGER_SEMANTIC_THRESHOLD, c.TRIGGER_EMBEDDING_TIMEOUT_MS);
}

/** A provider error may echo the key; the note the user reads and the log never carry it. */
export function withoutSecret(embedder: TextEmbedder, secret: string | undefined): TextEmbedder {
  if (!secret) return embedder;
  return {
    name: embedder.name,
    embed: (texts) =>
      embedder.embed(texts).catch((err: unknown) => {
        throw new Error((err instanceof Error ? err.message : String(err)).split(secret).join('[redacted]'));
      }),
  };
}
