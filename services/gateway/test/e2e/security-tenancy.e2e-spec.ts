/**
 * Tenant isolation of the flex capability registry and facet catalog, through
 * the gateway with the real services as processes (one stack): two users
 * (alice, bob) and a team (alice and carol), each AI agent a real gRPC
 * server that records who called it (test/fixtures/recording-agent.ts), and
 * the shared catalog loaded by the operator (`load-catalog --shared`).
 *
 * Capabilities and facets belong to their owner (a user, a team, or the
 * shared catalog); ids and names resolve per owner. So: bob's look-alike of
 * alice's writer (same facets, even the same id, bob's endpoint) is never
 * picked by alice's plans nor used as their alternate, and alice's runs call
 * only alice's agent; a plan naming bob's capability fails that node
 * NOT_FOUND; bob cannot see alice's registrations; a team member sees and runs
 * a team capability, a non-member does not; the holders bob's human
 * capability names never receive alice's tasks; bob's facet upserts change
 * only bob's catalog; the shared catalog is visible to both. Runs of plan
 * shapes no gateway route compiles (hand-made capability and human nodes)
 * start with the orchestrator's StartRun as their owner with the owner's
 * teams, as the gateway would send them.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { orchestrator, plan } from '@af/contracts';
import { call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { http, postRunStream, REPO_ROOT, startStack, type Stack, until, registerUser, type GatewayUser } from '@af/testing';
import { startRecordingAgent, writerRegistration, type RecordingAgent } from '../fixtures/recording-agent.js';

type User = GatewayUser;

const CATALOG = join(REPO_ROOT, 'catalogs/flex-marketing');
const POST_COPY = { type: 'object', required: ['post_copy'], properties: { post_copy: { type: 'string', minLength: 1 } } };

let stack: Stack;
let runs: orchestrator.OrchestratorServiceClient;
let alice: User;
let bob: User;
let carol: User;
let teamId: string;
const agents: Record<string, RecordingAgent> = {};

const url = (path: string) => `${stack.gatewayUrl}${path}`;
const req = (method: string, path: string, as: User, body?: unknown) => http(method, url(path), { token: as.token, ...(body !== undefined ? { body } : {}) });
const flex = (method: string, path: string, as: User, body?: unknown) => req(method, `/api/v1/flex${path}`, as, body);

const register = (email: string): Promise<User> => registerUser(stack.gatewayUrl, email);

/** The catalog's case envelope asking for `post_copy`, preferring `prefer`. */
function envelope(prefer: string[]): Record<string, unknown> {
  const e = JSON.parse(readFileSync(join(CATALOG, 'envelopes/new-case-post.json'), 'utf8'));
  e.policies = { planner: { selection: { prefer } } };
  e.outputContract = { schema: { type: 'object', required: ['post_copy'], properties: { post_copy: { type: 'string' } } } };
  return e;
}

/** Every capability id a plan names (nodes, alternates, fallbacks), wherever it appears. */
function capabilityIds(p: unknown): string[] {
  const out = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if ((k === 'capabilityId' || k === 'capability_id') && typeof x === 'string' && x) out.add(x);
      if (k === 'alternates' && Array.isArray(x)) x.forEach((a) => typeof a === 'string' && out.add(a));
      walk(x);
    }
  };
  walk(p);
  return [...out].sort();
}


function wireNode(n: { id: string; kind: plan.NodeKind; action?: string; capabilityId?: string; description?: string; inputs?: Record<string, unknown>; params?: Record<string, unknown>; outputSchema?: Record<string, unknown> }) {
  return { inputs: {}, params: {}, dependsOn: [], routes: [], elseTo: [], ...n } as unknown as plan.PlanNode;
}

/** StartRun as `as` with `teamIds` (the gateway sends the caller's teams). */
async function startPlan(as: User, nodes: plan.PlanNode[], inputs: Record<string, unknown> = {}, teamIds: string[] = []): Promise<string> {
  const { run } = await call(
    runs.startRun({
      principal: { userId: as.id, teamIds },
      plan: { nodes, inputs: Object.keys(inputs).map((name) => ({ name })) } as unknown as plan.PlanGraph,
      inputs,
      idempotencyKey: '',
      runContext: 'background',
      outputContract: undefined,
      goalCondition: [],
      policies: [],
    }),
  );
  return run!.id;
}

