/**
 * Semantic playbook triggers through the real stack: the planner embeds the
 * message with an embedding model (TRIGGER_EMBEDDER=openai) served by a
 * fixture HTTP server speaking the OpenAI `/v1/embeddings` shape with
 * deterministic vectors (one dimension per concept the text names). A
 * paraphrase that shares no word with the trigger picks its playbook; a
 * failing model falls back to keywords and says so; a planner without a model
 * says semantic matching is unavailable.
 */
import { readSse } from '@af/testing';
import { connectorYaml, fixture, http, registerAndLogin, routeFixtureApi, startFixtureServer, startStack, type FixtureServer, type Stack } from './skeleton.js';

let api: FixtureServer;
let stack: Stack;
let alice: string;
let profileId: string;

const url = (path: string) => `${stack.gatewayUrl}${path}`;
const P = '/api/agent-factory/profiles';
const MODEL = 'trigger-embed-test';

/** Concepts the fixture model knows: a text's vector counts the words of each, plus a constant "other" dimension. */
const CONCEPTS = [
  ['board', 'boards', 'director', 'directors', 'interlock', 'interlocks', 'trustee', 'trustees'],
  ['grant', 'grants', 'fund', 'funds', 'funding', 'donation', 'donations'],
];
const vectorOf = (text: string) => {
  const words = text.toLowerCase().split(/[^a-z]+/);
  return [...CONCEPTS.map((c) => words.filter((w) => c.includes(w)).length), 0.2];
};
const embeddingCalls = () => api.requests.filter((r) => r.path === '/v1/embeddings').map((r) => JSON.parse(r.body) as { model: string; input: string[] });

type Frame = { type: string; payload: Record<string, any> };
async function chat(message: string): Promise<Frame[]> {
  const out = await readSse(url('/api/async/orchestrator/stream'), { authorization: `Bearer ${alice}`, 'content-type': 'application/json' }, { method: 'POST', body: JSON.stringify({ message }), timeoutMs: 30_000 });
  expect(out.status).toBe(200);
  return out.frames.map((f) => JSON.parse(f.data) as Frame);
}
const frame = (frames: Frame[], type: string) => frames.find((f) => f.type === type)!;

