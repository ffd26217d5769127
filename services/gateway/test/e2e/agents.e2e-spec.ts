/**
 * Running agents end to end (real gateway, planner, orchestrator,
 * connector-runtime, approval, PostgreSQL, NATS; one stack, no chat model):
 * a profile from a template with a fixture connector bound and a playbook
 * attached answers "@handle investigate X" in the chat stream — the playbook
 * picked by its trigger, X extracted, the run's frames streamed, the answer
 * and a journal entry — a team member runs the shared agent by handle, a
 * non-member gets 404 everywhere, a profile with an unfinished run is not
 * deleted (409 naming it), and the bad inputs.
 */
import { readSse, type SseFrame } from '@af/testing';
import { connectorYaml, fixture, http, registerAndLogin, routeFixtureApi, startFixtureServer, startStack, type FixtureServer, type Stack } from './skeleton.js';

let api: FixtureServer;
let stack: Stack;
let alice: string;
let bob: string;
let carol: string;
let teamId: string;
let npId: string;

const url = (path: string) => `${stack.gatewayUrl}${path}`;
const as = (token: string) => ({
  get: (path: string) => http('GET', url(path), { token }),
  post: (path: string, body: unknown = {}) => http('POST', url(path), { token, body }),
  put: (path: string, body: unknown = {}) => http('PUT', url(path), { token, body }),
  del: (path: string) => http('DELETE', url(path), { token }),
});
const P = '/api/agent-factory/profiles';

interface Frame {
  type: string;
  payload: Record<string, any>;
  runId?: string;
  nodeId?: string;
}