async function finished(as: User, runId: string): Promise<any> {
  return until(`run ${runId} to finish`, async () => {
    const { body } = await flex('GET', `/runs/${runId}`, as);
    return ['completed', 'failed', 'cancelled'].includes(body.run?.status) ? body : undefined;
  });
}

beforeAll(async () => {
  stack = await startStack();
  runs = createGrpcClient<orchestrator.OrchestratorServiceClient>('orchestrator', orchestrator.ORCHESTRATOR_SERVICE_NAME, `127.0.0.1:${stack.services.orchestrator.env.GRPC_PORT}`, {
    auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }),
  });
  [alice, bob, carol] = await Promise.all([register('alice@tenancy.example'), register('bob@tenancy.example'), register('carol@tenancy.example')]);
  const team = await req('POST', '/api/v1/teams', alice, { name: 'Red' });
  teamId = team.body.team.id;
  const added = await req('POST', `/api/v1/teams/${teamId}/members`, alice, { email: carol.email });
  if (added.status !== 200 && added.status !== 201) throw new Error(`add member: ${added.status} ${JSON.stringify(added.body)}`);
  // The operator vets the marketing catalog into the shared catalog.
  const loaded = spawnSync(process.execPath, [join(REPO_ROOT, 'services/planner/dist/cli/load-catalog.js'), 'catalogs/flex-marketing', '--planner', `127.0.0.1:${stack.services.planner.env.GRPC_PORT}`, '--shared'], {
    env: { PATH: process.env.PATH ?? '', INIT_CWD: REPO_ROOT, SERVICE_AUTH_SECRET: stack.serviceAuthSecret },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (loaded.status !== 0) throw new Error(`load-catalog: ${loaded.stderr}`);
  expect(loaded.stdout).toContain('into the shared catalog');
  for (const name of ['alice', 'bob', 'team']) agents[name] = await startRecordingAgent(name);
});

afterAll(async () => {
  await Promise.all(Object.values(agents).map((a) => a.stop().catch(() => undefined)));
  await stack?.stop();
});

describe('the shared catalog', () => {
  it('loaded by the operator, is visible to every user and marked shared', async () => {
    for (const u of [alice, bob]) {
      const caps = await flex('GET', '/capabilities', u);
      expect(caps.body.capabilities).toContainEqual(expect.objectContaining({ capabilityId: 'copywriter.SocialpostDrafting', visibility: 'shared', ownerId: null, registeredBy: 'system:operator' }));
      const facets = await flex('GET', '/facets', u);
      expect(facets.body.facets).toContainEqual(expect.objectContaining({ name: 'post_copy', visibility: 'shared', ownerId: null }));
    }
  });
});