beforeAll(async () => {
  api = await startFixtureServer();
  routeFixtureApi(api);
  api.route('POST', '/v1/embeddings', (req) => {
    const body = JSON.parse(req.body) as { model: string; input: string[] };
    if (body.input.some((t) => t.includes('explode'))) return { status: 400, json: { error: { message: 'fixture model refused the input', type: 'invalid_request_error' } } };
    return { json: { object: 'list', model: body.model, data: body.input.map((t, index) => ({ object: 'embedding', index, embedding: vectorOf(t) })), usage: { prompt_tokens: 1, total_tokens: 1 } } };
  });
  stack = await startStack({
    env: {
      'connector-runtime': { CONNECTOR_EGRESS_ALLOW: `127.0.0.1:${api.port}` },
      planner: { TRIGGER_EMBEDDER: 'openai', TRIGGER_EMBEDDING_MODEL: MODEL, TRIGGER_EMBEDDING_API_KEY: 'sk-embed-test', TRIGGER_EMBEDDING_BASE_URL: `${api.url}/v1`, TRIGGER_SEMANTIC_THRESHOLD: '0.8' },
    },
  });
  alice = await registerAndLogin(stack, 'agents-semantic@example.com');
  expect((await http('POST', url('/api/agent-factory/connectors'), { token: alice, body: { yaml: connectorYaml(api.url), credentials: { api_key: 'k-1' } } })).status).toBe(201);
  for (const pb of ['investigate-org', 'board-interlocks']) expect((await http('POST', url('/api/agent-factory/playbooks'), { token: alice, body: { yaml: fixture(`${pb}.playbook.yaml`) } })).status).toBe(201);
  const created = await http('POST', url(P), { token: alice, body: { name: 'Boards', handle: 'boards' } });
  expect(created.status).toBe(201);
  profileId = created.body.profile.id;
  expect((await http('PUT', url(`/api/agent-factory/connectors/fixture-api/bindings/${profileId}`), { token: alice, body: {} })).status).toBe(200);
  for (const pb of ['investigate-org', 'board-interlocks']) expect((await http('POST', url(`${P}/${profileId}/playbooks`), { token: alice, body: { playbook_id: pb } })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await api?.close();
});

it('a paraphrase sharing no word with the semantic trigger picks its playbook by the embedding model, which the answer names', async () => {
  const frames = await chat('@boards which directors sit on several boards at Acme Foundation');
  expect(frame(frames, 'strategy').payload).toMatchObject({
    strategy: 'pipeline',
    playbook_id: 'board-interlocks',
    reason: expect.stringContaining("trigger 'board interlocks' (semantic)"),
    inputs: { org_name: 'Acme Foundation' },
    notes: [`semantic triggers matched by embedding model 'openai:${MODEL}' (cosine similarity >= 0.8)`],
  });
  expect(frame(frames, 'complete').payload.status).toBe('completed');
  expect(api.requests.some((r) => r.path === '/orgs' && r.query.q === 'Acme Foundation')).toBe(true);
  // One call: the message and the pattern together, with the configured model and key.
  expect(embeddingCalls()).toEqual([expect.objectContaining({ model: MODEL, input: ['which directors sit on several boards at Acme Foundation', 'board interlocks'] })]);
  expect(api.requests.find((r) => r.path === '/v1/embeddings')!.headers.authorization).toBe('Bearer sk-embed-test');
});

it('keyword triggers keep working and rank as before; the pattern vector is cached, so only the message is embedded', async () => {
  const frames = await chat('@boards investigate the Gates Foundation');
  expect(frame(frames, 'strategy').payload).toMatchObject({ strategy: 'pipeline', playbook_id: 'investigate-org', reason: expect.stringContaining("trigger 'investigate' (keyword)") });
  expect(embeddingCalls().at(-1)!.input).toEqual(['investigate the Gates Foundation']);
});

it('a message unlike the trigger matches nothing semantic', async () => {
  const frames = await chat('@boards hello there');
  expect(frame(frames, 'strategy').payload).toMatchObject({ strategy: 'direct', notes: [expect.stringContaining(`'openai:${MODEL}'`)] });
  expect(frame(frames, 'answer').payload).toMatchObject({ error: true, text: expect.stringContaining('needs a chat model') });
});

it('a failing embedding call falls back to keywords with a note naming the model; the chat goes on', async () => {
  const frames = await chat('@boards board interlocks of Explode Foundation, explode');
  expect(frame(frames, 'strategy').payload).toMatchObject({
    strategy: 'pipeline',
    playbook_id: 'board-interlocks',
    reason: expect.stringContaining("trigger 'board interlocks' (keyword)"),
    notes: [expect.stringMatching(new RegExp(`^semantic matching with embedding model 'openai:${MODEL}' failed \\(.*\\); semantic triggers were matched as keywords$`))],
  });
  expect(frame(frames, 'complete').payload.status).toBe('completed');
});

it('a planner without an embedding model says semantic matching is unavailable and matches the pattern as a keyword', async () => {
  const planner = stack.services.planner;
  await planner.kill();
  planner.env.TRIGGER_EMBEDDER = 'none';
  await planner.start();
  const before = embeddingCalls().length;
  const paraphrase = await chat('@boards which directors sit on several boards at Acme Foundation');
  expect(frame(paraphrase, 'strategy').payload).toMatchObject({ strategy: 'direct', notes: ['semantic matching unavailable: no embedding model configured'] });
  const literal = await chat('@boards board interlocks at Acme Foundation');
  expect(frame(literal, 'strategy').payload).toMatchObject({ playbook_id: 'board-interlocks', reason: expect.stringContaining('(keyword)'), notes: ['semantic matching unavailable: no embedding model configured'] });
  expect(embeddingCalls()).toHaveLength(before);
}, 90_000);
