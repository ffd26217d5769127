/**
 * Optional LLM rerank of the fused hits: the model sees the question and the
 * first candidates (numbered, each its section and an excerpt) and answers
 * `{"ranking": [n, …]}`, the passage numbers most relevant first. The hits it
 * names come first in its order, the others follow in fused order. A model
 * error, a time-out or an answer naming no valid passage keeps the fused
 * order, and the answer says why (`rerank.status`).
 */
import { runStructuredTask, type BaseChatModel } from '@af/llm';

export interface RerankCandidate {
  chunkId: string;
  title: string;
  section: string;
  text: string;
}

export interface RerankOutcome {
  /** Chunk ids in the new order (every candidate once). */
  order: string[];
  status: 'reranked' | 'kept_fused_order';
  reason?: string;
}

const EXCERPT = 700;

export class LlmReranker {
  constructor(
    private readonly model: BaseChatModel,
    readonly name: string,
    private readonly timeoutMs = 15_000,
  ) {}

  async rerank(query: string, candidates: RerankCandidate[]): Promise<RerankOutcome> {
    const fused = candidates.map((c) => c.chunkId);
    if (candidates.length < 2) return { order: fused, status: 'kept_fused_order', reason: 'fewer than two candidates' };
    const passages = candidates.map((c, i) => ({ n: i + 1, file: c.title, section: c.section, excerpt: c.text.length > EXCERPT ? `${c.text.slice(0, EXCERPT)}…` : c.text }));
    try {
      const { output } = await runStructuredTask<{ ranking: number[] }>({
        model: this.model,
        instructions:
          'Rank the passages by how well they answer the question. Answer the passage numbers of the relevant ones, most relevant first; leave out passages that do not help.',
        context: { question: query, passages },
        outputSchema: {
          type: 'object',
          properties: { ranking: { type: 'array', items: { type: 'integer', minimum: 1, maximum: candidates.length } } },
          required: ['ranking'],
          additionalProperties: false,
        },
        schemaName: 'passage_ranking',
        maxAttempts: 2,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const seen = new Set<number>();
      const picked = output.ranking.filter((n) => Number.isInteger(n) && n >= 1 && n <= candidates.length && !seen.has(n) && seen.add(n));
      if (!picked.length) return { order: fused, status: 'kept_fused_order', reason: 'the model named no passage' };
      const order = picked.map((n) => fused[n - 1]!);
      for (const id of fused) if (!order.includes(id)) order.push(id);
      return { order, status: 'reranked' };
    } catch (err) {
      return { order: fused, status: 'kept_fused_order', reason: `the model failed: ${(err as Error).message.slice(0, 300)}` };
    }
  }
}