describe("another user's look-alike capability", () => {
  it("is never picked by alice's plan nor used as its alternate, and alice's run calls only alice's agent", async () => {
    const mine = await flex('POST', '/capabilities/register', alice, writerRegistration('tenancy.Writer', agents.alice!.address));
    expect(mine.status).toBe(201);
    expect(mine.body.capability).toMatchObject({ visibility: 'private', ownerId: alice.id, registeredBy: alice.id });
    // bob copies it: the same id and facets, and a look-alike under an id that sorts first; both at bob's endpoint.
    const sameId = await flex('POST', '/capabilities/register', bob, writerRegistration('tenancy.Writer', agents.bob!.address));
    expect(sameId.status).toBe(201);
    expect(sameId.body.capability).toMatchObject({ visibility: 'private', ownerId: bob.id });
    expect((await flex('POST', '/capabilities/register', bob, writerRegistration('tenancy.AaWriter', agents.bob!.address))).status).toBe(201);

    const planned = await flex('POST', '/plan', alice, envelope(['tenancy.Writer']));
    expect(planned.status).toBe(200);
    expect(planned.body.accepted).toBe(true);
    const ids = capabilityIds(planned.body.plan);
    expect(ids).toContain('tenancy.Writer');
    expect(ids).not.toContain('tenancy.AaWriter');
    // bob's plan with the same envelope is bob's: his look-alike is his alternate.
    expect(capabilityIds((await flex('POST', '/plan', bob, envelope(['tenancy.Writer']))).body.plan)).toEqual(expect.arrayContaining(['tenancy.AaWriter', 'tenancy.Writer']));
    const bobCallsBefore = agents.bob!.calls.length;

    const frames = await postRunStream(url('/api/v1/flex/run.stream'), alice.token, envelope(['tenancy.Writer']));
    expect(frames.at(-1)).toMatchObject({ type: 'complete', payload: { status: 'completed' } });
    const runId = frames[0]!.runId as string;
    expect(capabilityIds(frames.find((f) => f.type === 'plan_generated')!.payload)).not.toContain('tenancy.AaWriter');
    expect(agents.alice!.calls.map((c) => c.runId)).toEqual([runId]);
    expect(agents.bob!.calls.length).toBe(bobCallsBefore);
    expect(agents.bob!.calls.map((c) => c.runId)).not.toContain(runId);
    const debug = await flex('GET', `/runs/${runId}`, alice);
    expect(debug.body.nodes).toContainEqual(expect.objectContaining({ status: 'completed', output: { post_copy: 'written by alice' } }));
  });

  it("a plan naming bob's capability fails that node NOT_FOUND for alice and never reaches bob's agent", async () => {
    expect((await flex('POST', '/capabilities/register', bob, writerRegistration('tenancy.BobOnly', agents.bob!.address))).status).toBe(201);
    const before = agents.bob!.calls.length;
    const inputs = JSON.parse(readFileSync(join(CATALOG, 'envelopes/new-case-post.json'), 'utf8')).inputs as Record<string, unknown>;
    const runId = await startPlan(
      alice,
      [
        wireNode({
          id: 'write',
          kind: plan.NodeKind.NODE_KIND_CAPABILITY,
          action: 'tenancy.BobOnly',
          capabilityId: 'tenancy.BobOnly',
          inputs: { company_information: '{company_information}', post_context: '{post_context}' },
          outputSchema: POST_COPY,
        }),
      ],
      inputs,
    );
    const done = await finished(alice, runId);
    expect(done.run.status).toBe('failed');
    const node = done.nodes.find((n: any) => n.nodeId === 'write');
    expect(node.status).toBe('failed');
    expect(node.error).toContain("capability 'tenancy.BobOnly' is not registered for the run's owner");
    expect(agents.bob!.calls.length).toBe(before);
  });

  it("bob cannot see, beat or remove alice's registrations", async () => {
    expect((await flex('POST', '/capabilities/register', alice, writerRegistration('tenancy.AliceOnly', agents.alice!.address))).status).toBe(201);
    expect((await flex('GET', '/capabilities/tenancy.AliceOnly', bob)).status).toBe(404);
    expect((await flex('POST', '/capabilities/tenancy.AliceOnly/heartbeat', bob, {})).status).toBe(404);
    expect((await flex('DELETE', '/capabilities/tenancy.AliceOnly', bob)).status).toBe(404);
    const listed = (await flex('GET', '/capabilities?include_inactive=true', bob)).body.capabilities as Array<Record<string, unknown>>;
    expect(listed.filter((c) => c.ownerId === alice.id)).toEqual([]);
    expect(listed.every((c) => c.ownerId === bob.id || c.visibility === 'shared')).toBe(true);
    // bob's tenancy.Writer is bob's own; alice's is untouched.
    expect((await flex('GET', '/capabilities/tenancy.Writer', bob)).body.capability).toMatchObject({ ownerId: bob.id, instances: [expect.objectContaining({ endpoint: agents.bob!.address })] });
    expect((await flex('GET', '/capabilities/tenancy.Writer', alice)).body.capability).toMatchObject({ ownerId: alice.id, instances: [expect.objectContaining({ endpoint: agents.alice!.address })] });
    expect((await flex('GET', '/sandbox/metadata', bob)).body.capabilityCatalog.map((c: { capabilityId: string }) => c.capabilityId)).not.toContain('tenancy.AliceOnly');
  });
});

