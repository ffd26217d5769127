import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { z } from 'zod';
import { LlmError, ScriptExhaustedError } from './llm-errors.js';
import { ScriptedChatModel } from './scripted-chat-model.js';

describe('ScriptedChatModel', () => {
  it('replays text answers in order and records the prompts it received', async () => {
    const model = new ScriptedChatModel(['first', { text: 'second' }]);
    const a = await model.invoke([new SystemMessage('be brief'), new HumanMessage('hello')]);
    const b = await model.invoke('again');
    expect(a.content).toBe('first');
    expect(b.content).toBe('second');
    expect(model.calls).toHaveLength(2);
    expect(model.prompts[0]).toBe('system: be brief\nhuman: hello');
    expect(model.prompts[1]).toBe('human: again');
    expect(model.remaining).toBe(0);
  });

  it('throws a ScriptExhaustedError instead of inventing an answer when the script runs out', async () => {
    const model = new ScriptedChatModel(['only one']);
    await model.invoke('a');
    const err = await model.invoke('b').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScriptExhaustedError);
    expect((err as ScriptExhaustedError).code).toBe('script_exhausted');
    expect((err as Error).message).toContain('call 2 has no scripted response (the script has 1)');
    // The failed call is still recorded, so a test can see what was asked.
    expect(model.calls).toHaveLength(2);
  });

  it('an empty script fails on the first call', async () => {
    await expect(new ScriptedChatModel([]).invoke('x')).rejects.toThrow(ScriptExhaustedError);
  });

  it('sends JSON answers as JSON text', async () => {
    const model = new ScriptedChatModel([{ json: { a: 1, b: ['x'] } }]);
    expect((await model.invoke('q')).content).toBe('{"a":1,"b":["x"]}');
  });

  it('returns scripted tool calls with ids and records the tools bound by bindTools', async () => {
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'search', args: { q: 'acme' } }, { name: 'fetch', args: { id: 1 }, id: 'mine' }] }]);
    const bound = model.bindTools([
      { type: 'function', function: { name: 'search', description: 'Search', parameters: { type: 'object' } } },
      { name: 'fetch', description: 'Fetch', schema: { type: 'object' } },
    ]);
    const answer = await bound.invoke('find acme');
    expect(answer.tool_calls).toEqual([
      expect.objectContaining({ name: 'search', args: { q: 'acme' }, id: 'call_1_0' }),
      expect.objectContaining({ name: 'fetch', args: { id: 1 }, id: 'mine' }),
    ]);
    expect(model.calls[0]!.tools).toEqual(['search', 'fetch']);
    expect(model.prompts[0]).toBe('human: find acme');
  });

  it('shares one script between the model and its bound copies', async () => {
    const model = new ScriptedChatModel(['one', 'two']);
    const bound = model.bindTools([{ name: 't', description: 'd', schema: { type: 'object' } }]);
    expect((await bound.invoke('a')).content).toBe('one');
    expect((await model.invoke('b')).content).toBe('two');
    expect(model.calls.map((c) => c.tools)).toEqual([['t'], []]);
  });

  it('lets a step choose its answer from the call (e.g. echo a tool result)', async () => {
    const model = new ScriptedChatModel([(call) => ({ text: `saw ${call.messages.length} message(s)` })]);
    expect((await model.invoke([new HumanMessage('a'), new HumanMessage('b')])).content).toBe('saw 2 message(s)');
  });

  it('simulates a provider failure', async () => {
    await expect(new ScriptedChatModel([{ error: 'rate limited' }]).invoke('x')).rejects.toThrow('rate limited');
  });

  it('push() appends responses', async () => {
    const model = new ScriptedChatModel([]).push('late');
    expect((await model.invoke('x')).content).toBe('late');
  });

  describe('withStructuredOutput', () => {
    it('returns the JSON answer, recording the requested schema and name', async () => {
      const model = new ScriptedChatModel([{ json: { headline: 'H' } }]);
      const schema = { type: 'object', properties: { headline: { type: 'string' } } };
      const out = await model.withStructuredOutput(schema, { name: 'report' }).invoke('write');
      expect(out).toEqual({ headline: 'H' });
      expect(model.calls[0]!.structuredOutput).toEqual({ name: 'report', schema });
    });

    it('accepts a zod schema (recorded as JSON Schema)', async () => {
      const model = new ScriptedChatModel([{ json: { n: 2 } }]);
      const out = await model.withStructuredOutput(z.object({ n: z.number() })).invoke('count');
      expect(out).toEqual({ n: 2 });
      expect(model.calls[0]!.structuredOutput?.schema).toMatchObject({ type: 'object', properties: { n: { type: 'number' } } });
    });

    it('reads a tool-call answer as its arguments, like function-calling providers', async () => {
      const model = new ScriptedChatModel([{ toolCalls: [{ name: 'extract', args: { a: 1 } }] }]);
      expect(await model.withStructuredOutput({ type: 'object' }).invoke('x')).toEqual({ a: 1 });
    });

    it('with includeRaw, gives parsed null (and the raw message) for an answer that is not JSON', async () => {
      const model = new ScriptedChatModel(['I think the answer is yes']);
      const out = await model.withStructuredOutput({ type: 'object' }, { includeRaw: true }).invoke('x');
      expect(out.parsed).toBeNull();
      expect(out.raw.content).toBe('I think the answer is yes');
    });

    it('without includeRaw, throws for an answer that is not JSON', async () => {
      const model = new ScriptedChatModel(['nope']);
      await expect(model.withStructuredOutput({ type: 'object' }).invoke('x')).rejects.toThrow('structured output could not be parsed');
    });

    it('can simulate a model without structured output or tool calling', () => {
      const model = new ScriptedChatModel({ responses: [], structuredOutput: false, toolCalling: false });
      expect(() => model.withStructuredOutput({ type: 'object' })).toThrow(LlmError);
      expect(() => model.bindTools([])).toThrow('toolCalling: false');
    });
  });

  it('honours an aborted signal', async () => {
    const model = new ScriptedChatModel(['x']);
    const ac = new AbortController();
    ac.abort();
    await expect(model.invoke('q', { signal: ac.signal })).rejects.toThrow();
    expect(model.remaining).toBe(1);
  });
});
