/**
 * Contract tests against real providers. Each block runs only when its
 * variable is set (the one allowed kind of skip) and says so when it does not.
 * Model names can be overridden with OLLAMA_MODEL / OPENAI_MODEL / ANTHROPIC_MODEL.
 */
import { createChatModel } from './chat-model.factory.js';
import type { LlmConfigInput } from './llm-config.js';
import type { LlmTool } from './llm-tool.js';
import { runStructuredTask } from './structured-task.js';
import { runToolLoop } from './tool-loop.js';

interface Contract {
  name: string;
  variable: string;
  config: () => LlmConfigInput;
}

const env = process.env;
const contracts: Contract[] = [
  { name: 'ollama', variable: 'OLLAMA_URL', config: () => ({ provider: 'ollama', baseUrl: env.OLLAMA_URL, model: env.OLLAMA_MODEL ?? 'llama3.1', temperature: 0 }) },
  { name: 'openai', variable: 'OPENAI_API_KEY', config: () => ({ provider: 'openai', apiKey: env.OPENAI_API_KEY, model: env.OPENAI_MODEL ?? 'gpt-4o-mini', temperature: 0 }) },
  {
    name: 'anthropic',
    variable: 'ANTHROPIC_API_KEY',
    config: () => ({ provider: 'anthropic', apiKey: env.ANTHROPIC_API_KEY, model: env.ANTHROPIC_MODEL ?? 'claude-haiku-4-5', temperature: 0 }),
  },
];

const weather: LlmTool = {
  name: 'get_temperature',
  description: 'Current temperature in Celsius for a city',
  schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  invoke: async (args) => ({ city: args.city, celsius: 21 }),
};

for (const c of contracts) {
  const enabled = Boolean(env[c.variable]);
  if (!enabled) console.info(`[provider contract] ${c.name}: skipped — set ${c.variable} to run it against a real server`);
  const maybe = enabled ? describe : describe.skip;

  maybe(`${c.name} provider contract (runs when ${c.variable} is set)`, () => {
    jest.setTimeout(120_000);

    it('answers a structured task that passes the schema', async () => {
      const model = (await createChatModel(c.config()))!;
      const r = await runStructuredTask({
        model,
        instructions: 'Extract the company and the year from the text.',
        context: { text: 'Acme Corp was founded in 1999 in Springfield.' },
        outputSchema: { type: 'object', fields: [{ name: 'company', type: 'string' }, { name: 'year', type: 'integer' }] },
      });
      expect(r.output).toEqual({ company: expect.stringMatching(/acme/i), year: 1999 });
    });

    it('calls a tool and answers from its result', async () => {
      const model = (await createChatModel(c.config()))!;
      const r = await runToolLoop({
        model,
        tools: [weather],
        systemPrompt: 'Use the tools to answer. Reply with the number only.',
        input: 'What is the temperature in Paris right now?',
        maxRounds: 2,
      });
      expect(r.trace.map((t) => t.name)).toContain('get_temperature');
      expect(r.answered).toBe(true);
      expect(r.text).toContain('21');
    });
  });
}
