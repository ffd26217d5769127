import { LlmError, StructuredOutputError } from './llm-errors.js';
import type { LlmTool } from './llm-tool.js';
import { runResearchTask } from './research-task.js';
import { ScriptedChatModel } from './scripted-chat-model.js';

const claims = {
  type: 'object',
  properties: { verified_claims: { type: 'array', items: { type: 'string' } }, notes: { type: 'string' } },
  required: ['verified_claims', 'notes'],
};
const search: LlmTool = {
  name: 'search_web',
  description: 'Search',
  schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  invoke: async (args) => ({ results: [{ title: `about ${String(args.query)}` }] }),
};
const call = (query: string) => ({ toolCalls: [{ name: 'search_web', args: { query } }] });

describe('runResearchTask', () => {
  it('returns the final answer when it matches the schema, telling the model the schema up front', async () => {
    const answer = { verified_claims: ['Acme grew'], notes: 'one source' };
    const model = new ScriptedChatModel([call('acme'), { json: answer }]);
    const r = await runResearchTask({ model, tools: [search], systemPrompt: 'Verify the top claims.', input: { headline: 'Acme grew' }, outputSchema: claims });
    expect(r).toMatchObject({ output: answer, rounds: 1, stoppedBy: 'answer', shapedBy: 'answer', attempts: 0 });
    expect(r.trace.map((t) => t.name)).toEqual(['search_web']);
    expect(model.prompts[0]).toContain('system: Verify the top claims.');
    expect(model.prompts[0]).toContain('"verified_claims"');
  });

  it('reshapes a prose answer with a structured task over the findings and tool results', async () => {
    const shaped = { verified_claims: ['about acme'], notes: 'from search' };
    const model = new ScriptedChatModel([call('acme'), 'Acme did grow, per one search result.', { json: shaped }]);
    const r = await runResearchTask({ model, tools: [search], systemPrompt: 's', input: 'q', outputSchema: claims });
    expect(r).toMatchObject({ output: shaped, shapedBy: 'structured_task', attempts: 1, mode: 'native' });
    expect(model.calls[2]!.structuredOutput).toBeDefined();
    expect(model.prompts[2]).toContain('"findings": "Acme did grow, per one search result."');
    expect(model.prompts[2]).toContain('"tool": "search_web"');
  });

  it('fails with no_final_answer when the model still wants tools after max_rounds', async () => {
    const model = new ScriptedChatModel([call('a'), call('b')]);
    const err = await runResearchTask({ model, tools: [search], systemPrompt: 's', input: 'q', maxRounds: 1, outputSchema: claims }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).code).toBe('no_final_answer');
    expect((err as Error).message).toBe('the model was still calling tools after max_rounds=1 round(s) and gave no final answer (tools called: search_web)');
  });

  it('fails with StructuredOutputError when even reshaping cannot match the schema', async () => {
    const model = new ScriptedChatModel(['prose', { json: { notes: 1 } }]);
    await expect(runResearchTask({ model, tools: [search], systemPrompt: 's', input: 'q', outputSchema: claims, maxAttempts: 1 })).rejects.toBeInstanceOf(StructuredOutputError);
  });

  it('without a schema returns the JSON object answer, or {answer: text}', async () => {
    const a = await runResearchTask({ model: new ScriptedChatModel([{ json: { x: 1 } }]), tools: [search], systemPrompt: 's', input: 'q' });
    expect(a.output).toEqual({ x: 1 });
    const b = await runResearchTask({ model: new ScriptedChatModel(['just text']), tools: [search], systemPrompt: '', input: 'q' });
    expect(b.output).toEqual({ answer: 'just text' });
  });
});
