import { ScriptedChatModel } from '@af/llm';
import { createLogger } from '@af/service-kit';
import { LlmIntentClassifier } from './llm-intent-classifier.js';

const log = createLogger('test', 'silent');

/** A model that answers after `ms` unless the call is aborted first. */
class SlowModel extends ScriptedChatModel {
  constructor(private readonly ms: number) {
    super({ responses: [{ json: { intent: 'override' } }] });
  }

  override async _generate(...args: Parameters<ScriptedChatModel['_generate']>) {
    const signal = args[1].signal;
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(resolve, this.ms);
      signal?.addEventListener('abort', () => (clearTimeout(t), reject(new Error('aborted'))), { once: true });
    });
    return super._generate(...args);
  }
}

describe('LlmIntentClassifier', () => {
  it('asks the model with the task and the instructions, and takes its answer', async () => {
    const model = new ScriptedChatModel({ responses: [{ json: { intent: 'override' } }] });
    const c = new LlmIntentClassifier(model, log, 5000);
    expect(await c.classify('Search AI trends', 'search cricket instead')).toEqual({ intent: 'override', source: 'model' });
    const asked = JSON.stringify(model.calls[0]!.messages.map((m) => m.content));
    expect(asked).toContain('Search AI trends');
    expect(asked).toContain('search cricket instead');
  });

  it('falls back to enhance without a model, on a provider error, on an answer outside the schema, and when the model is too slow', async () => {
    expect(await new LlmIntentClassifier(undefined, log, 5000).classify('t', 'i')).toEqual({ intent: 'enhance', source: 'fallback' });
    const failing = new LlmIntentClassifier(new ScriptedChatModel({ responses: [{ error: 'rate limited' }] }), log, 5000);
    expect(await failing.classify('t', 'i')).toMatchObject({ intent: 'enhance', source: 'fallback', error: expect.stringContaining('rate limited') });
    const wrong = new LlmIntentClassifier(new ScriptedChatModel({ responses: [{ json: { intent: 'both' } }, { json: { intent: 'maybe' } }] }), log, 5000);
    expect(await wrong.classify('t', 'i')).toMatchObject({ intent: 'enhance', source: 'fallback' });
    const t0 = Date.now();
    expect(await new LlmIntentClassifier(new SlowModel(5000), log, 100).classify('t', 'i')).toMatchObject({ intent: 'enhance', source: 'fallback' });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(await new LlmIntentClassifier(new SlowModel(10), log, 2000).classify('t', 'i')).toEqual({ intent: 'override', source: 'model' });
  });
});
