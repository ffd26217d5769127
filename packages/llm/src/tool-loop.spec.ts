import type { ToolMessage } from '@langchain/core/messages';
import { LlmError } from './llm-errors.js';
import type { LlmTool } from './llm-tool.js';
import { ScriptedChatModel } from './scripted-chat-model.js';
import { runToolLoop } from './tool-loop.js';

function searchTool(results: Record<string, unknown> = {}): LlmTool & { seen: unknown[] } {
  const seen: unknown[] = [];
  return {
    name: 'search_web',
    description: 'Search the web',
    schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    seen,
    async invoke(args) {
      seen.push(args);
      return results[String(args.query)] ?? { results: [] };
    },
  };
}

const failing: LlmTool = {
  name: 'crawl_url',
  description: 'Fetch a page',
  schema: { type: 'object', properties: { url: { type: 'string' } } },
  async invoke() {
    throw new Error('connection refused');
  },
};

const toolMessages = (messages: unknown[]) => messages.filter((m) => (m as ToolMessage).type === 'tool') as ToolMessage[];

describe('runToolLoop', () => {
  it('runs tool calls, sends results back, and returns the final answer with a trace', async () => {
    const tool = searchTool({ acme: { results: [{ title: 'Acme 10-K' }] } });
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'search_web', args: { query: 'acme' } }] },
      { toolCalls: [{ name: 'search_web', args: { query: 'acme ceo' } }] },
      { json: { summary: 'Acme filed a 10-K' } },
    ]);
    const r = await runToolLoop({ model, tools: [tool], systemPrompt: 'Verify claims.', input: { headline: 'Acme' } });
    expect(r).toMatchObject({ answered: true, stoppedBy: 'answer', rounds: 2, text: '{"summary":"Acme filed a 10-K"}', json: { summary: 'Acme filed a 10-K' } });
    expect(tool.seen).toEqual([{ query: 'acme' }, { query: 'acme ceo' }]);
    expect(r.trace).toEqual([
      { round: 1, name: 'search_web', args: { query: 'acme' }, durationMs: expect.any(Number), ok: true, resultChars: expect.any(Number) },
      { round: 2, name: 'search_web', args: { query: 'acme ceo' }, durationMs: expect.any(Number), ok: true, resultChars: expect.any(Number) },
    ]);
    expect(model.calls.every((c) => c.tools.join() === 'search_web')).toBe(true);
    expect(model.prompts[0]).toBe('system: Verify claims.\nhuman: {\n  "headline": "Acme"\n}');
    expect(model.prompts[1]).toContain('tool(search_web): {\n  "results": [\n    {\n      "title": "Acme 10-K"');
    const tm = toolMessages(r.messages);
    expect(tm.map((m) => [m.tool_call_id, m.status])).toEqual([
      ['call_1_0', 'success'],
      ['call_2_0', 'success'],
    ]);
  });

  it('tells each tool invocation its sequence number and call id (for idempotency keys)', async () => {
    const seen: unknown[] = [];
    const tool: LlmTool = { name: 'lookup', description: 'd', schema: { type: 'object' }, invoke: async (_args, o) => seen.push({ sequence: o.sequence, callId: o.callId }) };
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'lookup', args: {} }, { name: 'lookup', args: {}, id: 'x' }] }, { toolCalls: [{ name: 'lookup', args: {} }] }, 'done']);
    await runToolLoop({ model, tools: [tool], systemPrompt: 's', input: 'q' });
    expect(seen).toEqual([
      { sequence: 1, callId: 'call_1_0' },
      { sequence: 2, callId: 'x' },
      { sequence: 3, callId: 'call_2_0' },
    ]);
  });

  it('answers without tools when the model needs none', async () => {
    const r = await runToolLoop({ model: new ScriptedChatModel(['plain answer']), tools: [searchTool()], systemPrompt: 's', input: 'q' });
    expect(r).toMatchObject({ answered: true, stoppedBy: 'answer', rounds: 0, text: 'plain answer', trace: [] });
    expect(r.json).toBeUndefined();
  });

  it('feeds tool errors, unknown tools and invalid arguments back to the model instead of throwing', async () => {
    const model = new ScriptedChatModel([
      {
        toolCalls: [
          { name: 'crawl_url', args: { url: 'https://x' } },
          { name: 'delete_everything', args: {} },
          { name: 'search_web', args: { query: 42 } },
        ],
      },
      'done despite errors',
    ]);
    const r = await runToolLoop({ model, tools: [searchTool(), failing], systemPrompt: 's', input: 'q' });
    expect(r.text).toBe('done despite errors');
    expect(r.trace.map((t) => [t.name, t.ok, t.error])).toEqual([
      ['crawl_url', false, 'connection refused'],
      ['delete_everything', false, "unknown tool 'delete_everything'; available tools: search_web, crawl_url"],
      ['search_web', false, 'invalid arguments: /query must be string'],
    ]);
    const tm = toolMessages(r.messages);
    expect(tm.map((m) => m.status)).toEqual(['error', 'error', 'error']);
    expect(model.prompts[1]).toContain('tool(crawl_url): error: connection refused');
    expect(model.prompts[1]).toContain("tool(delete_everything): error: unknown tool 'delete_everything'");
  });

  it('stops at maxRounds: asks for a final answer, which counts as stopped by max_rounds', async () => {
    const call = { toolCalls: [{ name: 'search_web', args: { query: 'q' } }] };
    const model = new ScriptedChatModel([call, call, 'best effort answer']);
    const r = await runToolLoop({ model, tools: [searchTool()], systemPrompt: 's', input: 'q', maxRounds: 2 });
    expect(r).toMatchObject({ answered: true, stoppedBy: 'max_rounds', rounds: 2, text: 'best effort answer' });
    expect(model.prompts[2]).toContain('You have used all 2 tool-calling round(s). Do not call any more tools');
    expect(model.prompts[1]).not.toContain('You have used all');
  });

  it('defaults to 3 rounds and reports no answer when the model keeps calling tools', async () => {
    const call = { toolCalls: [{ name: 'search_web', args: { query: 'again' } }] };
    const tool = searchTool();
    const model = new ScriptedChatModel([call, call, call, call]);
    const r = await runToolLoop({ model, tools: [tool], systemPrompt: 's', input: 'q' });
    expect(r).toMatchObject({ answered: false, stoppedBy: 'max_rounds', rounds: 3, text: '' });
    // The 4th request was not run.
    expect(tool.seen).toHaveLength(3);
    expect(r.trace).toHaveLength(3);
  });

  it('with maxRounds 0 the model must answer straight away', async () => {
    const model = new ScriptedChatModel(['no tools used']);
    const r = await runToolLoop({ model, tools: [searchTool()], systemPrompt: 's', input: 'q', maxRounds: 0 });
    expect(r).toMatchObject({ answered: true, stoppedBy: 'max_rounds', rounds: 0 });
    expect(model.prompts[0]).toContain('You have used all 0 tool-calling round(s)');
  });

  it('redacts secret-looking arguments in the trace (the tool still gets them)', async () => {
    const tool = searchTool();
    tool.schema = { type: 'object' };
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'search_web', args: { query: 'x', api_key: 'sk-1', nested: { Authorization: 'Bearer t' } } }] }, 'ok']);
    const r = await runToolLoop({ model, tools: [tool], systemPrompt: 's', input: 'q' });
    expect(r.trace[0]!.args).toEqual({ query: 'x', api_key: '[redacted]', nested: { Authorization: '[redacted]' } });
    expect(tool.seen[0]).toEqual({ query: 'x', api_key: 'sk-1', nested: { Authorization: 'Bearer t' } });
  });

  it('cuts long tool results before they reach the model', async () => {
    const big: LlmTool = { name: 'big', description: 'd', schema: { type: 'object' }, invoke: async () => 'x'.repeat(500) };
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'big', args: {} }] }, 'ok']);
    const r = await runToolLoop({ model, tools: [big], systemPrompt: 's', input: 'q', maxToolResultChars: 100 });
    expect(toolMessages(r.messages)[0]!.content).toBe(`${'x'.repeat(100)}\n…[truncated 400 characters]`);
  });

  it('rejects bad tool definitions and models without tool calling before any call', async () => {
    const model = new ScriptedChatModel(['x']);
    await expect(runToolLoop({ model, tools: [{ ...searchTool(), name: 'fec.search' }], systemPrompt: 's', input: 'q' })).rejects.toThrow("tools[0].name 'fec.search'");
    await expect(runToolLoop({ model, tools: [searchTool(), searchTool()], systemPrompt: 's', input: 'q' })).rejects.toThrow('is used twice');
    const noTools = new ScriptedChatModel({ responses: ['x'], toolCalling: false });
    await expect(runToolLoop({ model: noTools, tools: [searchTool()], systemPrompt: 's', input: 'q' })).rejects.toMatchObject({ code: 'tools_unsupported' });
    expect(model.calls).toHaveLength(0);
  });

  it('does not swallow a tool failure caused by cancellation', async () => {
    const ac = new AbortController();
    const cancelling: LlmTool = {
      name: 'slow',
      description: 'd',
      schema: { type: 'object' },
      async invoke() {
        ac.abort();
        throw new Error('aborted');
      },
    };
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'slow', args: {} }] }, 'never']);
    await expect(runToolLoop({ model, tools: [cancelling], systemPrompt: 's', input: 'q', signal: ac.signal })).rejects.toThrow('aborted');
    expect(model.calls).toHaveLength(1);
  });

  it('propagates provider errors', async () => {
    await expect(runToolLoop({ model: new ScriptedChatModel([{ error: 'upstream 500' }]), tools: [], systemPrompt: 's', input: 'q' })).rejects.toThrow('upstream 500');
  });

  it('LlmError is the type of its own failures', async () => {
    const err = await runToolLoop({ model: new ScriptedChatModel([]), tools: [{ ...searchTool(), name: '' }], systemPrompt: 's', input: 'q' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).code).toBe('tool_invalid');
  });
});
