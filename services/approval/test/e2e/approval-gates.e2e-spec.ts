/**
 * Approval gates end to end: the five services as processes (real
 * PostgreSQL, NATS JetStream), every decision through the gateway's routes.
 */
import { startStack, type Stack } from '@af/testing';
import { client, fixture, node, register, type User } from './helpers.js';

let stack: Stack;
let c: ReturnType<typeof client>;
let dana: User;
let eve: User;
const yaml = fixture('review-and-publish.playbook.yaml');

beforeAll(async () => {
  stack = await startStack();
  c = client(stack);
  dana = await register(stack, 'dana@example.com');
  eve = await register(stack, 'eve@example.com');
});

afterAll(async () => {
  await stack?.stop();
});

describe('approval gates', () => {
  it('surfaces the request (frame and queue), hides it from strangers, records who approved, resumes the run; late decisions are 409', async () => {
    const runId = await c.startPlaybook(dana, yaml);
    await c.waitForStatus(dana, runId, 'waiting');
    const sse = await c.frames(dana, runId, 'hitl_request');
    const hitl = JSON.parse(sse.frames.at(-1)!.data);
    expect(hitl).toMatchObject({
      type: 'hitl_request',
      nodeId: 'confirm',
      payload: {
        pendingNodeId: 'confirm',
        kind: 'approval_gate',
        operatorPrompt: 'Publish 3 row(s)?',
        onReject: 'stop',
        delivery: 'inline',
        runContext: 'interactive',
        contractSummary: { nodeId: 'confirm', kind: 'approval' },
      },
    });
    expect(hitl.payload.preview.data).toHaveLength(2);
    const requestId = hitl.payload.requestId as string;

    const queue = await c.req('GET', '/api/agent-factory/approvals', dana);
    expect(queue.status).toBe(200);
    const item = queue.body.approvals.find((a: any) => a.id === requestId);
    expect(item).toMatchObject({ kind: 'approval_gate', status: 'pending', run_id: runId, step_name: 'confirm', prompt: 'Publish 3 row(s)?', notify: false, decided_by: null });
    expect(item.preview_data.data).toHaveLength(2);
    expect((await c.req('GET', `/api/agent-factory/approvals/${requestId}`, dana)).body.approval.id).toBe(requestId);

    // Another user: nothing to see, nothing to decide.
    expect((await c.req('GET', `/api/agent-factory/approvals/${requestId}`, eve)).status).toBe(404);
    const stranger = await c.req('POST', `/api/agent-factory/approvals/${requestId}/approve`, eve, {});
    expect(stranger.status).toBe(404);
    expect(stranger.body.error.code).toBe('NOT_FOUND');
    expect((await c.req('POST', '/hitl/respond', eve, { request_id: requestId, decision: 'approved' })).status).toBe(404);
    expect((await c.req('GET', '/api/agent-factory/approvals', eve)).body.approvals).toEqual([]);
    expect((await c.run(dana, runId)).status).toBe('waiting');

    const ok = await c.req('POST', `/api/agent-factory/approvals/${requestId}/approve`, dana, { instructions: 'ship it' });
    expect(ok.status).toBe(200);
    expect(ok.body.approval).toMatchObject({ status: 'approved', decision: 'approve', instructions: 'ship it', decided_by: dana.id });
    expect(Date.parse(ok.body.approval.responded_at)).toBeGreaterThan(0);

    const run = await c.waitForEnd(dana, runId);
    expect(run.status).toBe('completed');
    expect(node(run, 'confirm').output).toMatchObject({ approved: true, instructions: 'ship it', decided_by: dana.id, request_id: requestId });
    expect(run.outputs.published.count).toBe(1);
    const frames = await c.frames(dana, runId, 'complete');
    const decision = frames.frames.find((f) => f.event === 'log' && JSON.parse(f.data).payload.event === 'decision');
    expect(JSON.parse(decision!.data).payload).toMatchObject({ hitlEvent: 'hitl_approved', status: 'approved', requestId, decidedBy: dana.id });

    // Late: every route answers 409, and nothing changes.
    for (const [path, body] of [
      [`/api/agent-factory/approvals/${requestId}/approve`, {}],
      [`/api/agent-factory/approvals/${requestId}/reject`, {}],
      ['/hitl/respond', { request_id: requestId, decision: 'denied' }],
      ['/api/v1/flex/hitl/resolve', { requestId, decision: 'reject' }],
    ] as const) {
      const late = await c.req('POST', path, dana, body);
      expect(late.status).toBe(409);
      expect(late.body.error.message).toContain(`is already approved by ${dana.id}`);
    }
    expect((await c.req('GET', `/api/agent-factory/approvals/${requestId}`, dana)).body.approval.status).toBe('approved');
  });

  it('on_reject: stop fails the run; skip skips the step and goes on', async () => {
    const stop = await c.startPlaybook(dana, yaml);
    const a = await c.pending(dana, stop, 'confirm');
    expect((await c.req('POST', `/api/agent-factory/approvals/${a.id}/reject`, dana, { reason: 'not today' })).body.approval).toMatchObject({ status: 'rejected', instructions: 'not today' });
    const failed = await c.waitForEnd(dana, stop);
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain(`approval confirm was rejected by ${dana.id}`);
    expect(failed.nodes.map((n: any) => n.status)).toEqual(['completed', 'failed', 'cancelled']);

    const skip = await c.startPlaybook(dana, yaml.replace('on_reject: stop', 'on_reject: skip'));
    const b = await c.pending(dana, skip, 'confirm');
    expect((await c.req('POST', `/api/agent-factory/approvals/${b.id}/reject`, dana, {})).status).toBe(200);
    const done = await c.waitForEnd(dana, skip);
    expect(done.status).toBe('completed');
    expect(node(done, 'confirm')).toMatchObject({ status: 'skipped', skip_reason: 'rejected' });
    expect(node(done, 'publish').status).toBe('completed');
  });

  it('a background run puts the request in the owner’s queue with a notification; the seed routes decide it', async () => {
    const denied = await c.startPlaybook(dana, yaml, undefined, 'background');
    const a = await c.pending(dana, denied, 'confirm');
    expect(a).toMatchObject({ notify: true, run_context: 'background' });
    const hitl = JSON.parse((await c.frames(dana, denied, 'hitl_request')).frames.at(-1)!.data);
    expect(hitl.payload).toMatchObject({ delivery: 'queue', requestId: a.id });
    const res = await c.req('POST', '/hitl/respond', dana, { request_id: a.id, decision: 'denied', instructions: 'wrong rows' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', request_id: a.id, decision: 'denied', approval: { status: 'rejected', instructions: 'wrong rows' } });
    expect((await c.waitForEnd(dana, denied)).status).toBe('failed');

    const approved = await c.startPlaybook(dana, yaml, undefined, 'scheduled');
    const b = await c.pending(dana, approved, 'confirm');
    const resolved = await c.req('POST', '/api/v1/flex/hitl/resolve', dana, { requestId: b.id, decision: 'approved' });
    expect(resolved.status).toBe(200);
    expect(resolved.body.request).toMatchObject({ requestId: b.id, kind: 'approval_gate', status: 'approved', pendingNodeId: 'confirm', resolution: { decidedBy: dana.id, decision: 'approve' } });
    expect((await c.waitForEnd(dana, approved)).status).toBe('completed');
  });

  it('a gate nobody decides times out (durably, in the approval service) and is skipped; deciding it then is 409', async () => {
    const runId = await c.startPlan(dana, {
      nodes: [
        { id: 'gate', kind: 'approval', inputs: { prompt: 'Go?' }, params: { timeout_seconds: 1 } },
        { id: 'next', kind: 'tool', action: 'transform_data', inputs: { data: [2, 1] }, params: { operations: [{ type: 'sort', direction: 'asc' }] }, dependsOn: ['gate'] },
      ],
    });
    const a = await c.pending(dana, runId, 'gate');
    expect(Date.parse(a.timeout_at) - Date.parse(a.created_at)).toBeGreaterThanOrEqual(900);
    const run = await c.waitForEnd(dana, runId);
    expect(run.status).toBe('completed');
    expect(node(run, 'gate')).toMatchObject({ status: 'skipped', skip_reason: 'timed_out' });
    const after = (await c.req('GET', `/api/agent-factory/approvals/${a.id}`, dana)).body.approval;
    expect(after).toMatchObject({ status: 'timed_out', decided_by: 'system:timeout', reason_code: 'timeout' });
    const late = await c.req('POST', `/api/agent-factory/approvals/${a.id}/approve`, dana, {});
    expect(late.status).toBe(409);
    expect(late.body.error.message).toContain('is already timed_out by system:timeout');
  });

  it('approval_policy: auto_approve passes the gate and records the automatic approval', async () => {
    const runId = await c.startPlaybook(dana, yaml.replace('inputs:\n', 'approval_policy: auto_approve\ninputs:\n'));
    const run = await c.waitForEnd(dana, runId);
    expect(run.status).toBe('completed');
    expect(node(run, 'confirm').output).toMatchObject({ approved: true, decided_by: 'policy:auto_approve', automatic: true });
    const recorded = await c.req('GET', `/api/agent-factory/approvals?run_id=${runId}&status=all`, dana);
    expect(recorded.body.approvals).toEqual([expect.objectContaining({ status: 'approved', decided_by: 'policy:auto_approve', automatic: true, step_name: 'confirm' })]);
  });

  it('POST /api/v1/runs/:id/resume with a decision records it in the approval service', async () => {
    const runId = await c.startPlaybook(dana, yaml);
    const a = await c.pending(dana, runId, 'confirm');
    // ResumeRun decides a node that waits (a client learns of it from the hitl_request frame, committed with the wait).
    await c.waitForStatus(dana, runId, 'waiting');
    const res = await c.req('POST', `/api/v1/runs/${runId}/resume`, dana, { decision: 'approve', instructions: 'via resume' });
    expect(res.status).toBe(200);
    expect((await c.req('GET', `/api/agent-factory/approvals/${a.id}`, dana)).body.approval).toMatchObject({ status: 'approved', decided_by: dana.id, instructions: 'via resume' });
    expect((await c.waitForEnd(dana, runId)).status).toBe('completed');
    const again = await c.req('POST', `/api/v1/runs/${runId}/resume`, dana, { decision: 'approve' });
    expect(again.status).toBe(409);
  });

  it('a retried decision with the same Idempotency-Key gets the same answer instead of 409', async () => {
    const runId = await c.startPlaybook(dana, yaml);
    const a = await c.pending(dana, runId, 'confirm');
    const headers = { 'idempotency-key': `approve-${a.id}` };
    const first = await c.req('POST', `/api/agent-factory/approvals/${a.id}/approve`, dana, {}, headers);
    const retry = await c.req('POST', `/api/agent-factory/approvals/${a.id}/approve`, dana, {}, headers);
    expect([first.status, retry.status]).toEqual([200, 200]);
    expect(retry.body.approval.decided_at).toBe(first.body.approval.decided_at);
    expect((await c.waitForEnd(dana, runId)).status).toBe('completed');
  });

  it('a parallel branch completes while the gate waits, and the join runs after the approval', async () => {
    const runId = await c.startPlan(dana, {
      nodes: [
        { id: 'gate', kind: 'approval', inputs: { prompt: 'Send it?' } },
        { id: 'side', kind: 'tool', action: 'transform_data', inputs: { data: [1] }, params: { operations: [] } },
        { id: 'joined', kind: 'tool', action: 'transform_data', inputs: { data: [1] }, params: { operations: [] }, dependsOn: ['gate', 'side'] },
      ],
    });
    const waiting = await c.waitForStatus(dana, runId, 'waiting');
    expect(waiting.nodes.map((n: any) => [n.node_id, n.status])).toEqual([
      ['gate', 'waiting'],
      ['side', 'completed'],
      ['joined', 'pending'],
    ]);
    const a = await c.pending(dana, runId, 'gate');
    await c.req('POST', `/api/agent-factory/approvals/${a.id}/approve`, dana, {});
    const done = await c.waitForEnd(dana, runId);
    expect(done.status).toBe('completed');
    expect(Date.parse(node(done, 'joined').started_at)).toBeGreaterThan(Date.parse(node(done, 'side').finished_at));
  });

  it('cancelling a waiting run expires its request; bad input is 400 naming the field', async () => {
    const runId = await c.startPlaybook(dana, yaml);
    const a = await c.pending(dana, runId, 'confirm');
    expect((await c.req('POST', `/api/v1/runs/${runId}/cancel`, dana)).status).toBe(200);
    const deadline = Date.now() + 10_000;
    let status = 'pending';
    while (status === 'pending' && Date.now() < deadline) {
      status = (await c.req('GET', `/api/agent-factory/approvals/${a.id}`, dana)).body.approval.status;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await c.req('GET', `/api/agent-factory/approvals/${a.id}`, dana)).body.approval).toMatchObject({ status: 'expired', decided_by: 'system:run_ended', reason_code: 'run_ended' });
    expect((await c.req('POST', `/api/agent-factory/approvals/${a.id}/approve`, dana, {})).status).toBe(409);

    const bad = [
      [await c.req('POST', `/api/agent-factory/approvals/${a.id}/approve`, dana, { instructions: 7 }), 'instructions'],
      [await c.req('GET', '/api/agent-factory/approvals?kind=vote', dana), 'kind.0'],
      [await c.req('GET', '/api/agent-factory/approvals?status=sleeping', dana), 'status.0'],
      [await c.req('GET', '/api/agent-factory/approvals?run_id=x', dana), 'run_id'],
      [await c.req('POST', '/api/v1/flex/hitl/resolve', dana, { requestId: a.id }), 'decision'],
      [await c.req('POST', '/hitl/respond', dana, { request_id: a.id, decision: 'maybe' }), 'decision'],
      [await c.req('GET', '/api/agent-factory/approvals?page_token=bogus', dana), 'page_token'],
    ] as const;
    for (const [res, field] of bad) {
      expect(res.status).toBe(400);
      expect(res.body.error.violations.map((v: any) => v.field)).toContain(field);
    }
    expect((await c.req('GET', '/api/agent-factory/approvals/not-a-uuid', dana)).status).toBe(404);
    expect((await c.req('GET', '/api/agent-factory/approvals', { id: '', token: 'nope' })).status).toBe(401);
  });
});
