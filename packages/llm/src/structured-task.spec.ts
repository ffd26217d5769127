import { LlmError, ScriptExhaustedError, StructuredOutputError } from './llm-errors.js';
import { ScriptedChatModel } from './scripted-chat-model.js';
import { runStructuredTask } from './structured-task.js';

const analysis = {
  type: 'object',
  fields: [
    { name: 'findings', type: 'string', description: 'Narrative findings' },
    { name: 'flagged_people', type: 'string[]' },
    { name: 'risk_score', type: 'number' },
  ],
} as const;
const good = { findings: 'Two officers donated.', flagged_people: ['Ann', 'Bo'], risk_score: 0.7 };
const context = { matches: [{ entity_a: 'Ann', entity_b: 'Ann B.' }], officer_names: ['Ann', 'Bo'] };

describe('runStructuredTask', () => {
  it('returns a valid first answer via native structured output, with the schema and context in the prompt', async () => {
    const model = new ScriptedChatModel([{ json: good }]);
    const r = await runStructuredTask({ model, instructions: 'Identify officers who also appear as donors.', context, outputSchema: analysis });
    expect(r).toEqual({ output: good, attempts: 1, mode: 'native' });
    expect(model.calls[0]!.structuredOutput?.name).toBe('step_output');
    expect(model.calls[0]!.structuredOutput?.schema).toMatchObject({ required: ['findings', 'flagged_people', 'risk_score'] });
    const prompt = model.prompts[0]!;
    expect(prompt).toContain('system: Identify officers who also appear as donors.');
    expect(prompt).toContain('"flagged_people"');
    expect(prompt).toContain('"entity_b": "Ann B."');
  });

  it('accepts a JSON Schema as PlanNode.outputSchema carries it', async () => {
    const schema = { type: 'object', properties: { headline: { type: 'string' } }, required: ['headline'] };
    const model = new ScriptedChatModel([{ json: { headline: 'Acme grows' } }]);
    expect((await runStructuredTask({ model, instructions: 'Write a headline', context: {}, outputSchema: schema })).output).toEqual({ headline: 'Acme grows' });
  });

  it('retries with the violations fed back, then succeeds', async () => {
    const model = new ScriptedChatModel([{ json: { findings: 'x', risk_score: 'high' } }, { json: good }]);
    const r = await runStructuredTask({ model, instructions: 'Analyse', context, outputSchema: analysis });
    expect(r.attempts).toBe(2);
    expect(r.output).toEqual(good);
    const retry = model.prompts[1]!;
    expect(retry).toContain('Your previous answer was:');
    expect(retry).toContain('"risk_score": "high"');
    expect(retry).toContain('- /flagged_people: must have required property');
    expect(retry).toContain('- /risk_score: must be number (type)');
  });

  it('fails after maxAttempts with a StructuredOutputError listing the last violations', async () => {
    const model = new ScriptedChatModel([{ json: { findings: 1 } }, { json: { findings: 2 } }]);
    const err = await runStructuredTask({ model, instructions: 'Analyse', context, outputSchema: analysis, maxAttempts: 2 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StructuredOutputError);
    const e = err as StructuredOutputError;
    expect(e.attempts).toBe(2);
    expect(e.lastOutput).toEqual({ findings: 2 });
    expect(e.violations).toEqual(
      expect.arrayContaining([
        { pointer: '/findings', keyword: 'type', message: 'must be string' },
        { pointer: '/risk_score', keyword: 'required', message: "must have required property 'risk_score'" },
      ]),
    );
    expect(e.message).toContain('after 2 attempt(s)');
    expect(model.calls).toHaveLength(2);
  });

  it('treats a non-JSON native answer as a violation at the root and repairs it', async () => {
    const model = new ScriptedChatModel(['Sure! The findings are...', { json: good }]);
    const r = await runStructuredTask({ model, instructions: 'Analyse', context, outputSchema: analysis });
    expect(r.attempts).toBe(2);
    expect(model.prompts[1]).toContain('- /: the answer was not valid JSON (json)');
  });

  it('falls back to JSON in text when the model has no structured output, repairing bad JSON', async () => {
    const model = new ScriptedChatModel({ responses: ['{"findings": "x",', '```json\n' + JSON.stringify(good) + '\n```'], structuredOutput: false });
    const r = await runStructuredTask({ model, instructions: 'Analyse', context, outputSchema: analysis });
    expect(r).toEqual({ output: good, attempts: 2, mode: 'text' });
    expect(model.calls[0]!.structuredOutput).toBeUndefined();
    expect(model.prompts[0]).toContain('Answer with one JSON value that matches this JSON Schema');
    expect(model.prompts[1]).toMatch(/the answer was not valid JSON \(/);
  });

  it('uses text mode when asked even if the model supports native output', async () => {
    const model = new ScriptedChatModel([JSON.stringify(good)]);
    expect((await runStructuredTask({ model, instructions: 'A', context, outputSchema: analysis, mode: 'text' })).mode).toBe('text');
    expect(model.calls[0]!.structuredOutput).toBeUndefined();
  });

  it('refuses native mode on a model without it', async () => {
    const model = new ScriptedChatModel({ responses: [], structuredOutput: false });
    await expect(runStructuredTask({ model, instructions: 'A', context, outputSchema: analysis, mode: 'native' })).rejects.toThrow(LlmError);
  });

  it('checks the schema before calling the model', async () => {
    const model = new ScriptedChatModel([{ json: good }]);
    await expect(runStructuredTask({ model, instructions: 'A', context, outputSchema: { type: 'nonsense' } })).rejects.toMatchObject({ code: 'schema_invalid' });
    expect(model.calls).toHaveLength(0);
  });

  it('propagates provider errors and an exhausted script unchanged', async () => {
    await expect(runStructuredTask({ model: new ScriptedChatModel([{ error: '429 rate limited' }]), instructions: 'A', context, outputSchema: analysis })).rejects.toThrow('429 rate limited');
    await expect(runStructuredTask({ model: new ScriptedChatModel([{ json: {} }]), instructions: 'A', context, outputSchema: analysis })).rejects.toThrow(ScriptExhaustedError);
  });

  it('stops when the signal is aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    const model = new ScriptedChatModel([{ json: good }]);
    await expect(runStructuredTask({ model, instructions: 'A', context, outputSchema: analysis, signal: ac.signal })).rejects.toThrow();
    expect(model.remaining).toBe(1);
  });

  it('treats maxAttempts below 1 as one attempt', async () => {
    const model = new ScriptedChatModel([{ json: {} }]);
    await expect(runStructuredTask({ model, instructions: 'A', context, outputSchema: analysis, maxAttempts: 0 })).rejects.toMatchObject({ attempts: 1 });
  });
});
