/**
 * Issue 6, "who may decide", through the gateway with the real services as
 * processes: the team routes (create, list, members, add / remove with their
 * errors); a team member deciding an approval whose request allows team
 * decisions (a stranger gets 404, the audit row names the member); and a
 * human task routed to the holders a human capability's registration names
 * (`assignmentDefaults.assignees`). Runs of plan shapes no gateway route
 * compiles (hand-made approval nodes with `team_ids`, human nodes) start with
 * the orchestrator's StartRun as their owner with the owner's teams, as the
 * gateway would send them; everything else goes through the gateway
 * (playbook approval steps with teams: playbook-team-approval.e2e-spec.ts).
 */
import { orchestrator, plan } from '@af/contracts';
import { call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { http, startStack, type Stack, until, registerUser, type GatewayUser } from '@af/testing';

type User = GatewayUser;

let stack: Stack;
let runs: orchestrator.OrchestratorServiceClient;
let owner: User;
let member: User;
let stranger: User;
let other: User;

const url = (path: string) => `${stack.gatewayUrl}${path}`;
const req = (method: string, path: string, as: User | null, body?: unknown) => http(method, url(path), { ...(as ? { token: as.token } : {}), ...(body !== undefined ? { body } : {}) });

const register = (email: string): Promise<User> => registerUser(stack.gatewayUrl, email);

/** A plan in its wire shape (StartRun parses it with the IR schema on arrival). */
function wireNode(n: { id: string; kind: plan.NodeKind; action?: string; capabilityId?: string; description?: string; inputs?: Record<string, unknown>; params?: Record<string, unknown>; outputSchema?: Record<string, unknown>; dependsOn?: string[] }) {
  return { inputs: {}, params: {}, dependsOn: [], routes: [], elseTo: [], ...n } as unknown as plan.PlanNode;
}

async function startPlan(as: User, nodes: plan.PlanNode[], teamIds: string[] = []): Promise<string> {
  const { run } = await call(
    runs.startRun({ principal: { userId: as.id, teamIds }, plan: { nodes } as unknown as plan.PlanGraph, inputs: {}, idempotencyKey: '', runContext: 'background', outputContract: undefined, goalCondition: [], policies: [] }),
  );
  return run!.id;
}

async function finished(runId: string): Promise<any> {
  return until(`run ${runId} to finish`, async () => {
    const { body } = await req('GET', `/api/v1/runs/${runId}`, owner);
    return ['completed', 'failed', 'cancelled'].includes(body.run.status) ? body.run : undefined;
  });
}

beforeAll(async () => {
  stack = await startStack();
  runs = createGrpcClient<orchestrator.OrchestratorServiceClient>('orchestrator', orchestrator.ORCHESTRATOR_SERVICE_NAME, `127.0.0.1:${stack.services.orchestrator.env.GRPC_PORT}`, { auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }) });
  owner = await register('olga@example.com');
  member = await register('bruno@example.com');
  stranger = await register('cara@example.com');
  other = await register('dev@example.com');
});

afterAll(async () => {
  await stack?.stop();
});

let teamId: string;

