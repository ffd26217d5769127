import { LangchainEmbedder } from '@af/llm';
import { createEmbedder, OfflineEmbedder } from './embedders.js';

describe('createEmbedder', () => {
  it('offline is the deterministic hashed embedder of the configured size', async () => {
    const e = await createEmbedder({ provider: 'offline', dimensions: 64 });
    expect(e).toBeInstanceOf(OfflineEmbedder);
    expect((await e.embed(['board interlocks']))[0]).toHaveLength(64);
  });

  it('openai and ollama are the langchain embedders of @af/llm, named by provider and model', async () => {
    const openai = await createEmbedder({ provider: 'openai', model: 'emb-1', openaiApiKey: 'k', openaiBaseUrl: 'http://127.0.0.1:9/v1', dimensions: 512 });
    expect(openai).toBeInstanceOf(LangchainEmbedder);
    expect(openai.name).toBe('openai:emb-1');
    expect((await createEmbedder({ provider: 'ollama', ollamaBaseUrl: 'http://127.0.0.1:9', dimensions: 512 })).name).toBe('ollama:nomic-embed-text');
  });
});
