import { ScriptedChatModel } from '@af/llm';
import { LlmReranker } from './llm-rerank.js';

const candidates = ['crane maintenance every ninety days', 'canteen opening hours', 'crane operator licence rules'].map((text, i) => ({
  chunkId: `c${i + 1}`,
  title: 'ops.md',
  section: 'Ops',
  text,
}));

describe('LlmReranker', () => {
  it('puts the passages the model names first, in its order, the rest after in fused order', async () => {
    const model = new ScriptedChatModel([{ json: { ranking: [3, 1] } }]);
    const out = await new LlmReranker(model, 'scripted').rerank('who may operate a crane', candidates);
    expect(out).toEqual({ order: ['c3', 'c1', 'c2'], status: 'reranked' });
    expect(model.prompts[0]).toContain('who may operate a crane');
    expect(model.prompts[0]).toContain('crane operator licence rules');
  });

  it('keeps the fused order when the model names no valid passage, fails, or has one candidate only', async () => {
    const none = await new LlmReranker(new ScriptedChatModel([{ json: { ranking: [] } }]), 's').rerank('q', candidates);
    expect(none).toEqual({ order: ['c1', 'c2', 'c3'], status: 'kept_fused_order', reason: 'the model named no passage' });
    const failed = await new LlmReranker(new ScriptedChatModel([{ error: 'rate limited' }]), 's').rerank('q', candidates);
    expect(failed.order).toEqual(['c1', 'c2', 'c3']);
    expect(failed.status).toBe('kept_fused_order');
    expect(failed.reason).toContain('rate limited');
    const bad = await new LlmReranker(new ScriptedChatModel([{ json: { ranking: [9] } }, { json: { ranking: [0] } }]), 's').rerank('q', candidates);
    expect(bad.status).toBe('kept_fused_order');
    const one = await new LlmReranker(new ScriptedChatModel([]), 's').rerank('q', candidates.slice(0, 1));
    expect(one).toEqual({ order: ['c1'], status: 'kept_fused_order', reason: 'fewer than two candidates' });
  });
});