describe('teams', () => {
  it('creates a team whose only member is its creator, as owner', async () => {
    const res = await req('POST', '/api/v1/teams', owner, { name: '  Research unit ' });
    expect(res.status).toBe(201);
    expect(res.body.team).toMatchObject({ name: 'Research unit', role: 'owner', member_count: 1, created_by: owner.id, members: [{ user_id: owner.id, email: owner.email, role: 'owner' }] });
    teamId = res.body.team.id;
    expect((await req('POST', '/api/v1/teams', null, { name: 'x' })).status).toBe(401);
  });

  it('refuses bad input with 400 naming the field', async () => {
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/api/v1/teams', {}, 'name'],
      ['POST', '/api/v1/teams', { name: '   ' }, 'name'],
      ['POST', '/api/v1/teams', { name: 'x'.repeat(201) }, 'name'],
      ['POST', `/api/v1/teams/${teamId}/members`, {}, 'user_id'],
      ['POST', `/api/v1/teams/${teamId}/members`, { user_id: member.id, email: member.email }, 'user_id'],
      ['POST', `/api/v1/teams/${teamId}/members`, { user_id: 'bruno' }, 'user_id'],
      ['POST', `/api/v1/teams/${teamId}/members`, { email: 'not-an-email' }, 'email'],
      ['POST', `/api/v1/teams/${teamId}/members`, { email: member.email, role: 'admin' }, 'role'],
      ['POST', '/api/v1/teams/not-a-team/members', { email: member.email }, 'id'],
      ['GET', '/api/v1/teams/not-a-team', undefined, 'id'],
      ['DELETE', `/api/v1/teams/${teamId}/members/not-a-user`, undefined, 'userId'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await req(method, path, owner, body);
      expect([method, path, res.status]).toEqual([method, path, 400]);
      expect(res.body.error.violations.map((v: any) => v.field)).toContain(field);
    }
    const noUser = await req('POST', `/api/v1/teams/${teamId}/members`, owner, { email: 'nobody@example.com' });
    expect(noUser.status).toBe(404);
    expect(noUser.body.error.violations).toEqual([{ field: 'email', reason: 'no user has this email address (they must register first)' }]);
  });

  it('lets the owner add members by email or user id; members see the team, strangers get 404', async () => {
    const byEmail = await req('POST', `/api/v1/teams/${teamId}/members`, owner, { email: 'BRUNO@example.com' });
    expect(byEmail.status).toBe(201);
    expect(byEmail.body.member).toMatchObject({ user_id: member.id, role: 'member' });
    const again = await req('POST', `/api/v1/teams/${teamId}/members`, owner, { user_id: member.id, role: 'member' });
    expect(again.status).toBe(200);
    const byId = await req('POST', `/api/v1/teams/${teamId}/members`, owner, { user_id: other.id, role: 'owner' });
    expect(byId.status).toBe(201);
    expect(byId.body.team.members.map((m: any) => [m.email, m.role])).toEqual([
      [owner.email, 'owner'],
      [member.email, 'member'],
      [other.email, 'owner'],
    ]);

    const mine = await req('GET', '/api/v1/teams', member);
    expect(mine.body.teams.map((t: any) => [t.name, t.role])).toEqual([
      ['bruno@example.com (personal)', 'owner'],
      ['Research unit', 'member'],
    ]);
    expect((await req('GET', `/api/v1/teams/${teamId}`, member)).body.team.member_count).toBe(3);
    expect((await req('GET', '/api/v1/teams', stranger)).body.teams.map((t: any) => t.id)).not.toContain(teamId);
    expect((await req('GET', `/api/v1/teams/${teamId}`, stranger)).status).toBe(404);
    expect((await req('GET', '/api/v1/teams/00000000-0000-4000-8000-000000000000', owner)).status).toBe(404);
  });

  it('refuses membership changes by members who are not owners (403) and by strangers (404)', async () => {
    const add = await req('POST', `/api/v1/teams/${teamId}/members`, member, { user_id: stranger.id });
    expect(add.status).toBe(403);
    expect(add.body.error.message).toContain('only an owner');
    // Whether an address has an account is an owner's business only.
    expect((await req('POST', `/api/v1/teams/${teamId}/members`, member, { email: 'nobody@example.com' })).status).toBe(403);
    expect((await req('POST', `/api/v1/teams/${teamId}/members`, stranger, { email: 'nobody@example.com' })).status).toBe(404);
    expect((await req('DELETE', `/api/v1/teams/${teamId}/members/${other.id}`, member)).status).toBe(403);
    expect((await req('POST', `/api/v1/teams/${teamId}/members`, stranger, { user_id: stranger.id })).status).toBe(404);
    expect((await req('DELETE', `/api/v1/teams/${teamId}/members/${member.id}`, stranger)).status).toBe(404);
    // Nothing changed.
    expect((await req('GET', `/api/v1/teams/${teamId}`, owner)).body.team.member_count).toBe(3);
  });

  it('keeps the last owner, removes others, and lets a member leave', async () => {
    const solo = (await req('POST', '/api/v1/teams', stranger, { name: 'Solo' })).body.team.id as string;
    const leave = await req('DELETE', `/api/v1/teams/${solo}/members/${stranger.id}`, stranger);
    expect(leave.status).toBe(409);
    expect(leave.body.error.violations).toEqual([{ field: 'userId', reason: "is the team's last owner and cannot be removed", code: 'last_owner' }]);
    const demote = await req('POST', `/api/v1/teams/${solo}/members`, stranger, { user_id: stranger.id, role: 'member' });
    expect(demote.status).toBe(409);
    expect(demote.body.error.violations[0]).toMatchObject({ field: 'role', code: 'last_owner' });
    expect((await req('DELETE', `/api/v1/teams/${solo}/members/${member.id}`, stranger)).status).toBe(404);

    // A second owner can be removed; a removed member no longer sees the team.
    const removed = await req('DELETE', `/api/v1/teams/${teamId}/members/${other.id}`, owner);
    expect(removed.status).toBe(200);
    expect(removed.body.team.members.map((m: any) => m.user_id)).toEqual([owner.id, member.id]);
    expect((await req('GET', `/api/v1/teams/${teamId}`, other)).status).toBe(404);
    await req('POST', `/api/v1/teams/${teamId}/members`, owner, { user_id: other.id });
    const left = await req('DELETE', `/api/v1/teams/${teamId}/members/${other.id}`, other);
    expect(left.status).toBe(200);
    expect(left.body).toEqual({ removed: true, team: null });
    expect((await req('GET', `/api/v1/teams/${teamId}`, owner)).body.team.members.map((m: any) => m.user_id)).toEqual([owner.id, member.id]);
  });

  it('documents the routes in /api/docs', async () => {
    const doc = (await req('GET', '/api/docs', null)).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/teams', '/api/v1/teams/{id}', '/api/v1/teams/{id}/members', '/api/v1/teams/{id}/members/{userId}']));
    expect(doc.paths['/api/v1/teams/{id}/members'].post.responses).toHaveProperty('403');
    expect(doc.paths['/api/v1/teams/{id}/members'].post.requestBody.content['application/json'].schema.properties.role.enum).toEqual(['member', 'owner']);
  });
});

