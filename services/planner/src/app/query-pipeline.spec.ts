import { ScriptedChatModel } from '@af/llm';
import { AppError } from '@af/service-kit';
import type { QueryRecordRow, QueryRepository } from '../infra/query.repository.js';
import { QueryPipeline } from './query-pipeline.js';

const QUERY_ID = '11111111-1111-4111-8111-111111111111';
const caller = { userId: 'alice', teamIds: [] } as never;
const run = {
  nodes: [{ node_id: 'rag_agent_0', status: 'completed', output: { documents: [{ document_id: 'd1', chunk_id: 'c1', title: 'ops-notes.md', text: 'The crane is serviced every 90 days.' }] } }],
};

function pipeline(model: ScriptedChatModel, stored: Record<string, unknown> | null = null) {
  const answers: unknown[] = [];
  const appended: unknown[] = [];
  const record: QueryRecordRow = {
    id: QUERY_ID,
    user_id: 'alice',
    session_id: 's1',
    conversation_id: 'c1',
    query: 'How often is the crane serviced?',
    streaming: true,
    master_plan: { execution_plan: [{ agent_id: 'rag_agent_0', agent_name: 'rag_agent', task: 'crane' }] },
    memory: { critical_facts: {}, preferences: {} },
    run_id: null,
    result: stored,
  };
  const repo = {
    record: async (userId: string, id: string) => (userId === 'alice' && id === QUERY_ID ? record : undefined),
    memory: async () => ({ critical_facts: {}, preferences: {} }),
    answer: async (_id: string, _run: string, result: unknown) => {
      answers.push(result);
      return true;
    },
    answeredTurns: async () => [],
  } as unknown as QueryRepository;
  const p = new QueryPipeline({
    model,
    repo,
    conversations: { append: async (_c: unknown, _id: string, messages: unknown) => (appended.push(messages), 'c1'), history: async () => [] } as never,
    tools: async () => [],
    served: () => true,
    checkActions: async () => undefined,
    log: { info: () => undefined, warn: () => undefined },
  });
  return { p, answers, appended };
}

describe('QueryPipeline.composeStream', () => {
  it('streams the answer in several tokens, then stores the checked answer they join to', async () => {
    const { p, answers, appended } = pipeline(new ScriptedChatModel(['Every 90 days [1], not [4].']));
    const tokens: string[] = [];
    const out = await p.composeStream(caller, QUERY_ID, 'run-1', run, (t) => tokens.push(t));
    expect(tokens.length).toBeGreaterThanOrEqual(3);
    expect(tokens.join('')).toBe('Every 90 days [1], not .');
    expect(out).toMatchObject({ replacesTokens: false, result: { answer: 'Every 90 days [1], not .', invalid_citations: [4], citations: [{ n: 1, chunk_id: 'c1', document_id: 'd1', url: null }] } });
    expect(answers).toHaveLength(1);
    expect(appended).toHaveLength(1);
  });

  it('streams a stored answer again word by word, without a model call', async () => {
    const model = new ScriptedChatModel([]);
    const { p, answers } = pipeline(model, { answer: 'Every 90 days [1].', sources: [] });
    const tokens: string[] = [];
    const out = await p.composeStream(caller, QUERY_ID, 'run-1', run, (t) => tokens.push(t));
    expect(tokens).toEqual(['Every', ' 90', ' days', ' [1].']);
    expect(out.result.answer).toBe('Every 90 days [1].');
    expect(model.calls).toHaveLength(0);
    expect(answers).toHaveLength(0);
  });

  it('names the cause when the model fails mid-answer, and stores nothing', async () => {
    const { p, answers } = pipeline(new ScriptedChatModel([{ chunks: ['Every ', '90 '], error: 'provider overloaded (529)' }]));
    const tokens: string[] = [];
    const err = await p.composeStream(caller, QUERY_ID, 'run-1', run, (t) => tokens.push(t)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'FAILED_PRECONDITION', message: expect.stringContaining('provider overloaded (529)') });
    expect(tokens).toEqual(['Every', ' 90']);
    expect(answers).toHaveLength(0);
  });

  it('stops the model when the caller cancels, and stores nothing', async () => {
    const { p, answers } = pipeline(new ScriptedChatModel(['one two three four five six seven eight']));
    const abort = new AbortController();
    const tokens: string[] = [];
    const err = await p
      .composeStream(caller, QUERY_ID, 'run-1', run, (t) => {
        tokens.push(t);
        if (tokens.length === 2) abort.abort(new Error('the caller left'));
      }, abort.signal)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CANCELLED' });
    expect(tokens).toEqual(['one', ' two']);
    expect(answers).toHaveLength(0);
  });

  it("refuses another user's query", async () => {
    const { p } = pipeline(new ScriptedChatModel([]));
    await expect(p.composeStream({ userId: 'bob', teamIds: [] } as never, QUERY_ID, 'run-1', run, () => undefined)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('QueryPipeline.plan with an Idempotency-Key', () => {
  function keyed(claim: Awaited<ReturnType<QueryRepository['claimKey']>>) {
    const released: string[] = [];
    const repo = {
      claimKey: async () => claim,
      releaseKey: async (_u: string, key: string) => void released.push(key),
      record: async () => undefined,
    } as unknown as QueryRepository;
    // No model: planning itself fails (FAILED_PRECONDITION), after the key was claimed.
    const p = new QueryPipeline({
      repo,
      conversations: { append: async () => 'c1', history: async () => [] } as never,
      tools: async () => [],
      served: () => true,
      checkActions: async () => undefined,
      log: { info: () => undefined, warn: () => undefined },
    });
    return { p, released };
  }
  const input = { query: 'When does the canteen open?', conversationId: '', sessionId: '', streaming: false, idempotencyKey: 'k1' };

  it('refuses the key with another request, naming Idempotency-Key', async () => {
    const { p } = keyed({ claimed: false, fingerprint: 'another request', queryId: QUERY_ID, plan: {} });
    await expect(p.plan(caller, input)).rejects.toMatchObject({ code: 'ALREADY_EXISTS', violations: [{ field: 'Idempotency-Key', code: 'idempotency_key_reused' }] });
  });

  it('answers a repeat while the first request still plans with a retryable conflict', async () => {
    // The fingerprint the first request stored: captured from a claim of the same request.
    let stored = '';
    const probe = new QueryPipeline({
      repo: { claimKey: async (_u: string, _k: string, f: string) => ((stored = f), { claimed: true }), releaseKey: async () => undefined } as unknown as QueryRepository,
      conversations: {} as never,
      tools: async () => [],
      served: () => true,
      checkActions: async () => undefined,
      log: { info: () => undefined, warn: () => undefined },
    });
    await probe.plan(caller, input).catch(() => undefined);
    const { p } = keyed({ claimed: false, fingerprint: stored, queryId: null, plan: null });
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    await expect(p.plan(caller, input)).rejects.toMatchObject({ code: 'ABORTED', retryable: true, violations: [{ field: 'Idempotency-Key', code: 'idempotency_key_in_progress' }] });
  });

  it('frees the key when planning fails, so a retry plans again', async () => {
    const { p, released } = keyed({ claimed: true });
    await expect(p.plan(caller, input)).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
    expect(released).toEqual(['k1']);
  });
});