describe('team capabilities', () => {
  it('a member sees, beats and runs a team capability; a non-member does not', async () => {
    const reg = await flex('POST', '/capabilities/register', alice, writerRegistration('tenancy.TeamWriter', agents.team!.address, { teamId }));
    expect(reg.status).toBe(201);
    expect(reg.body.capability).toMatchObject({ visibility: 'team', ownerId: teamId, registeredBy: alice.id });
    expect((await flex('GET', '/capabilities/tenancy.TeamWriter', carol)).body.capability).toMatchObject({ visibility: 'team', ownerId: teamId });
    expect((await flex('POST', '/capabilities/tenancy.TeamWriter/heartbeat', carol, {})).status).toBe(200);
    expect((await flex('GET', '/capabilities/tenancy.TeamWriter', bob)).status).toBe(404);
    expect((await flex('POST', '/capabilities/tenancy.TeamWriter/heartbeat', bob, {})).status).toBe(404);
    expect(capabilityIds((await flex('POST', '/plan', bob, envelope(['tenancy.TeamWriter']))).body.plan)).not.toContain('tenancy.TeamWriter');

    // carol's run dispatches to the team's agent (the run carries carol's teams).
    const frames = await postRunStream(url('/api/v1/flex/run.stream'), carol.token, envelope(['tenancy.TeamWriter']));
    expect(frames.at(-1)).toMatchObject({ type: 'complete', payload: { status: 'completed' } });
    expect(agents.team!.calls.map((c) => c.runId)).toEqual([frames[0]!.runId]);
  });

  it('refuses bad ownership fields with 400/403 naming the field', async () => {
    const cases: Array<[User, Record<string, unknown>, number, string]> = [
      [bob, { teamId }, 403, 'teamId'],
      [bob, { teamId: randomUUID() }, 403, 'teamId'],
      [alice, { teamId: 'not a team!' }, 400, 'teamId'],
      [alice, { visibility: 'team' }, 400, 'teamId'],
      [alice, { visibility: 'shared' }, 403, 'visibility'],
      [alice, { visibility: 'everyone' }, 400, 'visibility'],
    ];
    for (const [as, over, status, field] of cases) {
      const res = await flex('POST', '/capabilities/register', as, writerRegistration('tenancy.Bad', agents.alice!.address, over));
      expect([over, res.status]).toEqual([over, status]);
      expect(res.body.error.violations.map((v: { field: string }) => v.field)).toEqual([field]);
    }
    const facet = { name: 'tenancy_bad', title: 'Bad', description: 'x', schema: { type: 'string' }, metadata: { version: '1', direction: 'input' } };
    const notMember = await flex('POST', '/facets', bob, { facets: [facet], teamId });
    expect(notMember.status).toBe(403);
    expect(notMember.body.error.violations.map((v: { field: string }) => v.field)).toEqual(['teamId']);
    const badVisibility = await flex('POST', '/facets', bob, { facets: [facet], visibility: 'public' });
    expect(badVisibility.status).toBe(400);
    expect(badVisibility.body.error.violations.map((v: { field: string }) => v.field)).toEqual(['visibility']);
    expect((await flex('GET', '/capabilities/tenancy.Bad', alice)).status).toBe(404);
  });
});