describe('team decisions', () => {
  const gate = (params: Record<string, unknown>) => [
    wireNode({ id: 'confirm', kind: plan.NodeKind.NODE_KIND_APPROVAL, action: 'approval', inputs: { prompt: 'Publish the filings report?' }, params: { on_reject: 'stop', ...params } }),
    wireNode({ id: 'after', kind: plan.NodeKind.NODE_KIND_TOOL, action: 'transform_data', inputs: { data: ['{confirm.approved}'] }, params: { operations: [] }, dependsOn: ['confirm'] }),
  ];

  async function pendingFor(as: User, runId: string): Promise<any> {
    return until(`the approval of run ${runId}`, async () => (await req('GET', `/api/agent-factory/approvals?run_id=${runId}`, as)).body.approvals?.[0]);
  }

  it('a member of a team the request allows decides it; a stranger gets 404; the audit row names the member', async () => {
    const runId = await startPlan(owner, gate({ team_ids: [teamId], allow_team_decisions: true }), [teamId]);
    const approval = await pendingFor(member, runId);
    expect(approval).toMatchObject({ kind: 'approval_gate', status: 'pending', run_id: runId, prompt: 'Publish the filings report?' });

    expect((await req('GET', `/api/agent-factory/approvals?run_id=${runId}`, stranger)).body.approvals).toEqual([]);
    expect((await req('GET', `/api/agent-factory/approvals/${approval.id}`, stranger)).status).toBe(404);
    expect((await req('POST', `/api/agent-factory/approvals/${approval.id}/approve`, stranger, {})).status).toBe(404);
    expect((await req('POST', '/api/v1/flex/hitl/resolve', stranger, { requestId: approval.id, decision: 'approve' })).status).toBe(404);

    const ok = await req('POST', `/api/agent-factory/approvals/${approval.id}/approve`, member, { instructions: 'go' });
    expect(ok.status).toBe(200);
    expect(ok.body.approval).toMatchObject({ status: 'approved', decided_by: member.id, instructions: 'go' });
    const run = await finished(runId);
    expect(run.status).toBe('completed');
    expect(run.nodes.find((n: any) => n.node_id === 'confirm').output).toMatchObject({ approved: true, decided_by: member.id });
    const audit = await stack.db.query<{ type: string; actor: string }>('SELECT type, actor FROM approval.request_events WHERE request_id = $1 ORDER BY id', [approval.id]);
    expect(audit).toEqual([
      { type: 'created', actor: owner.id },
      { type: 'approved', actor: member.id },
    ]);
  });

  it('an owner may open a decision only to teams they belong to (INVALID_ARGUMENT naming the field; no run)', async () => {
    const before = await stack.db.query<{ n: number }>('SELECT count(*)::int AS n FROM orchestrator.runs WHERE user_id = $1', [stranger.id]);
    const err = await startPlan(stranger, gate({ team_ids: [teamId], allow_team_decisions: true })).catch((e: unknown) => e as { code?: string; violations?: unknown[] });
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'plan.nodes.confirm.params.team_ids[0]', code: 'not_team_member' }] });
    expect(await stack.db.query('SELECT count(*)::int AS n FROM orchestrator.runs WHERE user_id = $1', [stranger.id])).toEqual(before);
  });

  it('team members may not decide when the request does not allow team decisions, nor once they left the team', async () => {
    const closed = await startPlan(owner, gate({ team_ids: [teamId], allow_team_decisions: false }), [teamId]);
    const a = await pendingFor(owner, closed);
    expect((await req('POST', `/api/agent-factory/approvals/${a.id}/approve`, member, {})).status).toBe(404);

    const open = await startPlan(owner, gate({ team_ids: [teamId], allow_team_decisions: true }), [teamId]);
    const b = await pendingFor(member, open);
    expect((await req('DELETE', `/api/v1/teams/${teamId}/members/${member.id}`, owner)).status).toBe(200);
    expect((await req('POST', `/api/agent-factory/approvals/${b.id}/reject`, member, {})).status).toBe(404);
    expect((await req('POST', `/api/v1/teams/${teamId}/members`, owner, { user_id: member.id })).status).toBe(201);
    expect((await req('POST', `/api/agent-factory/approvals/${b.id}/reject`, member, { reason: 'not yet' })).body.approval).toMatchObject({ status: 'rejected', decided_by: member.id });
    expect((await finished(open)).status).toBe('failed');
    expect((await req('POST', `/api/v1/runs/${closed}/cancel`, owner)).status).toBe(200);
  });
});