async function chat(token: string, body: Record<string, unknown>, until?: (f: SseFrame) => boolean): Promise<{ status: number; frames: Frame[]; body?: string }> {
  const out = await readSse(url('/api/async/orchestrator/stream'), { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, {
    method: 'POST',
    body: JSON.stringify(body),
    timeoutMs: 30_000,
    ...(until ? { until } : {}),
  });
  return { status: out.status, frames: out.frames.map((f) => JSON.parse(f.data) as Frame), ...(out.body !== undefined ? { body: out.body } : {}) };
}

const byType = (frames: Frame[], type: string) => frames.find((f) => f.type === type);

beforeAll(async () => {
  api = await startFixtureServer();
  routeFixtureApi(api);
  stack = await startStack({ env: { 'connector-runtime': { CONNECTOR_EGRESS_ALLOW: `127.0.0.1:${api.port}` } } });
  alice = await registerAndLogin(stack, 'agents-alice@example.com');
  bob = await registerAndLogin(stack, 'agents-bob@example.com');
  carol = await registerAndLogin(stack, 'agents-carol@example.com');
  const team = await as(alice).post('/api/v1/teams', { name: 'Investigations' });
  teamId = team.body.team.id;
  expect((await as(alice).post(`/api/v1/teams/${teamId}/members`, { email: 'agents-bob@example.com' })).status).toBe(201);
  for (const t of [alice, bob]) expect((await as(t).post('/api/agent-factory/connectors', { yaml: connectorYaml(api.url), credentials: { api_key: 'k-1' } })).status).toBe(201);
  for (const pb of ['investigate-org', 'review-org', 'journal-note']) expect((await as(alice).post('/api/agent-factory/playbooks', { yaml: fixture(`${pb}.playbook.yaml`) })).status).toBe(201);
  // From the template, with the fixture connector bound and the playbook attached.
  const created = await as(alice).post(`${P}/from-template/nonprofit-investigator`);
  expect(created.status).toBe(201);
  npId = created.body.profile.id;
  expect((await as(alice).put(`/api/agent-factory/connectors/fixture-api/bindings/${npId}`, {})).status).toBe(200);
  expect((await as(alice).post(`${P}/${npId}/playbooks`, { playbook_id: 'investigate-org' })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await api?.close();
});

describe('chat with an agent', () => {
  let runId: string;
  let conversationId: string;

  it('"@handle investigate X" picks the playbook by trigger, extracts X, runs it, streams its frames, the answer and the journal entry', async () => {
    const res = await chat(alice, { message: '@nonprofit-investigator investigate the Omidyar Foundation' });
    expect(res.status).toBe(200);
    const types = res.frames.map((f) => f.type);
    expect(types[0]).toBe('strategy');
    expect(types.slice(-3)).toEqual(['journal', 'answer', 'done']);
    expect(types).toEqual(expect.arrayContaining(['run', 'node_start', 'node_complete', 'complete']));
    expect(byType(res.frames, 'strategy')!.payload).toMatchObject({
      agent_profile_id: npId,
      handle: 'nonprofit-investigator',
      strategy: 'pipeline',
      playbook_id: 'investigate-org',
      reason: expect.stringContaining("trigger 'investigate'"),
      inputs: { org_name: 'Omidyar Foundation' },
      extracted: [expect.objectContaining({ name: 'org_name', value: 'Omidyar Foundation', source: 'query' })],
      // The template sets output_config.auto_enrich_graph; this stack runs no entity-resolution, so the run goes without it.
      notes: expect.arrayContaining(['output_config.auto_enrich_graph: no service of this deployment serves enrich_knowledge, so this run does not feed the knowledge graph']),
    });
    expect([...new Set(res.frames.filter((f) => f.type === 'node_start').map((f) => f.nodeId))]).toEqual(['find_org', 'get_filings']);
    runId = byType(res.frames, 'run')!.payload.run_id;
    expect(byType(res.frames, 'complete')!.payload).toMatchObject({ status: 'completed' });
    expect(api.requests.some((r) => r.path === '/orgs' && r.query.q === 'Omidyar Foundation')).toBe(true);
    const journal = byType(res.frames, 'journal')!.payload;
    expect(journal).toMatchObject({ run_id: runId, task_status: 'complete', summary_source: 'engine', invoked_by: expect.any(String), strategy: 'pipeline', playbook_id: 'investigate-org', steps_completed: 2 });
    expect(journal.entities_mentioned).toContain('Omidyar Foundation');
    expect(journal.detail_entries).toEqual([
      expect.objectContaining({ step: 'find_org', action: 'call_connector', status: 'completed' }),
      expect.objectContaining({ step: 'get_filings', action: 'call_connector', status: 'completed', result: '2 results' }),
    ]);
    const answer = byType(res.frames, 'answer')!.payload;
    expect(answer).toMatchObject({ error: false, run_id: runId });
    expect(answer.text).toContain("@nonprofit-investigator ran playbook 'investigate-org' (pipeline)");
    expect(answer.text).toContain('fixture-api.get_filings (2 results)');
    conversationId = byType(res.frames, 'done')!.payload.conversation_id;
    expect(conversationId).toEqual(expect.any(String));
  });

  it('the run records the agent, who invoked it and what it called; the run list filters by agent', async () => {
    const run = (await as(alice).get(`/api/v1/runs/${runId}`)).body.run;
    expect(run).toMatchObject({ agent_profile_id: npId, invoked_by: expect.any(String), team_id: null, entities_discovered: 0, outputs_produced: [] });
    expect(run.connectors_called).toEqual([
      expect.objectContaining({ connector: 'fixture-api', endpoint: 'search_orgs', node_id: 'find_org', status: 'completed', results_count: 1 }),
      expect.objectContaining({ connector: 'fixture-api', endpoint: 'get_filings', node_id: 'get_filings', status: 'completed', results_count: 2 }),
    ]);
    const listed = await as(alice).get(`${P}/${npId}/runs`);
    expect(listed.status).toBe(200);
    expect(listed.body.runs.map((r: { id: string }) => r.id)).toEqual([runId]);
    expect((await as(alice).get(`/api/v1/runs?agent_profile_id=${npId}`)).body.runs.map((r: { id: string }) => r.id)).toEqual([runId]);
  });

  it('the journal lists the entry (filterable by status, entity and date), one entry and a summary', async () => {
    const list = await as(alice).get(`${P}/${npId}/journal`);
    expect(list.status).toBe(200);
    expect(list.body.entries).toHaveLength(1);
    const entry = list.body.entries[0];
    expect((await as(alice).get(`${P}/${npId}/journal?entity=omidyar&task_status=complete`)).body.entries).toHaveLength(1);
    expect((await as(alice).get(`${P}/${npId}/journal?task_status=error`)).body.entries).toHaveLength(0);
    expect((await as(alice).get(`${P}/${npId}/journal?date_to=2000-01-01`)).body.entries).toHaveLength(0);
    const one = await as(alice).get(`/api/agent-factory/journal/${entry.id}`);
    expect(one.status).toBe(200);
    expect(one.body.entry).toEqual(entry);
    const summary = await as(alice).get(`${P}/${npId}/journal/summary`);
    expect(summary.body.summary).toMatchObject({ entries_considered: 1, by_task_status: { complete: 1 }, top_entities: expect.arrayContaining([{ name: 'Omidyar Foundation', count: 1 }]) });
  });

  it('conversation_id keeps the history: a second message goes into the same conversation; another user\'s is 404', async () => {
    const second = await chat(alice, { message: '@nonprofit-investigator investigate "Koch Network"', conversation_id: conversationId });
    expect(byType(second.frames, 'strategy')!.payload.inputs).toEqual({ org_name: 'Koch Network' });
    expect(byType(second.frames, 'done')!.payload.conversation_id).toBe(conversationId);
    const foreign = await chat(bob, { message: '@nonprofit-investigator hi', conversation_id: conversationId });
    expect(foreign.status).toBe(404);
  });

  it('a required input the message does not give is asked for (clarify), never guessed; no run starts', async () => {
    const before = (await as(alice).get(`${P}/${npId}/runs`)).body.runs.length;
    const res = await chat(alice, { message: '@nonprofit-investigator investigate something for me' });
    expect(res.frames.map((f) => f.type)).toEqual(['strategy', 'clarify', 'answer', 'done']);
    expect(byType(res.frames, 'clarify')!.payload).toMatchObject({ type: 'clarify', questions: [expect.objectContaining({ input: 'org_name' })] });
    expect((await as(alice).get(`${P}/${npId}/runs`)).body.runs.length).toBe(before);
  });

  it('without a model, research and direct answer with a clear error, never an invented answer', async () => {
    const direct = await chat(alice, { message: '@nonprofit-investigator hello there' });
    expect(byType(direct.frames, 'strategy')!.payload.strategy).toBe('direct');
    expect(byType(direct.frames, 'run')).toBeUndefined();
    expect(byType(direct.frames, 'answer')!.payload).toMatchObject({ error: true, text: expect.stringContaining('needs a chat model, and none is configured') });
    const research = await as(alice).post(`${P}/${npId}/test`, { query: 'compare the connections of two funders' });
    expect(research.status).toBe(409);
    expect(research.body.error.message).toContain("answers this with 'research', which needs a chat model");
  });

  it('POST /profiles/{id}/test runs a query against the profile and returns the run with its journal entry', async () => {
    const res = await as(alice).post(`${P}/${npId}/test`, { query: 'investigate the Gates Foundation' });
    expect(res.status).toBe(200);
    expect(res.body.selection).toMatchObject({ strategy: 'pipeline', playbook_id: 'investigate-org', inputs: { org_name: 'Gates Foundation' } });
    expect(res.body.run).toMatchObject({ status: 'completed', agent_profile_id: npId, task_status: 'complete' });
    expect(res.body.journal_entry).toMatchObject({ run_id: res.body.run.id, task_status: 'complete' });
    expect(res.body.answer).toContain('investigate-org');
  });
});

describe('team sharing', () => {
  it('a team member runs the shared agent by handle; the journal shows them their own entries', async () => {
    expect((await as(alice).post(`${P}/${npId}/share`, { team_id: teamId, access_level: 'use' })).status).toBe(201);
    // A binding serves its creator's runs: Bob binds his own connector to the shared agent.
    expect((await as(bob).put(`/api/agent-factory/connectors/fixture-api/bindings/${npId}`, {})).status).toBe(200);
    const res = await chat(bob, { message: '@nonprofit-investigator investigate the Ford Foundation' });
    expect(res.status).toBe(200);
    expect(byType(res.frames, 'strategy')!.payload).toMatchObject({ agent_profile_id: npId, playbook_id: 'investigate-org' });
    expect(byType(res.frames, 'complete')!.payload.status).toBe('completed');
    const runId = byType(res.frames, 'run')!.payload.run_id;
    expect((await as(bob).get(`/api/v1/runs/${runId}`)).body.run).toMatchObject({ agent_profile_id: npId, team_id: teamId });
    // own_and_scheduled (the default): Bob sees his own entry, not Alice's interactive ones; Alice sees all.
    const bobs = (await as(bob).get(`${P}/${npId}/journal`)).body.entries;
    expect(bobs.map((e: { run_id: string }) => e.run_id)).toEqual([runId]);
    expect(bobs[0]).toMatchObject({ team_id: teamId });
    const alices = (await as(alice).get(`${P}/${npId}/journal`)).body.entries;
    expect(alices.length).toBeGreaterThan(1);
    expect((await as(bob).get(`/api/agent-factory/journal/${alices.find((e: { run_id: string }) => e.run_id !== runId).id}`)).status).toBe(404);
  });

  it('a non-member gets 404 for the profile, its runs, its journal and its handle', async () => {
    const entry = (await as(alice).get(`${P}/${npId}/journal`)).body.entries[0];
    for (const path of [`${P}/${npId}`, `${P}/${npId}/runs`, `${P}/${npId}/journal`, `${P}/${npId}/journal/summary`, `/api/agent-factory/journal/${entry.id}`, `/api/v1/runs?agent_profile_id=${npId}`]) {
      expect([path, (await as(carol).get(path)).status]).toEqual([path, 404]);
    }
    expect((await as(carol).post(`${P}/${npId}/test`, { query: 'investigate the Ford Foundation' })).status).toBe(404);
    expect((await chat(carol, { message: '@nonprofit-investigator investigate the Ford Foundation' })).status).toBe(404);
  });
});

describe('journal actions', () => {
  it('a playbook step writes a journal entry (write_journal_entry) and reads the journal back (query_journal), both served by the planner', async () => {
    expect((await as(alice).post(`${P}/${npId}/playbooks`, { playbook_id: 'journal-note' })).status).toBe(201);
    const res = await chat(alice, { message: '@nonprofit-investigator note the Ford Foundation' });
    expect(byType(res.frames, 'strategy')!.payload).toMatchObject({ playbook_id: 'journal-note', inputs: { topic: 'Ford Foundation' } });
    expect(byType(res.frames, 'complete')!.payload.status).toBe('completed');
    const runId = byType(res.frames, 'run')!.payload.run_id;
    const run = (await as(alice).get(`/api/v1/runs/${runId}`)).body.run;
    const written = run.nodes.find((n: { node_id: string }) => n.node_id === 'write_note').output;
    expect(written).toMatchObject({ success: true, journal_entry_id: expect.any(String) });
    expect(run.nodes.find((n: { node_id: string }) => n.node_id === 'read_back').output).toMatchObject({ count: 1, entries: [expect.objectContaining({ summary: 'Noted Ford Foundation for later' })] });
    const entry = await as(alice).get(`/api/agent-factory/journal/${written.journal_entry_id}`);
    expect(entry.body.entry).toMatchObject({ summary: 'Noted Ford Foundation for later', summary_source: 'action', run_id: runId });
    expect((await as(alice).del(`${P}/${npId}/playbooks/journal-note`)).status).toBe(204);
  });
});

describe('bad inputs', () => {
  it('an unknown @handle is 404 with a message listing close handles', async () => {
    const res = await chat(alice, { message: '@nonprofit-investigater investigate the Ford Foundation' });
    expect(res.status).toBe(404);
    const error = JSON.parse(res.body!).error;
    expect(error.message).toContain('nonprofit-investigator');
    expect(error.violations).toEqual([expect.objectContaining({ field: 'handle', code: 'unknown_handle' })]);
  });

  it('a message without a mention, an empty one, unknown fields, bad journal filters and an unknown strategy are 400 naming the field', async () => {
    const noMention = await chat(alice, { message: 'investigate the Ford Foundation' });
    expect(noMention.status).toBe(400);
    expect(JSON.parse(noMention.body!).error.violations).toEqual([expect.objectContaining({ field: 'message' })]);
    expect((await chat(alice, { message: '' })).status).toBe(400);
    const unknown = await chat(alice, { message: '@nonprofit-investigator hi', conversaton_id: 'x' });
    expect(unknown.status).toBe(400);
    expect(JSON.parse(unknown.body!).error.violations).toEqual([expect.objectContaining({ field: expect.stringContaining('conversaton_id') })]);
    const status = await as(alice).get(`${P}/${npId}/journal?task_status=finished`);
    expect(status.status).toBe(400);
    expect(status.body.error.violations).toEqual([expect.objectContaining({ field: expect.stringContaining('task_status') })]);
    const date = await as(alice).get(`${P}/${npId}/journal?date_from=yesterday`);
    expect(date.status).toBe(400);
    expect(date.body.error.violations).toEqual([expect.objectContaining({ field: 'date_from' })]);
    expect((await as(alice).get(`${P}/${npId}/journal?page_token=garbage`)).status).toBe(400);
    const strategy = await as(alice).put(`${P}/${npId}`, { strategy: 'telepathy' });
    expect(strategy.status).toBe(400);
    expect(strategy.body.error.violations).toEqual([expect.objectContaining({ field: 'strategy', code: 'unknown_strategy' })]);
    expect((await as(alice).post(`${P}/${npId}/test`, {})).status).toBe(400);
  });
});

describe('deleting a profile', () => {
  it('is refused with 409 naming a run that has not finished, and allowed once it has', async () => {
    const made = await as(alice).post(P, { name: 'Reviewer', handle: 'reviewer' });
    const id = made.body.profile.id;
    expect((await as(alice).put(`/api/agent-factory/connectors/fixture-api/bindings/${id}`, {})).status).toBe(200);
    expect((await as(alice).post(`${P}/${id}/playbooks`, { playbook_id: 'review-org' })).status).toBe(201);
    // The client leaves at the approval; the run waits for a person.
    const res = await chat(alice, { message: '@reviewer review the Acme Foundation' }, (f) => f.event === 'hitl_request');
    const runId = byType(res.frames, 'run')!.payload.run_id;
    // Parked on a person: the journal says so until the run ends.
    let waiting: { task_status?: string; run_id?: string } | undefined;
    for (const until = Date.now() + 10_000; !waiting && Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
      waiting = (await as(alice).get(`${P}/${id}/journal`)).body.entries[0];
    }
    expect(waiting).toMatchObject({ run_id: runId, task_status: 'awaiting_approval' });
    const refused = await as(alice).del(`${P}/${id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain(`run '${runId}'`);
    expect((await as(alice).post(`/api/v1/runs/${runId}/resume`, { decision: 'reject' })).status).toBe(200);
    // The gateway still follows the run: once it ended, its entry is replaced by the final one and the profile may go.
    let final: { task_status?: string; error_summary?: string } | undefined;
    for (const until = Date.now() + 15_000; !final && Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
      const entry = (await as(alice).get(`${P}/${id}/journal`)).body.entries[0];
      if (entry.task_status !== 'awaiting_approval') final = entry;
    }
    expect(final).toMatchObject({ task_status: 'error', error_summary: expect.any(String) });
    expect((await as(alice).get(`${P}/${id}/journal`)).body.entries).toHaveLength(1);
    expect((await as(alice).get(`/api/v1/runs/${runId}`)).body.run).toMatchObject({ status: 'failed', agent_profile_id: id });
    expect((await as(alice).del(`${P}/${id}`)).status).toBe(204);
  });
});

describe('every template', () => {
  it.each(['political-finance-tracker', 'corporate-intelligence-analyst'])(
    "a profile from '%s', with the fixture connector bound and a playbook attached, answers \"@handle investigate X\" and journals it",
    async (template) => {
      const created = await as(alice).post(`${P}/from-template/${template}`);
      expect(created.status).toBe(201);
      const id = created.body.profile.id;
      expect((await as(alice).put(`/api/agent-factory/connectors/fixture-api/bindings/${id}`, {})).status).toBe(200);
      expect((await as(alice).post(`${P}/${id}/playbooks`, { playbook_id: 'investigate-org' })).status).toBe(201);
      const res = await chat(alice, { message: `@${template} investigate the MacArthur Foundation` });
      expect(res.status).toBe(200);
      expect(byType(res.frames, 'strategy')!.payload).toMatchObject({ agent_profile_id: id, strategy: 'pipeline', playbook_id: 'investigate-org', inputs: { org_name: 'MacArthur Foundation' } });
      expect(res.frames.map((f) => f.type)).toEqual(expect.arrayContaining(['run', 'node_start', 'node_complete', 'complete', 'journal', 'answer', 'done']));
      expect(byType(res.frames, 'complete')!.payload.status).toBe('completed');
      const journal = (await as(alice).get(`${P}/${id}/journal`)).body.entries;
      expect(journal).toEqual([expect.objectContaining({ run_id: byType(res.frames, 'run')!.payload.run_id, task_status: 'complete', entities_mentioned: expect.arrayContaining(['MacArthur Foundation']) })]);
    },
  );
});

describe('the journal does not depend on anyone following the run', () => {
  it('a run whose gateway is killed mid-run still gets its journal entry, exactly once', async () => {
    const gate = api.hold('GET', '/filings');
    const res = await chat(alice, { message: '@nonprofit-investigator investigate the Hewlett Foundation' }, (f) => f.event === 'run');
    const runId = byType(res.frames, 'run')!.payload.run_id;
    await gate.arrived();
    // Nobody follows the run any more: the gateway that streamed it is gone (SIGKILL, no clean-up).
    await stack.services.gateway.kill();
    gate.release();
    await stack.services.gateway.start();
    const ofRun = async () => ((await as(alice).get(`${P}/${npId}/journal?page_size=200`)).body.entries as Array<{ run_id: string; task_status: string; summary: string }>).filter((e) => e.run_id === runId);
    let entries = await ofRun();
    for (const until = Date.now() + 20_000; entries.length === 0 && Date.now() < until; await new Promise((r) => setTimeout(r, 200))) entries = await ofRun();
    expect(entries).toEqual([expect.objectContaining({ task_status: 'complete', summary: expect.stringContaining('Hewlett Foundation') })]);
    expect((await as(alice).get(`/api/v1/runs/${runId}`)).body.run).toMatchObject({ status: 'completed', agent_profile_id: npId });
    // Written once: a later look finds the same single entry.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await ofRun()).toEqual(entries);
  });

  it('a cancelled agent run is journaled too, with the step that did not run', async () => {
    const gate = api.hold('GET', '/filings');
    const res = await chat(alice, { message: '@nonprofit-investigator investigate the Packard Foundation' }, (f) => f.event === 'run');
    const runId = byType(res.frames, 'run')!.payload.run_id;
    await gate.arrived();
    expect((await as(alice).post(`/api/v1/runs/${runId}/cancel`)).status).toBe(200);
    gate.release();
    let entry: { task_status?: string; detail_entries?: unknown[] } | undefined;
    for (const until = Date.now() + 15_000; !entry && Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
      entry = ((await as(alice).get(`${P}/${npId}/journal?page_size=200`)).body.entries as Array<{ run_id: string; task_status?: string; detail_entries?: unknown[] }>).find((e) => e.run_id === runId);
    }
    // One step ran, the other was cancelled: the run's own task status, partial.
    expect(entry).toMatchObject({ task_status: 'partial' });
    expect(entry!.detail_entries).toEqual(expect.arrayContaining([expect.objectContaining({ step: 'get_filings', status: 'cancelled' })]));
  });
});
