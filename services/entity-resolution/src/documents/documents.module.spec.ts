import { ConfigError } from '@af/service-kit';
import { LlmReranker } from './app/llm-rerank.js';
import { createReranker } from './documents.module.js';

describe('createReranker', () => {
  const llm = { DOCS_RERANK: 'llm' as const, DOCS_RERANK_TIMEOUT_MS: 1000 };
  const problems = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => (e instanceof ConfigError ? e.problems : e));

  it('is off by default and a scripted model when DOCS_RERANK is llm', async () => {
    expect(await createReranker({ DOCS_RERANK: 'off', DOCS_RERANK_TIMEOUT_MS: 1000 }, { LLM_PROVIDER: 'scripted', LLM_SCRIPT: '["x"]' })).toBeUndefined();
    const r = await createReranker(llm, { LLM_PROVIDER: 'scripted', LLM_SCRIPT: '[{"json":{"ranking":[1]}}]' });
    expect(r).toBeInstanceOf(LlmReranker);
    expect(r!.name).toBe('scripted (1 responses)');
  });

  it('stops start-up naming the variable when no model or a bad one is configured', async () => {
    expect(await problems(createReranker(llm, {}))).toEqual([{ variable: 'LLM_PROVIDER', reason: 'must name a model when DOCS_RERANK is llm' }]);
    expect(await problems(createReranker(llm, { LLM_PROVIDER: 'scripted', LLM_SCRIPT: '[oops' }))).toEqual([
      { variable: 'LLM_SCRIPT', reason: expect.stringContaining('is not valid JSON') },
    ]);
    expect(await problems(createReranker(llm, { LLM_PROVIDER: 'openai', LLM_MODEL: 'gpt-4o-mini' }))).toEqual([
      expect.objectContaining({ variable: expect.stringMatching(/LLM_API_KEY|apiKey/) }),
    ]);
  });
});