describe('human capabilities', () => {
  const humanRegistration = (capabilityId: string, assignees: string[], extra: Record<string, unknown> = {}) => ({
    capabilityId,
    agentType: 'human',
    version: '1',
    displayName: `Human ${capabilityId}`,
    summary: 'A person writes the post.',
    inputContract: [],
    outputContract: ['post_copy'],
    assignmentDefaults: { assignees },
    ...extra,
  });
  const humanNode = (capabilityId: string) => wireNode({ id: 'review', kind: plan.NodeKind.NODE_KIND_HUMAN, action: capabilityId, capabilityId, description: 'Write the post', outputSchema: POST_COPY });
  const tasksOf = async (as: User, runId: string) => ((await flex('GET', `/tasks?runId=${runId}`, as)).body.tasks ?? []) as Array<Record<string, unknown>>;

  it("the holders bob's registration names never receive alice's tasks", async () => {
    expect((await flex('POST', '/capabilities/register', bob, humanRegistration('tenancy.Review', [bob.id]))).status).toBe(201);
    const runId = await startPlan(alice, [humanNode('tenancy.Review')]);
    const task = await until("alice's task", async () => (await tasksOf(alice, runId))[0]);
    expect(task).toMatchObject({ capabilityId: 'tenancy.Review', status: 'pending' });
    expect(await tasksOf(bob, runId)).toEqual([]);
    expect((await flex('POST', '/run.resume', bob, { runId, taskId: task.taskId, output: { post_copy: 'hijacked' } })).status).toBe(404);
    await call(runs.cancelRun({ principal: { userId: alice.id, teamIds: [] }, runId, idempotencyKey: '' }));
  });

  it("a team human capability routes the owner's task to the holders it names", async () => {
    expect((await flex('POST', '/capabilities/register', alice, humanRegistration('tenancy.TeamReview', [carol.id], { teamId }))).status).toBe(201);
    const runId = await startPlan(alice, [humanNode('tenancy.TeamReview')], {}, [teamId]);
    const task = await until("carol's task", async () => (await tasksOf(carol, runId))[0]);
    expect(task).toMatchObject({ capabilityId: 'tenancy.TeamReview', status: 'pending' });
    expect(await tasksOf(bob, runId)).toEqual([]);
    await call(runs.cancelRun({ principal: { userId: alice.id, teamIds: [teamId] }, runId, idempotencyKey: '' }));
  });
});

describe('facets', () => {
  const note = (type: string) => ({ name: 'tenancy_note', title: 'Note', description: 'A note.', schema: { type }, metadata: { version: '1', direction: 'input' } });

  it("bob's upserts change only bob's catalog: a shared facet is refused, a name alice uses stays alice's", async () => {
    const sharedPostCopy = (await flex('GET', '/facets', alice)).body.facets.find((f: { name: string }) => f.name === 'post_copy');
    const hijack = await flex('POST', '/facets', bob, { facets: [{ ...sharedPostCopy, schema: { type: 'number' }, collection: undefined, visibility: undefined, ownerId: undefined }] });
    expect(hijack.status).toBe(403);
    expect(hijack.body.error.violations).toEqual([expect.objectContaining({ field: 'facets[0].name', reason: expect.stringContaining('only operators (system:operator) change the shared catalog') })]);
    expect((await flex('GET', '/facets', alice)).body.facets.find((f: { name: string }) => f.name === 'post_copy')).toEqual(sharedPostCopy);

    expect((await flex('POST', '/facets', alice, { facets: [note('string')] })).status).toBe(200);
    const theirs = await flex('POST', '/facets', bob, { facets: [note('number')] });
    expect(theirs.status).toBe(200);
    expect(theirs.body.facets).toEqual([expect.objectContaining({ name: 'tenancy_note', visibility: 'private', ownerId: bob.id })]);
    const mine = (await flex('GET', '/facets', alice)).body.facets.find((f: { name: string }) => f.name === 'tenancy_note');
    expect(mine).toMatchObject({ schema: { type: 'string' }, visibility: 'private', ownerId: alice.id });
    expect((await flex('GET', '/facets', carol)).body.facets.map((f: { name: string }) => f.name)).not.toContain('tenancy_note');

    // What alice plans with is unchanged: her plan's writer node still produces the shared post_copy.
    const planned = await flex('POST', '/plan', alice, envelope(['tenancy.Writer']));
    expect(planned.body.accepted).toBe(true);
    const writer = (planned.body.plan.nodes as Array<Record<string, any>>).find((n) => n.capabilityId === 'tenancy.Writer')!;
    expect(writer.outputSchema.properties.post_copy).toEqual(sharedPostCopy.schema);
  });
});