describe('human tasks routed to capability holders', () => {
  const facet = {
    name: 'launch_verdict',
    title: 'Launch verdict',
    description: 'Whether the launch may go ahead, and why.',
    schema: { type: 'object', required: ['go'], properties: { go: { type: 'boolean' }, note: { type: 'string' } } },
    metadata: { version: '1.0.0', direction: 'output' },
  };
  const registration = (over: Record<string, unknown> = {}) => ({
    capabilityId: 'e2e.LaunchReview',
    agentType: 'human',
    version: '1',
    displayName: 'Launch review',
    summary: 'A person decides whether the launch goes ahead.',
    inputContract: [],
    outputContract: ['launch_verdict'],
    ...over,
  });

  beforeAll(async () => {
    const res = await req('POST', '/api/v1/flex/facets', owner, { facets: [facet] });
    if (res.status !== 200) throw new Error(`facets: ${res.status} ${JSON.stringify(res.body)}`);
  });

  it('refuses a malformed assignmentDefaults.assignees, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ assignmentDefaults: { assignees: member.id } }, 'assignmentDefaults.assignees'],
      [{ assignmentDefaults: { assignees: [member.id, ''] } }, 'assignmentDefaults.assignees[1]'],
      [{ assignmentDefaults: { assignees: [member.id, 42] } }, 'assignmentDefaults.assignees[1]'],
      [{ agentType: 'ai', assignmentDefaults: { assignees: [member.id] } }, 'assignmentDefaults.assignees'],
    ];
    for (const [over, field] of cases) {
      const res = await req('POST', '/api/v1/flex/capabilities/register', owner, registration(over));
      expect(res.status).toBe(400);
      expect(res.body.error.violations.map((v: any) => v.field)).toEqual([field]);
    }
    expect((await req('GET', '/api/v1/flex/capabilities/e2e.LaunchReview', owner)).status).toBe(404);
  });

  it("routes the task to the holders the registration names: the holder sees it and submits; a stranger gets 404", async () => {
    const reg = await req('POST', '/api/v1/flex/capabilities/register', owner, registration({ assignmentDefaults: { assignees: [member.id], maxNotifications: 1 } }));
    expect(reg.status).toBe(201);
    expect(reg.body.capability.registration.assignmentDefaults).toEqual({ assignees: [member.id], maxNotifications: 1 });

    const runId = await startPlan(owner, [
      wireNode({
        id: 'review',
        kind: plan.NodeKind.NODE_KIND_HUMAN,
        action: 'e2e.LaunchReview',
        capabilityId: 'e2e.LaunchReview',
        description: 'Decide whether the launch goes ahead',
        outputSchema: facet.schema,
      }),
    ]);
    const task = await until('the holder to see the task', async () => (await req('GET', `/api/v1/flex/tasks?runId=${runId}`, member)).body.tasks?.[0]);
    expect(task).toMatchObject({ kind: 'human_task', status: 'pending', capabilityId: 'e2e.LaunchReview', pendingNodeId: 'review', operatorPrompt: 'Decide whether the launch goes ahead' });
    expect((await req('GET', '/api/v1/flex/tasks?capabilityId=e2e.LaunchReview', member)).body.tasks.map((t: any) => t.taskId)).toContain(task.taskId);

    expect((await req('GET', '/api/v1/flex/tasks', stranger)).body.tasks).toEqual([]);
    expect((await req('POST', '/api/v1/flex/run.resume', stranger, { runId, taskId: task.taskId, output: { go: true } })).status).toBe(404);
    expect((await req('POST', `/api/v1/flex/tasks/${task.taskId}/decline`, stranger, { reasonCode: 'other' })).status).toBe(404);

    const bad = await req('POST', '/api/v1/flex/run.resume', member, { runId, taskId: task.taskId, output: { go: 'yes' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.violations.map((v: any) => v.field)).toEqual(['output.go']);
    const ok = await req('POST', '/api/v1/flex/run.resume', member, { runId, taskId: task.taskId, output: { go: true, note: 'ship it' } });
    expect(ok.status).toBe(200);
    expect(ok.body.request).toMatchObject({ status: 'submitted', resolution: { decidedBy: member.id, output: { go: true, note: 'ship it' } } });
    const run = await finished(runId);
    expect(run.status).toBe('completed');
    expect(run.nodes[0].output).toEqual({ go: true, note: 'ship it' });
    const audit = await stack.db.query<{ type: string; actor: string }>('SELECT type, actor FROM approval.request_events WHERE request_id = $1 ORDER BY id', [task.taskId]);
    expect(audit.map((a) => [a.type, a.actor])).toEqual([
      ['created', owner.id],
      ['submission_rejected', member.id],
      ['submitted', member.id],
    ]);
  });
});
