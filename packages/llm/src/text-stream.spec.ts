import { ScriptedChatModel } from './scripted-chat-model.js';
import { streamTextTask } from './text-stream.js';

const collect = async (it: AsyncIterable<string>) => {
  const out: string[] = [];
  for await (const t of it) out.push(t);
  return out;
};

describe('streamTextTask', () => {
  it("yields the scripted model's answer word by word; the chunks join to the answer", async () => {
    const model = new ScriptedChatModel(['The crane is serviced every 90 days [1].']);
    const chunks = await collect(streamTextTask({ model, instructions: 'Answer.', context: { q: 'crane' } }));
    expect(chunks).toEqual(['The', ' crane', ' is', ' serviced', ' every', ' 90', ' days', ' [1].']);
    expect(model.prompts[0]).toContain('Answer in plain text');
    expect(model.prompts[0]).toContain('"q": "crane"');
  });

  it('streams explicit chunks as scripted, JSON text word by word, and a model without a stream once', async () => {
    const model = new ScriptedChatModel([{ chunks: ['Hal', 'vard ', 'Marine'] }, { json: { answer: 'a b' } }]);
    expect(await collect(streamTextTask({ model, instructions: 'x', context: {} }))).toEqual(['Hal', 'vard ', 'Marine']);
    expect((await collect(streamTextTask({ model, instructions: 'x', context: {} }))).join('')).toBe('{"answer":"a b"}');
  });

  it('fails mid-stream with the cause after the chunks before it', async () => {
    const model = new ScriptedChatModel([{ chunks: ['one ', 'two '], error: 'provider overloaded (529)' }]);
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const t of streamTextTask({ model, instructions: 'x', context: {} })) seen.push(t);
      })(),
    ).rejects.toThrow('provider overloaded (529)');
    expect(seen).toEqual(['one ', 'two ']);
  });

  it('stops when aborted between chunks', async () => {
    const model = new ScriptedChatModel(['a b c d e f']);
    const ac = new AbortController();
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const t of streamTextTask({ model, instructions: 'x', context: {}, signal: ac.signal })) {
          seen.push(t);
          if (seen.length === 2) ac.abort(new Error('client left'));
        }
      })(),
    ).rejects.toThrow();
    expect(seen).toEqual(['a', ' b']);
  });

  it('refuses an exhausted script instead of inventing text', async () => {
    await expect(collect(streamTextTask({ model: new ScriptedChatModel([]), instructions: 'x', context: {} }))).rejects.toThrow('has no scripted response');
  });
});
