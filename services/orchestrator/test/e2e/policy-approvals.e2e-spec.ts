/**
 * Runtime-policy hitl gates through the approval service (the one durable
 * HITL inbox), with every service as a process: a gate opens a `policy_hitl`
 * request (named in its hitl_request frame), shows in the owner's approval
 * queue and is decided through the gateway's approval routes — a late
 * decision is a conflict, a stranger sees nothing; ResumeRun on a gate
 * decides its request; a manual hitl's request rejected runs its
 * rejectAction. Frames streamed by the gateway carry ISO 8601 timestamps.
 */
import { orchestrator } from '@af/contracts';
import { call } from '@af/service-kit';
import { http, readSse, startStack, type Stack } from '@af/testing';
import { frames, harness, resume, RunStatus, shape, start, until, type Harness } from './helpers.js';

let stack: Stack;
let h: Harness;
let token: string;
let strangerToken: string;

const url = (path: string) => `${stack.gatewayUrl}${path}`;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const transform = (id: string, data: unknown[], dependsOn: string[] = []) => ({ id, kind: 'tool', action: 'transform_data', inputs: { data }, params: {}, dependsOn });
const chain = { nodes: [transform('a', [1, 2, 3]), transform('b', [4], ['a'])] };
const isStatus = (s: orchestrator.RunStatus) => (r: orchestrator.Run) => r.status === s;
const gates = (r: orchestrator.Run) => r.policyGates.map((g) => [g.nodeId, orchestrator.nodeStatusToJSON(g.status).replace('NODE_STATUS_', '').toLowerCase()]);

async function register(email: string): Promise<{ id: string; token: string }> {
  const password = 'correct horse battery staple';
  const reg = await http('POST', url('/api/auth/register'), { body: { email, password } });
  expect(reg.status).toBe(201);
  const login = await http('POST', url('/api/auth/login'), { body: { email, password } });
  expect(login.status).toBe(200);
  return { id: reg.body.user.id as string, token: login.body.access_token as string };
}

/** The run's policy_hitl requests in the owner's queue (any status). */
async function requests(runId: string, as = token): Promise<any[]> {
  const res = await http('GET', url(`/api/agent-factory/approvals?run_id=${runId}&status=all&kind=policy_hitl`), { token: as });
  expect(res.status).toBe(200);
  return res.body.approvals;
}

