/**
 * Agents with a chat model (the scripted one; real services otherwise): a
 * `direct` answer, a `research` answer that calls the agent's bound connector
 * as a tool, and journal entries summarised by the model. The orchestrator's
 * script answers the llm nodes, the planner's the journal summaries, in order.
 * The stack runs in embedded mode (in-process bus), with output-router: the
 * template's `output_config` delivers each answer to its destinations.
 */
import { readSse } from '@af/testing';
import { connectorYaml, fixture, http, registerAndLogin, routeFixtureApi, startFixtureServer, startStack, type FixtureServer, type Stack } from './skeleton.js';

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
  // research offered built-in actions: a journal note; a team post it is not granted
  {
    toolCalls: [
      { name: 'write_journal_entry', args: { summary: 'Research note: Acme Foundation has one match.' } },
      { name: 'write_team_post', args: { content: 'Acme found (not granted: never posted)' } },
    ],
  },
  '{"answer": "Noted Acme in the journal."}',
  // research with team_post_access granted by the profile and the share: the team post is written
  { toolCalls: [{ name: 'write_team_post', args: { content: 'Acme Foundation: one match in the fixture API.' } }] },
  '{"answer": "Posted to the team."}',
];
const SUMMARY_SCRIPT = [
  'Greeted the user and described what the agent does.',
  'Searched the fixture API for Acme and found Acme Foundation.',
  'Wrote a journal note about Acme.',
  'Posted the Acme finding to the team.',
  // inputs read by the model: a name the patterns miss (lower case), then one the message does not give
  { json: { org_name: 'Omidyar Foundation' } },
  'Investigated the Omidyar Foundation filings.',
  { json: { org_name: null } },
  // the stack is killed mid-run: the model reads the input first; after the restart the script starts again (index 0)
  { json: { org_name: 'Heldco' } },
];

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
    // Team tools are served by output-router, and it delivers the template's output_config.
    outputRouter: true,
    env: {
      'connector-runtime': { CONNECTOR_EGRESS_ALLOW: `127.0.0.1:${api.port}` },
      // A short lease: after the kill below, the restarted process takes the run over once the dead one's lease lapses.
      orchestrator: { LLM_PROVIDER: 'scripted', LLM_SCRIPT: JSON.stringify(NODE_SCRIPT), RUN_LEASE_MS: '5000' },
      // The in-process bus loses what it held when the process stops: the planner's sweep finds ended runs nobody journaled.
      planner: { LLM_PROVIDER: 'scripted', LLM_SCRIPT: JSON.stringify(SUMMARY_SCRIPT), AGENT_JOURNAL_SWEEP_MS: '500' },
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

describe('research tools beyond connectors', () => {
  let teamId: string;
  const posts = async () => (await http('GET', url(`/api/agent-factory/workspace/teams/${teamId}/posts`), { token: alice })).body.posts as Array<{ content: string }>;

  beforeAll(async () => {
    teamId = (await http('POST', url('/api/v1/teams'), { token: alice, body: { name: 'Desk' } })).body.team.id;
    expect((await http('POST', url(`/api/agent-factory/profiles/${profileId}/share`), { token: alice, body: { team_id: teamId, team_post_access: true } })).status).toBe(201);
  });

  it('the built-in actions of the profile are tools (a journal note); team tools are not while team_config does not grant them', async () => {
    const frames = await chat('@np research who funds the Acme Foundation');
    const get = (type: string) => frames.find((f) => f.type === type)!;
    expect(get('strategy').payload.strategy).toBe('research');
    expect(get('complete').payload.status).toBe('completed');
    expect(get('answer').payload.text).toBe('Noted Acme in the journal.');
    const entries = (await http('GET', url(`/api/agent-factory/profiles/${profileId}/journal`), { token: alice })).body.entries as Array<Record<string, unknown>>;
    expect(entries).toEqual(expect.arrayContaining([expect.objectContaining({ summary: 'Research note: Acme Foundation has one match.', summary_source: 'action', run_id: get('run').payload.run_id })]));
    // write_team_post was not offered: the model's call was answered "unknown tool" and nothing was posted.
    expect(await posts()).toEqual([]);
  });

  it('with team_post_access in team_config and the share, the team tools are offered and act on the shared team', async () => {
    expect((await http('PUT', url(`/api/agent-factory/profiles/${profileId}`), { token: alice, body: { team_config: { team_post_access: true } } })).status).toBe(200);
    const frames = await chat('@np research the Acme Foundation and tell the team');
    const get = (type: string) => frames.find((f) => f.type === type)!;
    expect(get('complete').payload.status).toBe('completed');
    expect(get('answer').payload.text).toBe('Posted to the team.');
    expect((await posts()).map((p) => p.content)).toEqual(['Acme Foundation: one match in the fixture API.']);
  });
});

describe('playbook inputs read by the model', () => {
  beforeAll(async () => {
    expect((await http('POST', url('/api/agent-factory/playbooks'), { token: alice, body: { yaml: fixture('investigate-org.playbook.yaml') } })).status).toBe(201);
    expect((await http('POST', url(`/api/agent-factory/profiles/${profileId}/playbooks`), { token: alice, body: { playbook_id: 'investigate-org' } })).status).toBe(201);
  });

  it('extract_from: query is read by the model when one is configured (a lower-case name the patterns miss)', async () => {
    const frames = await chat('@np investigate what the omidyar foundation funds');
    const get = (type: string) => frames.find((f) => f.type === type)!;
    expect(get('strategy').payload).toMatchObject({
      strategy: 'pipeline',
      playbook_id: 'investigate-org',
      inputs: { org_name: 'Omidyar Foundation' },
      extracted: [{ name: 'org_name', value: 'Omidyar Foundation', source: 'query', rule: 'model' }],
    });
    expect(get('complete').payload.status).toBe('completed');
    expect(api.requests.some((r) => r.path === '/orgs' && r.query.q === 'Omidyar Foundation')).toBe(true);
    expect(get('journal').payload).toMatchObject({ summary: 'Investigated the Omidyar Foundation filings.', summary_source: 'llm' });
  });

  it('a required input the model does not find is a clarify request, never a guess', async () => {
    const frames = await chat('@np investigate something for me');
    expect(frames.map((f) => f.type)).toEqual(['strategy', 'clarify', 'answer', 'done']);
    expect(frames[1]!.payload).toMatchObject({ type: 'clarify', questions: [expect.objectContaining({ input: 'org_name' })] });
  });
});

describe('embedded mode: the journal without anyone following the run', () => {
  it('the process killed while a run waits on a connector: once back, the run ends and is journaled, once (nobody follows it)', async () => {
    // In embedded mode every service runs in one process: killing the gateway kills them all, and the in-process bus loses what it held.
    const gate = api.hold('GET', '/filings');
    const out = await readSse(url('/api/async/orchestrator/stream'), { authorization: `Bearer ${alice}`, 'content-type': 'application/json' }, {
      method: 'POST',
      body: JSON.stringify({ message: '@np investigate heldco' }),
      timeoutMs: 30_000,
      until: (f) => f.event === 'run',
    });
    const runId = (out.frames.map((f) => JSON.parse(f.data) as { type: string; payload: Record<string, any> }).find((f) => f.type === 'run')!).payload.run_id as string;
    await gate.arrived();
    const filingsCalls = () => api.requests.filter((r) => r.path === '/filings').length;
    const callsBeforeKill = filingsCalls();
    await stack.services.gateway.kill();
    gate.release();
    await stack.services.gateway.start();
    const ofRun = async () => ((await http('GET', url(`/api/agent-factory/profiles/${profileId}/journal?page_size=200`), { token: alice })).body.entries as Array<{ run_id: string; summary_source: string }>).filter((e) => e.run_id === runId && e.summary_source !== 'action');
    // Taken over once the dead process's lease lapses (5 s here), the run ends; its entry is written from the end frame or by the sweep.
    let entries = await ofRun();
    for (const until = Date.now() + 90_000; entries.length === 0 && Date.now() < until; await new Promise((r) => setTimeout(r, 250))) entries = await ofRun();
    // The restarted planner's script starts again: its first answer summarises this run. The connector call the
    // dead process had in flight is taken over at once by the new one (one process: its claim was the dead one's)
    // and made again, so the run ends as if nothing had happened.
    const run = (await http('GET', url(`/api/v1/runs/${runId}`), { token: alice })).body.run;
    expect([run.status, run.task_status]).toEqual(['completed', 'complete']);
    expect(entries).toEqual([expect.objectContaining({ task_status: 'complete', strategy: 'pipeline', playbook_id: 'investigate-org', summary: SUMMARY_SCRIPT[0], summary_source: 'llm' })]);
    expect(entries[0]).toMatchObject({ detail_entries: [expect.objectContaining({ step: 'find_org', status: 'completed' }), expect.objectContaining({ step: 'get_filings', status: 'completed' })] });
    expect(filingsCalls()).toBe(callsBeforeKill + 1);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await ofRun()).toHaveLength(1);
  }, 150_000);
});
