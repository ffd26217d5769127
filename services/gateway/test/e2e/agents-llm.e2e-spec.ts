/**
 * Agents with a chat model (the scripted one; real services otherwise): a
 * `direct` answer, a `research` answer that calls the agent's bound connector
 * as a tool, and journal entries summarised by the model. The orchestrator's
 * script answers the llm nodes, the planner's the journal summaries, in order.
 * The stack runs in embedded mode (in-process bus), with output-router: the
 * template's `output_config` delivers each answer to its destinations.
 */
import { readSse } from '@af/testing';
import { connectorYaml, http, registerAndLogin, routeFixtureApi, startFixtureServer, startStack, type FixtureServer, type Stack } from './skeleton.js';

let api: FixtureServer;
let stack: Stack;
let alice: string;
let profileId: string;

const url = (path: string) => `${stack.gatewayUrl}${path}`;

const NODE_SCRIPT = [
  // direct: llm_analyze answers {answer}
  { json: { answer: 'Hello! I investigate nonprofits.' } },
  // research: one tool call, then the answer
  { toolCalls: [{ name: 'fixture-api__search_orgs', args: { q: 'Acme' } }] },
  '{"answer": "Acme Foundation is the only organisation found (ein-acme)."}',
];
const SUMMARY_SCRIPT = ['Greeted the user and described what the agent does.', 'Searched the fixture API for Acme and found Acme Foundation.'];

async function chat(message: string) {
  const out = await readSse(url('/api/async/orchestrator/stream'), { authorization: `Bearer ${alice}`, 'content-type': 'application/json' }, { method: 'POST', body: JSON.stringify({ message }), timeoutMs: 30_000 });
  expect(out.status).toBe(200);
  return out.frames.map((f) => JSON.parse(f.data) as { type: string; payload: Record<string, any> });
}

beforeAll(async () => {
  api = await startFixtureServer();
  routeFixtureApi(api);
  // Embedded mode (`pnpm start`'s in-process bus); agents.e2e-spec.ts runs on NATS JetStream.
  stack = await startStack({
    bus: 'memory',
    outputRouter: true,
    env: {
      'connector-runtime': { CONNECTOR_EGRESS_ALLOW: `127.0.0.1:${api.port}` },
      orchestrator: { LLM_PROVIDER: 'scripted', LLM_SCRIPT: JSON.stringify(NODE_SCRIPT) },
      planner: { LLM_PROVIDER: 'scripted', LLM_SCRIPT: JSON.stringify(SUMMARY_SCRIPT) },
    },
  });
  alice = await registerAndLogin(stack, 'agents-llm@example.com');
  expect((await http('POST', url('/api/agent-factory/connectors'), { token: alice, body: { yaml: connectorYaml(api.url), credentials: { api_key: 'k-1' } } })).status).toBe(201);
  const created = await http('POST', url('/api/agent-factory/profiles/from-template/nonprofit-investigator'), { token: alice, body: { handle: 'np' } });
  profileId = created.body.profile.id;
  expect((await http('PUT', url(`/api/agent-factory/connectors/fixture-api/bindings/${profileId}`), { token: alice, body: {} })).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await api?.close();
});

it('direct: one answer from the model, and a journal entry the model summarised', async () => {
  const frames = await chat('@np hello, what do you do?');
  const get = (type: string) => frames.find((f) => f.type === type)!;
  expect(get('strategy').payload.strategy).toBe('direct');
  expect(get('complete').payload.status).toBe('completed');
  expect(get('answer').payload).toMatchObject({ error: false, text: 'Hello! I investigate nonprofits.' });
  expect(get('journal').payload).toMatchObject({ summary: SUMMARY_SCRIPT[0], summary_source: 'llm', strategy: 'direct', task_status: 'complete' });
  // The profile's output_config: every destination in the report, each on its own (no entity-resolution here: the graph write fails alone).
  expect(get('complete').payload.routing_report.map((r: any) => [r.destination, r.status])).toEqual([
    ['chat', 'success'],
    ['document', 'success'],
    ['data_workspace_table', 'success'],
    ['knowledge_graph', 'error'],
  ]);
  expect(get('complete').payload.routed_to).toEqual(['chat', 'document', 'data_workspace_table']);
  const docs = (await http('GET', url('/api/agent-factory/workspace/documents?query=nonprofit_'), { token: alice })).body.documents;
  expect(docs).toEqual([expect.objectContaining({ title: expect.stringMatching(/^nonprofit_\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}\.md$/), folder_path: '/nonprofit-investigations' })]);
  const text = (await http('GET', url(`/api/agent-factory/workspace/documents/${docs[0].id}`), { token: alice })).body;
  expect(JSON.stringify(text)).toContain('Hello! I investigate nonprofits.');
  const rows = (await http('GET', url('/api/agent-factory/workspace/tables/research/nonprofit_filings/rows'), { token: alice })).body.rows;
  expect(rows).toEqual([expect.objectContaining({ answer: 'Hello! I investigate nonprofits.' })]);
});

it('research: the llm node calls the bound connector as a tool; the answer and the journal say what it found', async () => {
  const frames = await chat('@np research the connections of the Acme Foundation');
  const get = (type: string) => frames.find((f) => f.type === type)!;
  expect(get('strategy').payload).toMatchObject({ strategy: 'research', reason: expect.stringContaining('multi-round research') });
  expect(get('complete').payload.status).toBe('completed');
  expect(api.requests.some((r) => r.path === '/orgs' && r.query.q === 'Acme')).toBe(true);
  expect(get('answer').payload.text).toBe('Acme Foundation is the only organisation found (ein-acme).');
  expect(get('journal').payload).toMatchObject({ summary: SUMMARY_SCRIPT[1], summary_source: 'llm', strategy: 'research' });
  const runs = await http('GET', url(`/api/agent-factory/profiles/${profileId}/runs`), { token: alice });
  expect(runs.body.runs).toHaveLength(2);
});
