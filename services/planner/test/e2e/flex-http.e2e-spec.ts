/**
 * The gateway's /api/v1/flex routes against the whole system (startStack):
 * registration over HTTP, the registry and catalog views, planning, and a
 * flex run streamed as SSE — planned, dispatched to a human capability
 * through the approval service, completed with `run.resume`, its goal
 * condition reported on `complete` — plus the redacted debugging view.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { http, REPO_ROOT, startStack, type Stack } from '@af/testing';
import { CATALOG_DIR } from '../fixtures/marketing-catalog.js';
import { postStream } from './sse-post.js';

let stack: Stack;
let token: string;
let api: string;
const envelope = (name: string) => JSON.parse(readFileSync(join(CATALOG_DIR, 'envelopes', `${name}.json`), 'utf8'));

async function login(email: string): Promise<string> {
  const password = 'correct horse battery staple';
  await http('POST', `${stack.gatewayUrl}/api/auth/register`, { body: { email, password } });
  const res = await http('POST', `${stack.gatewayUrl}/api/auth/login`, { body: { email, password } });
  return res.body.access_token as string;
}

const humanWriter = {
  capabilityId: 'human.Copywriter',
  agentType: 'human',
  version: '1',
  displayName: 'Human copywriter',
  summary: 'A person writes the post from the context.',
  inputContract: ['company_information', 'post_context'],
  outputContract: ['post_copy'],
  heartbeat: { intervalSeconds: 600 },
  metadata: { catalogTags: ['e2e'] },
};

beforeAll(async () => {
  stack = await startStack();
  api = `${stack.gatewayUrl}/api/v1/flex`;
  token = await login('flex@example.com');
  const loaded = spawnSync(process.execPath, [join(REPO_ROOT, 'services/planner/dist/cli/load-catalog.js'), 'catalogs/flex-marketing', '--planner', `127.0.0.1:${stack.services.planner.env.GRPC_PORT}`, '--shared'], {
    env: { PATH: process.env.PATH ?? '', INIT_CWD: REPO_ROOT, SERVICE_AUTH_SECRET: stack.serviceAuthSecret },
    encoding: 'utf8',
  });
  if (loaded.status !== 0) throw new Error(loaded.stderr);
});

/** The human capability the run tests plan with (registered by the first test; idempotent). */
async function ensureHumanWriter(): Promise<void> {
  const res = await http('POST', `${api}/capabilities/register`, { token, body: humanWriter });
  if (res.status !== 200 && res.status !== 201) throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`);
}

afterAll(async () => {
  await stack?.stop();
});

describe('capabilities over HTTP', () => {
  it('registers (201, then 200), with field-path errors for bad payloads and 401 without a token', async () => {
    expect((await http('POST', `${api}/capabilities/register`, { body: humanWriter })).status).toBe(401);
    const bad = await http('POST', `${api}/capabilities/register`, { token, body: { ...humanWriter, agentType: 'Human', outputContract: ['post_contxt'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.violations).toEqual([expect.objectContaining({ field: 'agentType', suggestedFix: 'human' })]);
    const unknown = await http('POST', `${api}/capabilities/register`, { token, body: { ...humanWriter, outputContract: ['post_contxt'] } });
    expect(unknown.body.error.violations).toEqual([expect.objectContaining({ field: 'outputContract[0]', code: 'unknown_facet', suggestedFix: 'post_context' })]);
    expect((await http('POST', `${api}/capabilities/register`, { token, body: [] })).status).toBe(400);

    const created = await http('POST', `${api}/capabilities/register`, { token, body: humanWriter });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ok: true, created: true, capability: { capabilityId: 'human.Copywriter', agentType: 'human', status: 'active', outputSchema: { required: ['post_copy'] } } });
    expect((await http('POST', `${api}/capabilities/register`, { token, body: humanWriter })).status).toBe(200);

    const beat = await http('POST', `${api}/capabilities/human.Copywriter/heartbeat`, { token, body: {} });
    expect(beat.status).toBe(200);
    expect((await http('POST', `${api}/capabilities/human.Copywriter/heartbeat`, { token, body: { instanceId: 'nope' } })).status).toBe(404);
    // Ids resolve per owner: another user's human.Copywriter is theirs and changes nothing of ours.
    const other = await login('other@example.com');
    const theirs = await http('POST', `${api}/capabilities/register`, { token: other, body: { ...humanWriter, displayName: 'Theirs' } });
    expect(theirs.status).toBe(201);
    expect(theirs.body.capability).toMatchObject({ visibility: 'private', displayName: 'Theirs' });
    const ours = await http('GET', `${api}/capabilities/human.Copywriter`, { token });
    expect(ours.body.capability).toMatchObject({ displayName: humanWriter.displayName, visibility: 'private', registeredBy: expect.any(String) });
    expect(ours.body.capability.ownerId).not.toBe(theirs.body.capability.ownerId);
    expect((await http('DELETE', `${api}/capabilities/human.Copywriter`, { token: other })).status).toBe(200);
    expect((await http('GET', `${api}/capabilities/human.Copywriter`, { token })).body.capability.instances).toHaveLength(1);
  });

  it('lists and filters capabilities, facets and the sandbox metadata', async () => {
    const tagged = await http('GET', `${api}/capabilities?catalog_tag=e2e`, { token });
    expect(tagged.body.capabilities.map((c: { capabilityId: string }) => c.capabilityId)).toEqual(['human.Copywriter']);
    const producers = await http('GET', `${api}/capabilities?produces=post_copy`, { token });
    expect(producers.body.capabilities.map((c: { capabilityId: string }) => c.capabilityId)).toEqual(['copywriter.SocialpostDrafting', 'human.Copywriter']);
    expect((await http('GET', `${api}/capabilities?include_inactive=maybe`, { token })).status).toBe(400);
    expect((await http('GET', `${api}/capabilities/nobody`, { token })).status).toBe(404);
    const facets = await http('GET', `${api}/facets?catalog_tag=sandbox`, { token });
    expect(facets.body.facets).toHaveLength(15);
    expect(facets.body.facets[0]).toMatchObject({ name: expect.any(String), schema: expect.any(Object), metadata: { version: '1.0.0' }, collection: 'flex.marketing', visibility: 'shared', ownerId: null });
    const meta = await http('GET', `${api}/sandbox/metadata`, { token });
    expect(meta.status).toBe(200);
    expect(meta.body.capabilities.all).toHaveLength(8);
    expect(meta.body.capabilityCatalog).toContainEqual(expect.objectContaining({ capabilityId: 'strategist.SocialPosting', kind: 'ai', inputFacets: ['company_information', 'post_context'] }));
  });
});

describe('POST /api/v1/flex/plan', () => {
  it('plans the §10.1 sample and refuses bad envelopes naming body fields', async () => {
    const ok = await http('POST', `${api}/plan`, { token, body: envelope('linkedin-variants') });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ accepted: true, planVersion: 1, diagnostics: { status: 'accepted_with_findings' } });
    expect(ok.body.events.map((e: { type: string }) => e.type)).toEqual(['plan_requested', 'plan_generated']);
    const bad = await http('POST', `${api}/plan`, { token, body: { ...envelope('linkedin-variants'), objective: '', goalCondition: [] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.violations.map((v: { field: string }) => v.field).sort()).toEqual(['goalCondition', 'objective']);
    expect((await http('POST', `${api}/plan?planner=llm`, { token, body: envelope('linkedin-variants') })).status).toBe(409);
  });
});

describe('POST /api/v1/flex/run.stream', () => {
  beforeAll(ensureHumanWriter);

  const runEnvelope = () => {
    const e = envelope('new-case-post');
    e.inputs.apiKey = 'sk-test-SECRET-123';
    e.policies = { planner: { selection: { prefer: ['human.Copywriter'] } } };
    e.outputContract = { schema: { type: 'object', required: ['post_copy'], properties: { post_copy: { type: 'string' } } } };
    e.goal_condition = [{ facet: 'post_copy', path: '', condition: { dsl: 'value != ""' } }];
    return e;
  };

  it('plans, runs a human capability through the approval service, and completes with the goal condition', async () => {
    const stream = await postStream(`${api}/run.stream`, token, runEnvelope());
    expect(stream.status).toBe(200);
    const first = await stream.until('log', 20_000);
    const [start, requested, generated] = first.map((f) => f.data);
    const runId = start.runId;
    expect(start).toMatchObject({ type: 'start', id: 'gw-1', payload: { runId } });
    expect(requested).toMatchObject({ type: 'plan_requested', runId, payload: { attempt: 1 } });
    expect(generated).toMatchObject({ type: 'plan_generated', runId, payload: { planVersion: 1, nodes: expect.arrayContaining([expect.objectContaining({ id: 'human_Copywriter', capabilityId: 'human.Copywriter', kind: 'human' })]) } });
    expect(first.map((f) => f.data.type)).toContain('node_start');
    const waiting = first[first.length - 1]!.data;
    expect(waiting).toMatchObject({ type: 'log', runId, payload: { event: 'awaiting_human', capabilityId: 'human.Copywriter', pendingNodeId: 'human_Copywriter' } });
    expect(first.every((f) => typeof f.data.timestamp === 'string' && f.data.runId === runId)).toBe(true);

    const tasks = await http('GET', `${api}/tasks?capabilityId=human.Copywriter`, { token });
    expect(tasks.status).toBe(200);
    const resumed = await http('POST', `${api}/run.resume`, { token, body: { runId, output: { post_copy: 'We helped Acme Corp gain 32% efficiency.' } } });
    expect(resumed.status).toBe(200);

    const rest = await stream.until('complete');
    const types = rest.map((f) => f.data.type);
    expect(types).toContain('node_complete');
    const complete = rest[rest.length - 1]!.data;
    expect(complete).toMatchObject({ type: 'complete', runId, payload: { goal_condition_results: [expect.objectContaining({ satisfied: true })] } });
    stream.close();

    const debug = await http('GET', `${api}/runs/${runId}`, { token });
    expect(debug.status).toBe(200);
    expect(debug.body).toMatchObject({ ok: true, run: { runId, status: 'completed', planVersion: 1, inputs: { apiKey: '[redacted]' } }, latestSnapshot: { version: 1, pendingNodeIds: [] } });
    expect(JSON.stringify(debug.body)).not.toContain('sk-test-SECRET-123');
    expect(debug.body.nodes).toContainEqual(expect.objectContaining({ nodeId: 'human_Copywriter', status: 'completed', output: { post_copy: 'We helped Acme Corp gain 32% efficiency.' } }));
    expect((await http('GET', `${api}/runs/${runId}`, { token: await login('stranger@example.com') })).status).toBe(404);

    // Resume by constraints.resumeRunId: the finished run replays to its complete frame.
    const again = await postStream(`${api}/run.stream`, token, { ...runEnvelope(), constraints: { resumeRunId: runId } });
    const replay = (await again.until('complete')).map((f) => f.data);
    expect(replay[1]).toMatchObject({ type: 'plan_generated', payload: { metadata: { resumed: true }, planVersion: 1 } });
    again.close();
  });

  it('streams plan_rejected and ends without a run when no plan passes', async () => {
    const e = runEnvelope();
    e.policies = { planner: { selection: { forbid: ['human.Copywriter', 'copywriter.SocialpostDrafting'] } } };
    const stream = await postStream(`${api}/run.stream`, token, e);
    const frames = (await stream.until('complete')).map((f) => f.data);
    expect(frames.map((f) => f.type)).toEqual(['start', 'plan_requested', 'plan_rejected', 'complete']);
    expect(frames[2].payload.failures.map((d: { constraintId: string; cause: string }) => [d.constraintId, d.cause])).toEqual([
      ['contract.post_copy', 'missing_producer'],
      ['goal.post_copy', 'missing_producer'],
    ]);
    expect(frames[3].payload).toMatchObject({ status: 'failed', diagnostics: { status: 'rejected' } });
    expect(frames[0].runId).toBeUndefined();
  });

  it('answers a bad envelope with 400 before any stream opens', async () => {
    const stream = await postStream(`${api}/run.stream`, token, { ...runEnvelope(), outputContract: { schema: { type: 'objekt' } } });
    expect(stream.status).toBe(400);
    expect(stream.body.error.violations).toEqual([expect.objectContaining({ field: 'outputContract.schema', code: 'invalid_schema' })]);
  });
});
