import { LangchainEmbedder } from '@af/llm';
import { createEmbedder, loadWordVectors, OfflineEmbedder, OfflineWordVectorEmbedder } from './embedders.js';

describe('createEmbedder', () => {
  it('offline is offline-wordvec-v1: 100 semantic dimensions plus the hashed block of the configured size', async () => {
    const e = await createEmbedder({ provider: 'offline', dimensions: 64 });
    expect(e).toBeInstanceOf(OfflineWordVectorEmbedder);
    expect(e.name).toBe('offline-wordvec-v1');
    expect((await e.embed(['board interlocks']))[0]).toHaveLength(164);
  });

  it('offline-hashed is the deterministic hashed n-gram embedder of the configured size', async () => {
    const e = await createEmbedder({ provider: 'offline-hashed', dimensions: 64 });
    expect(e).toBeInstanceOf(OfflineEmbedder);
    expect(e.name).toBe('offline-hashed-ngram-v1');
    expect((await e.embed(['board interlocks']))[0]).toHaveLength(64);
  });

  it('openai and ollama are the langchain embedders of @af/llm, named by provider and model', async () => {
    const openai = await createEmbedder({ provider: 'openai', model: 'emb-1', openaiApiKey: 'k', openaiBaseUrl: 'http://127.0.0.1:9/v1', dimensions: 512 });
    expect(openai).toBeInstanceOf(LangchainEmbedder);
    expect(openai.name).toBe('openai:emb-1');
    expect((await createEmbedder({ provider: 'ollama', ollamaBaseUrl: 'http://127.0.0.1:9', dimensions: 512 })).name).toBe('ollama:nomic-embed-text');
  });
});

describe('loadWordVectors', () => {
  it('reads the shipped file once per process', () => {
    expect(loadWordVectors()).toBe(loadWordVectors());
  });

  it('a missing file is refused naming the path', () => {
    expect(() => loadWordVectors('/nonexistent/vectors.bin')).toThrow(/word vectors: cannot read \/nonexistent\/vectors.bin/);
  });
});
