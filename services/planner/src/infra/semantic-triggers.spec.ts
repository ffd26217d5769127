import { l2Normalise, type TextEmbedder } from '@af/llm';
import { ConfigError } from '@af/service-kit';
import { plannerEnvSchema } from '../config.js';
import { EmbeddingTriggerModel, triggerModelFromConfig, withoutSecret } from './semantic-triggers.js';

/** Stub vectors: each text's vector is looked up; unknown texts get [0, 0, 1]. */
function stub(vectors: Record<string, number[]>): TextEmbedder & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    name: 'stub:model',
    calls,
    async embed(texts) {
      calls.push(texts);
      return texts.map((t) => l2Normalise(Float32Array.from(vectors[t] ?? [0, 0, 1])));
    },
  };
}

describe('EmbeddingTriggerModel', () => {
  const vectors = { 'who sits on several boards': [1, 0.1, 0], 'board interlocks': [1, 0, 0], 'grant history': [0, 1, 0] };

  it('embeds the message once with the uncached patterns and returns cosine similarities in pattern order', async () => {
    const e = stub(vectors);
    const m = new EmbeddingTriggerModel(e, 0.8);
    expect(m.name).toBe('stub:model');
    const s = await m.similarities('who sits on several boards', ['board interlocks', 'grant history']);
    expect(s[0]).toBeCloseTo(1 / Math.hypot(1, 0.1));
    expect(s[1]).toBeCloseTo(0.1 / Math.hypot(1, 0.1));
    expect(e.calls).toEqual([['who sits on several boards', 'board interlocks', 'grant history']]);
  });

  it('caches pattern vectors: the next message embeds only itself and new patterns', async () => {
    const e = stub(vectors);
    const m = new EmbeddingTriggerModel(e, 0.8);
    await m.similarities('a', ['board interlocks']);
    await m.similarities('b', ['board interlocks', 'grant history', 'grant history']);
    expect(e.calls).toEqual([['a', 'board interlocks'], ['b', 'grant history']]);
  });

  it('keeps at most cacheSize patterns, dropping the oldest', async () => {
    const e = stub(vectors);
    const m = new EmbeddingTriggerModel(e, 0.8, 1_000, 1);
    await m.similarities('a', ['board interlocks', 'grant history']);
    await m.similarities('b', ['grant history']);
    await m.similarities('c', ['board interlocks']);
    expect(e.calls).toEqual([['a', 'board interlocks', 'grant history'], ['b'], ['c', 'board interlocks']]);
  });

  it('a failing, short or slow model rejects with the reason', async () => {
    await expect(new EmbeddingTriggerModel({ name: 'x', embed: async () => Promise.reject(new Error('HTTP 401')) }, 0.8).similarities('q', ['p'])).rejects.toThrow('HTTP 401');
    await expect(new EmbeddingTriggerModel({ name: 'x', embed: async () => [new Float32Array(2)] }, 0.8).similarities('q', ['p'])).rejects.toThrow('the model returned 1 vectors for 2 texts');
    const slow = { name: 'x', embed: () => new Promise<Float32Array[]>(() => undefined) };
    await expect(new EmbeddingTriggerModel(slow, 0.8, 100).similarities('q', ['p'])).rejects.toThrow('no answer within 100 ms');
  });
});

it('withoutSecret: a provider error echoing the key is redacted', async () => {
  const leaky = { name: 'x', embed: () => Promise.reject(new Error('Incorrect API key provided: sk-abc123')) };
  await expect(withoutSecret(leaky, 'sk-abc123').embed(['q'])).rejects.toThrow('Incorrect API key provided: [redacted]');
  expect(withoutSecret(leaky, undefined)).toBe(leaky);
});

describe('trigger embedding config', () => {
  const parse = (env: Record<string, string>) => plannerEnvSchema.parse({ NODE_ENV: 'test', DATABASE_URL: 'postgres://x@127.0.0.1/test', NATS_URL: 'nats://127.0.0.1:4222', SERVICE_AUTH_SECRET: 'a-test-secret-of-enough-length-000', ...env });

  it('defaults to none (no model) and threshold 0.8', async () => {
    const c = parse({});
    expect([c.TRIGGER_EMBEDDER, c.TRIGGER_SEMANTIC_THRESHOLD]).toEqual(['none', 0.8]);
    expect(await triggerModelFromConfig(c)).toBeUndefined();
  });

  it('builds the openai model with its name and threshold; openai without a key is refused naming the variable', async () => {
    const m = await triggerModelFromConfig(parse({ TRIGGER_EMBEDDER: 'openai', TRIGGER_EMBEDDING_MODEL: 'emb-1', TRIGGER_EMBEDDING_API_KEY: 'k', TRIGGER_SEMANTIC_THRESHOLD: '0.7' }));
    expect([m?.name, m?.threshold]).toEqual(['openai:emb-1', 0.7]);
    await expect(triggerModelFromConfig(parse({ TRIGGER_EMBEDDER: 'openai' }))).rejects.toThrow(ConfigError);
    await expect(triggerModelFromConfig(parse({ TRIGGER_EMBEDDER: 'openai' }))).rejects.toThrow(/TRIGGER_EMBEDDING_API_KEY/);
  });

  it('refuses an unknown embedder, a threshold outside 0..1 and a bad base URL', () => {
    expect(() => parse({ TRIGGER_EMBEDDER: 'cohere' })).toThrow(/TRIGGER_EMBEDDER/);
    expect(() => parse({ TRIGGER_SEMANTIC_THRESHOLD: '1.5' })).toThrow(/TRIGGER_SEMANTIC_THRESHOLD/);
    expect(() => parse({ TRIGGER_EMBEDDING_BASE_URL: 'not a url' })).toThrow(/TRIGGER_EMBEDDING_BASE_URL/);
  });
});