beforeAll(async () => {
  stack = await startStack({ env: { orchestrator: { RUN_LEASE_MS: '1500' } } });
  const owner = await register('gate-owner@example.com');
  token = owner.token;
  strangerToken = (await register('gate-stranger@example.com')).token;
  // Runs are started over gRPC as the gateway user, so the gateway's routes see their requests.
  h = harness(stack, owner.id);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

describe('policy hitl gates in the approval service', () => {
  it('a gate is a policy_hitl request, decided through the gateway approvals route; a late decision is 409, a stranger gets 404', async () => {
    const runId = await start(h, chain, {
      policies: [{ id: 'review', trigger: { kind: 'onNodeComplete', selector: { nodeId: 'a' } }, action: { type: 'hitl', rationale: 'Check batch a', approveAction: { type: 'emit', event: 'reviewed' } } }],
    });
    const waiting = await until(h, runId, isStatus(RunStatus.RUN_STATUS_WAITING));
    expect(gates(waiting)).toEqual([['policy:review@a', 'waiting']]);
    const hitl = (await frames(h, runId)).find((f) => f.type === 'hitl_request')!;
    expect(hitl.payload).toEqual({
      pendingNodeId: 'policy:review@a',
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      kind: 'policy_gate',
      policyId: 'review',
      trigger: 'onNodeComplete',
      operatorPrompt: 'Check batch a',
      onApprove: 'emit',
      onReject: 'fail',
      runContext: 'background',
      subject: 'a',
    });

    // The owner's queue holds it, with what approving and rejecting do.
    const [pending, ...others] = await requests(runId);
    expect(others).toEqual([]);
    expect(pending).toMatchObject({
      id: hitl.payload.requestId,
      kind: 'policy_hitl',
      status: 'pending',
      run_id: runId,
      node_id: 'policy:review@a',
      prompt: 'Check batch a',
      details: { policyId: 'review', trigger: 'onNodeComplete', subject: 'a', approveAction: { type: 'emit', event: 'reviewed' }, rejectAction: { type: 'fail' } },
    });

    // A stranger neither sees nor decides it.
    expect((await http('GET', url(`/api/agent-factory/approvals/${pending.id}`), { token: strangerToken })).status).toBe(404);
    expect((await http('POST', url(`/api/agent-factory/approvals/${pending.id}/approve`), { token: strangerToken, body: {} })).status).toBe(404);
    expect(await requests(runId, strangerToken)).toEqual([]);

    // Approving through the gateway resumes the run (the decided event reaches the orchestrator); frames stream with ISO timestamps.
    const stream = readSse(url(`/api/v1/runs/${runId}/events`), { authorization: `Bearer ${token}` }, { until: (f) => f.event === 'complete', timeoutMs: 30_000 });
    const ok = await http('POST', url(`/api/agent-factory/approvals/${pending.id}/approve`), { token, body: { instructions: 'looks fine' } });
    expect(ok.status).toBe(200);
    expect(ok.body.approval).toMatchObject({ status: 'approved', decision: 'approve', instructions: 'looks fine' });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    const fs = await frames(h, runId);
    expect(shape(fs)).toEqual([
      'start',
      'node_start:a',
      'node_complete:a',
      'policy_triggered:a',
      'hitl_request:a',
      'log:policy:review@a',
      'policy_triggered',
      'reviewed',
      'node_start:b',
      'node_complete:b',
      'complete',
    ]);
    expect(fs[5]!.payload).toMatchObject({ event: 'decision', hitlEvent: 'hitl_approved', decision: 'approve', kind: 'policy_hitl', requestId: pending.id, decidedBy: h.principal.userId });
    expect(fs[6]!.payload).toMatchObject({ key: 'review@a/approve', trigger: 'hitl', decision: 'approve' });
    expect(gates(run)).toEqual([['policy:review@a', 'completed']]);
    const sse = await stream;
    expect(sse.status).toBe(200);
    expect(sse.frames.map((f) => f.event).slice(-4)).toEqual(['reviewed', 'node_start', 'node_complete', 'complete']);
    for (const f of sse.frames) expect(JSON.parse(f.data).timestamp).toMatch(ISO);

    // Deciding again is a conflict; nothing changes.
    const late = await http('POST', url(`/api/agent-factory/approvals/${pending.id}/reject`), { token, body: { reason: 'too late' } });
    expect(late.status).toBe(409);
    expect((await requests(runId))[0]).toMatchObject({ status: 'approved', decided_by: h.principal.userId });
    expect((await frames(h, runId)).length).toBe(fs.length);
  });

  it('ResumeRun with a decision on a gate decides its request: the queue shows who rejected it, and a second decision is refused', async () => {
    const runId = await start(h, chain, { policies: [{ id: 'review', trigger: { kind: 'onNodeComplete', selector: { nodeId: 'a' } }, action: { type: 'hitl' } }] });
    await until(h, runId, isStatus(RunStatus.RUN_STATUS_WAITING));
    const [pending] = await requests(runId);
    expect(pending).toMatchObject({ status: 'pending', node_id: 'policy:review@a', prompt: 'Runtime policy review asks for a review before the run goes on' });
    // With no node id, the decision goes to the only thing waiting: the gate.
    await resume(h, runId, '', 'reject');
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    expect(run.error).toBe(`policy review: the operator (${h.principal.userId}) rejected gate policy:review@a`);
    expect(gates(run)).toEqual([['policy:review@a', 'skipped']]);
    expect((await requests(runId))[0]).toMatchObject({ id: pending.id, status: 'rejected', decision: 'reject', decided_by: h.principal.userId });
    await expect(resume(h, runId, 'policy:review@a', 'approve')).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
  });

  it('a manual hitl opens a request too; rejecting it in the queue runs the rejectAction (pause)', async () => {
    const runId = await start(h, { nodes: [{ id: 'wait', kind: 'delay', params: { durationMs: 60_000 } }, transform('after', [1], ['wait'])] }, {
      policies: [{ id: 'check', trigger: { kind: 'manual' }, action: { type: 'hitl', rationale: 'operator check', rejectAction: { type: 'pause', reason: 'rejected' } } }],
    });
    await until(h, runId, isStatus(RunStatus.RUN_STATUS_WAITING));
    const triggered = (await call(h.runs.triggerPolicy({ principal: h.principal, runId, policyId: 'check', idempotencyKey: 'k1' }))).run!;
    expect(gates(triggered)).toEqual([['policy:check@manual:k1', 'waiting']]);
    const hitl = (await frames(h, runId)).find((f) => f.type === 'hitl_request')!;
    const [pending] = await requests(runId);
    expect(hitl.payload).toMatchObject({ pendingNodeId: 'policy:check@manual:k1', requestId: pending.id, trigger: 'manual', onReject: 'pause' });
    expect(pending).toMatchObject({ status: 'pending', prompt: 'operator check', details: { trigger: 'manual', rejectAction: { type: 'pause', reason: 'rejected' } } });
    const rejected = await http('POST', url(`/api/agent-factory/approvals/${pending.id}/reject`), { token, body: { reason: 'not now' } });
    expect(rejected.status).toBe(200);
    const paused = await until(h, runId, isStatus(RunStatus.RUN_STATUS_PAUSED));
    expect(paused.policyFirings.map((f) => [f.key, f.status])).toEqual([
      ['check@manual:k1', 'applied'],
      ['check@manual:k1/reject', 'applied'],
    ]);
    expect(gates(paused)).toEqual([['policy:check@manual:k1', 'skipped']]);
    await call(h.runs.cancelRun({ principal: h.principal, runId, idempotencyKey: '' }));
  });
});
