/**
 * The real provider adapters (ChatOpenAI, ChatAnthropic, ChatOllama built by
 * createChatModel) against a local fake server speaking each provider's wire
 * format: checks that our schema reaches the provider as native structured
 * output, that tools and tool results round-trip, all offline.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createChatModel } from './chat-model.factory.js';
import type { LlmConfigInput } from './llm-config.js';
import type { LlmTool } from './llm-tool.js';
import { runStructuredTask } from './structured-task.js';
import { runToolLoop } from './tool-loop.js';

interface FakeServer {
  url: string;
  requests: Array<{ path: string; body: any }>;
  close(): Promise<void>;
}

/** Answers each request with the next reply (one JSON line, which also serves streaming clients). */
async function fakeServer(replies: unknown[]): Promise<FakeServer> {
  const requests: FakeServer['requests'] = [];
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (chunk: Buffer) => (data += chunk.toString()));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', body: data ? JSON.parse(data) : null });
      const reply = replies.shift();
      res.statusCode = reply === undefined ? 500 : 200;
      res.setHeader('content-type', 'application/json');
      res.end(`${JSON.stringify(reply ?? { error: 'no scripted reply' })}\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const company = { type: 'object', fields: [{ name: 'company', type: 'string' }, { name: 'year', type: 'integer' }] } as const;
const companySchema = { type: 'object', properties: { company: { type: 'string' }, year: { type: 'integer' } }, required: ['company', 'year'] };
const temperature: LlmTool = {
  name: 'get_temperature',
  description: 'Temperature in a city',
  schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  invoke: async (args) => ({ city: args.city, celsius: 21 }),
};

interface Case {
  provider: string;
  config: (url: string) => LlmConfigInput;
  path: string;
  structured: unknown;
  toolCall: unknown;
  final: unknown;
  /** Where the provider carries our schema in the request. */
  schemaIn: (body: any) => unknown;
  toolsIn: (body: any) => unknown;
  /** The tool result as the provider receives it in the follow-up request. */
  toolResultIn: (body: any) => unknown;
}

const openaiReply = (message: unknown) => ({
  id: 'c',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o-mini',
  choices: [{ index: 0, message, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});
const anthropicReply = (content: unknown[]) => ({
  id: 'm',
  type: 'message',
  role: 'assistant',
  model: 'claude-x',
  content,
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 1, output_tokens: 1 },
});
const ollamaReply = (message: unknown) => ({ model: 'llama3.1', created_at: '2024-01-01T00:00:00Z', message, done: true, done_reason: 'stop' });

const cases: Case[] = [
  {
    provider: 'openai',
    config: (url) => ({ provider: 'openai', model: 'gpt-4o-mini', apiKey: 'k', baseUrl: `${url}/v1`, maxRetries: 0 }),
    path: '/v1/chat/completions',
    structured: openaiReply({ role: 'assistant', content: '{"company":"Acme","year":1999}' }),
    toolCall: openaiReply({ role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'get_temperature', arguments: '{"city":"Paris"}' } }] }),
    final: openaiReply({ role: 'assistant', content: '21' }),
    schemaIn: (b) => b.response_format.json_schema,
    toolsIn: (b) => b.tools[0].function,
    toolResultIn: (b) => b.messages.find((m: any) => m.role === 'tool'),
  },
  {
    provider: 'anthropic',
    config: (url) => ({ provider: 'anthropic', model: 'claude-x', apiKey: 'k', baseUrl: url, maxRetries: 0 }),
    path: '/v1/messages',
    structured: anthropicReply([{ type: 'tool_use', id: 's1', name: 'step_output', input: { company: 'Acme', year: 1999 } }]),
    toolCall: anthropicReply([{ type: 'tool_use', id: 't1', name: 'get_temperature', input: { city: 'Paris' } }]),
    final: anthropicReply([{ type: 'text', text: '21' }]),
    schemaIn: (b) => ({ name: b.tools[0].name, schema: b.tools[0].input_schema, forced: b.tool_choice }),
    toolsIn: (b) => b.tools[0],
    toolResultIn: (b) => b.messages.at(-1).content[0],
  },
  {
    provider: 'ollama',
    config: (url) => ({ provider: 'ollama', model: 'llama3.1', baseUrl: url, maxRetries: 0 }),
    path: '/api/chat',
    structured: ollamaReply({ role: 'assistant', content: '{"company":"Acme","year":1999}' }),
    toolCall: ollamaReply({ role: 'assistant', content: '', tool_calls: [{ function: { name: 'get_temperature', arguments: { city: 'Paris' } } }] }),
    final: ollamaReply({ role: 'assistant', content: '21' }),
    schemaIn: (b) => b.format,
    toolsIn: (b) => b.tools[0].function,
    toolResultIn: (b) => b.messages.find((m: any) => m.role === 'tool'),
  },
];

describe.each(cases)('$provider adapter over its wire format (local fake server)', (c) => {
  it('sends the output schema as native structured output and validates the answer', async () => {
    const server = await fakeServer([c.structured]);
    try {
      const model = (await createChatModel(c.config(server.url)))!;
      const r = await runStructuredTask({ model, instructions: 'Extract the company.', context: { text: 'Acme, 1999' }, outputSchema: company });
      expect(r).toEqual({ output: { company: 'Acme', year: 1999 }, attempts: 1, mode: 'native' });
      expect(server.requests.map((q) => q.path)).toEqual([c.path]);
      const sent = c.schemaIn(server.requests[0]!.body);
      if (c.provider === 'openai') expect(sent).toEqual({ name: 'step_output', schema: companySchema });
      if (c.provider === 'anthropic') expect(sent).toEqual({ name: 'step_output', schema: companySchema, forced: { type: 'tool', name: 'step_output' } });
      if (c.provider === 'ollama') expect(sent).toEqual(companySchema);
      expect(JSON.stringify(server.requests[0]!.body)).toContain('Acme, 1999');
    } finally {
      await server.close();
    }
  });

  it('binds tools, runs the requested call and sends its result back', async () => {
    const server = await fakeServer([c.toolCall, c.final]);
    try {
      const model = (await createChatModel(c.config(server.url)))!;
      const r = await runToolLoop({ model, tools: [temperature], systemPrompt: 'Answer with the number.', input: 'Temperature in Paris?' });
      expect(r).toMatchObject({ answered: true, text: '21', rounds: 1 });
      expect(r.trace).toEqual([expect.objectContaining({ name: 'get_temperature', args: { city: 'Paris' }, ok: true })]);
      expect(c.toolsIn(server.requests[0]!.body)).toMatchObject({ name: 'get_temperature', description: 'Temperature in a city' });
      expect(JSON.stringify(c.toolResultIn(server.requests[1]!.body))).toContain('celsius');
    } finally {
      await server.close();
    }
  });
});

describe('openai tool call with unparseable arguments', () => {
  it('answers it with an error tool message and lets the model try again', async () => {
    // @langchain/core warns about "new packages" when a message has only invalid tool calls; not ours to fix.
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const server = await fakeServer([
      openaiReply({ role: 'assistant', content: null, tool_calls: [{ id: 'bad', type: 'function', function: { name: 'get_temperature', arguments: '{"city": ' } }] }),
      openaiReply({ role: 'assistant', content: null, tool_calls: [{ id: 'good', type: 'function', function: { name: 'get_temperature', arguments: '{"city":"Paris"}' } }] }),
      openaiReply({ role: 'assistant', content: '21' }),
    ]);
    try {
      const model = (await createChatModel(cases[0]!.config(server.url)))!;
      const r = await runToolLoop({ model, tools: [temperature], systemPrompt: 's', input: 'q' });
      expect(r).toMatchObject({ answered: true, text: '21', rounds: 2 });
      expect(r.trace.map((t) => [t.round, t.name, t.ok])).toEqual([
        [1, 'get_temperature', false],
        [2, 'get_temperature', true],
      ]);
      expect(r.trace[0]!.error).toMatch(/^the arguments were not valid JSON/);
      const reply = server.requests[1]!.body.messages.find((m: any) => m.role === 'tool');
      expect(reply).toMatchObject({ tool_call_id: 'bad', content: expect.stringMatching(/^error: the arguments were not valid JSON/) });
    } finally {
      warn.mockRestore();
      await server.close();
    }
  });
});
