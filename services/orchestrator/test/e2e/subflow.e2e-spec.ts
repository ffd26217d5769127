/**
 * Issue 4 `subflow` nodes (seed delegation-tool-schemas.md spawn_and_await)
 * through the real services: a child run started from an inline plan or a
 * stored playbook (compiled by the planner), the parent waiting without a
 * worker, resumed with the child's output; child failure under the node's
 * error policy; timeouts; CancelRun cascading; a crash while the parent waits;
 * nesting limits and bad input.
 */
import { planner } from '@af/contracts';
import { call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { startStack, type Stack } from '@af/testing';
import { frames, getRun, harness, output, resume, RunStatus, shape, start, startError, status, until, type Harness } from './helpers.js';

let stack: Stack;
let h: Harness;

const PLAYBOOK = `id: big-rows
name: Rows over a threshold
version: "1.0"
execution_mode: deterministic
inputs:
  - name: rows
    type: list
    required: true
steps:
  - name: big
    step_type: tool
    action: transform_data
    inputs:
      data: "{rows}"
    operations:
      - type: filter
        field: n
        operator: gte
        value: 2
    output_key: big
`;

beforeAll(async () => {
  stack = await startStack({ env: { orchestrator: { RUN_LEASE_MS: '1500', SUBFLOW_MAX_DEPTH: '2' } } });
  // startStack does not point the orchestrator at the planner (yet): restart it with PLANNER_URL.
  stack.services.orchestrator.env.PLANNER_URL = `127.0.0.1:${stack.services.planner.env.GRPC_PORT}`;
  await stack.services.orchestrator.stop();
  await stack.services.orchestrator.start();
  h = harness(stack, 'subflow-user');
  const plannerClient = createGrpcClient<planner.PlannerServiceClient>('planner', planner.PLANNER_SERVICE_NAME, `127.0.0.1:${stack.services.planner.env.GRPC_PORT}`, { auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }) });
  await call(plannerClient.createPlaybook({ principal: h.principal, yaml: PLAYBOOK, idempotencyKey: 'pb-1' }));
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

const rowsTransform = (id: string, dependsOn: string[] = []) => ({
  id,
  kind: 'tool',
  action: 'transform_data',
  inputs: { data: [{ n: 1 }, { n: 2 }, { n: 3 }] },
  params: {},
  dependsOn,
});
/** A child plan: keeps rows with n >= min. */
const childPlan = (extra: unknown[] = []) => ({
  inputs: [{ name: 'rows', required: true }, { name: 'min', default: 2 }],
  nodes: [{ id: 'keep', kind: 'tool', action: 'transform_data', inputs: { data: '{rows}' }, params: { operations: [{ type: 'filter', field: 'n', operator: 'gte', value: '{min}' }] } }, ...extra],
});
const approvalChild = { nodes: [{ id: 'ok', kind: 'approval', inputs: { prompt: 'go?' } }] };

async function childOf(parentRunId: string, nodeId: string): Promise<string> {
  const parent = await getRun(h, parentRunId);
  const id = [...parent.nodes, ...parent.iterations].find((n) => n.nodeId === nodeId)?.childRunId;
  if (!id) throw new Error(`node ${nodeId} of ${parentRunId} has no child run yet`);
  return id;
}

describe('subflow: golden runs', () => {
  it('starts a child from an inline plan, waits, and resumes with its output (spawn_and_await shape)', async () => {
    const runId = await start(h, {
      nodes: [
        rowsTransform('src'),
        { id: 'sub', kind: 'subflow', dependsOn: ['src'], inputs: { rows: '{src.data}' }, params: { plan: childPlan(), timeout_seconds: 60 } },
        { id: 'after', kind: 'tool', action: 'transform_data', inputs: { data: '{sub.final_output.keep.data}' }, params: {}, dependsOn: ['sub'] },
      ],
    });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    const childId = await childOf(runId, 'sub');
    const sub = output(run, 'sub');
    expect(sub).toEqual({ execution_id: childId, status: 'completed', final_output: { keep: { data: [{ n: 2 }, { n: 3 }], count: 2 } }, duration_ms: expect.any(Number) });
    expect(output(run, 'after')).toEqual({ data: [{ n: 2 }, { n: 3 }], count: 2 });
    expect(shape(await frames(h, runId))).toEqual([
      'start',
      'node_start:src',
      'node_complete:src',
      'node_start:sub',
      'subflow_started:sub',
      'node_complete:sub',
      'node_start:after',
      'node_complete:after',
      'complete',
    ]);
    const fs = await frames(h, runId);
    expect(fs[4]!.payload).toMatchObject({ childRunId: childId, inline: true });
    expect(fs[5]!.payload).toMatchObject({ childRunId: childId });

    const child = await until(h, childId);
    expect([child.status, child.parentRunId, child.parentNodeId, child.runContext]).toEqual([RunStatus.RUN_STATUS_COMPLETED, runId, 'sub', 'background']);
    expect(child.inputs).toEqual({ rows: [{ n: 1 }, { n: 2 }, { n: 3 }] });
    const childFrames = await frames(h, childId);
    expect(shape(childFrames)).toEqual(['start', 'node_start:keep', 'node_complete:keep', 'complete']);
    expect(childFrames[0]!.payload).toMatchObject({ parentRunId: runId, parentNodeId: 'sub' });
  });

  it('a long child parks the parent (no worker held) until the child completes', async () => {
    const runId = await start(h, {
      nodes: [{ id: 'sub', kind: 'subflow', params: { plan: approvalChild } }],
    });
    const waiting = await until(h, runId, (r) => r.status === RunStatus.RUN_STATUS_WAITING);
    expect(status(waiting)).toEqual({ sub: 'waiting' });
    expect(waiting.nodes[0]!.waitUntil).not.toBe('');
    const childId = await childOf(runId, 'sub');
    await until(h, childId, (r) => r.status === RunStatus.RUN_STATUS_WAITING);
    await resume(h, childId, 'ok', 'approve');
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(output(run, 'sub').final_output.ok).toMatchObject({ approved: true, decision: 'approve' });
  });

  it('compiles a stored playbook by id through the planner', async () => {
    const runId = await start(h, {
      inputs: [{ name: 'rows' }],
      nodes: [{ id: 'sub', kind: 'subflow', inputs: { rows: '{rows}' }, params: { playbook_id: 'big-rows' } }],
    }, { inputs: { rows: [{ n: 5 }, { n: 0 }] } });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(output(run, 'sub').final_output).toEqual({ big: { data: [{ n: 5 }], count: 1 } });
    expect((await frames(h, runId)).find((f) => f.type === 'subflow_started')!.payload).toMatchObject({ playbookId: 'big-rows' });
  });

  it('runs a subflow per map item', async () => {
    const runId = await start(h, {
      inputs: [{ name: 'batches' }],
      nodes: [{ id: 'each', kind: 'map', body: { itemsFrom: '{batches}', concurrency: 2, nodes: [{ id: 'sub', kind: 'subflow', inputs: { rows: '{current}' }, params: { plan: childPlan() } }] } }],
    }, { inputs: { batches: [[{ n: 1 }, { n: 4 }], [{ n: 9 }]] } });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect((run.outputs!.each as Array<{ final_output: unknown }>).map((r) => r.final_output)).toEqual([{ keep: { data: [{ n: 4 }], count: 1 } }, { keep: { data: [{ n: 9 }], count: 1 } }]);
    const c0 = await getRun(h, await childOf(runId, 'sub[0]'));
    expect([c0.parentRunId, c0.parentNodeId]).toEqual([runId, 'sub[0]']);
  });
});

describe('subflow: failures', () => {
  const failingChild = { nodes: [{ id: 'bad', kind: 'tool', action: 'transform_data', inputs: { data: 'not rows' }, params: {} }] };

  it("a failed child fails the node; with on_error stop the parent fails, naming the child's error", async () => {
    const runId = await start(h, { nodes: [{ id: 'sub', kind: 'subflow', params: { plan: failingChild } }, rowsTransform('after', ['sub'])] });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    const childId = await childOf(runId, 'sub');
    expect(run.error).toBe(`node sub failed: subflow sub: child run ${childId} failed: node bad failed: node bad: inputs.data: is required: an array of records or a record set { results: [...] }, got a string`);
    expect(status(run)).toEqual({ sub: 'failed', after: 'cancelled' });
    expect(shape(await frames(h, runId))).toEqual(['start', 'node_start:sub', 'subflow_started:sub', 'node_error:sub', 'complete']);
    expect((await frames(h, runId))[3]!.payload).toMatchObject({ code: 'FAILED_PRECONDITION', phase: 'subflow', childRunId: childId, continues: false });
  });

  it('with on_error skip the parent goes on', async () => {
    const runId = await start(h, { nodes: [{ id: 'sub', kind: 'subflow', params: { plan: failingChild }, errorPolicy: { onError: 'skip' } }, rowsTransform('after', ['sub'])] });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(status(run)).toEqual({ sub: 'failed', after: 'completed' });
  });

  it('a child that does not finish in time is cancelled and the node fails with DEADLINE_EXCEEDED', async () => {
    const runId = await start(h, { nodes: [{ id: 'sub', kind: 'subflow', params: { plan: approvalChild, timeout_seconds: 1 } }] });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    const childId = await childOf(runId, 'sub');
    expect(run.error).toMatch(new RegExp(`^node sub failed: subflow sub: child run ${childId} did not finish by `));
    expect((await frames(h, runId)).find((f) => f.type === 'node_error')!.payload.code).toBe('DEADLINE_EXCEEDED');
    const child = await until(h, childId);
    expect(child.status).toBe(RunStatus.RUN_STATUS_CANCELLED);
    expect((await frames(h, childId)).at(-1)!.payload).toEqual({
      status: 'cancelled',
      reason: 'parent_timeout',
      // Nothing of the child completed: its task status is error.
      task_status: 'error',
      steps_completed: 0,
      steps_failed: 0,
      steps_skipped: 0,
      error_summary: 'cancelled (parent_timeout)',
    });
  });

  it('CancelRun cancels the waiting children too; cancelling twice is a conflict', async () => {
    const runId = await start(h, { nodes: [{ id: 'sub', kind: 'subflow', params: { plan: { nodes: [{ id: 'inner', kind: 'subflow', params: { plan: approvalChild } }] } } }] });
    await until(h, runId, (r) => r.status === RunStatus.RUN_STATUS_WAITING);
    const childId = await childOf(runId, 'sub');
    await until(h, childId, (r) => r.status === RunStatus.RUN_STATUS_WAITING);
    const grandchildId = await childOf(childId, 'inner');
    await call(h.runs.cancelRun({ principal: h.principal, runId, idempotencyKey: '' }));
    for (const id of [runId, childId, grandchildId]) expect((await getRun(h, id)).status).toBe(RunStatus.RUN_STATUS_CANCELLED);
    expect((await frames(h, grandchildId)).at(-1)!.payload).toEqual({
      status: 'cancelled',
      reason: 'parent_cancelled',
      // Nothing of the child completed: its task status is error.
      task_status: 'error',
      steps_completed: 0,
      steps_failed: 0,
      steps_skipped: 0,
      error_summary: 'cancelled (parent_cancelled)',
    });
    const twice = await call(h.runs.cancelRun({ principal: h.principal, runId, idempotencyKey: '' })).catch((e) => e);
    expect(twice.code).toBe('FAILED_PRECONDITION');
  });

  it('refuses to nest deeper than SUBFLOW_MAX_DEPTH', async () => {
    const nested = (depth: number): Record<string, unknown> =>
      depth === 0 ? childPlan() : { inputs: [{ name: 'rows' }], nodes: [{ id: `level${depth}`, kind: 'subflow', inputs: { rows: '{rows}' }, params: { plan: nested(depth - 1) } }] };
    const runId = await start(h, nested(3), { inputs: { rows: [] } });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    const child = await until(h, await childOf(runId, 'level3'));
    const grandchild = await until(h, await childOf(child.id, 'level2'));
    // depth 0 → 1 → 2; the depth-2 run may not start a third level.
    expect(grandchild.status).toBe(RunStatus.RUN_STATUS_FAILED);
    expect(grandchild.error).toBe('node level1 failed: node level1: subflows nest at most 2 deep and this run is at depth 2');
  });
});

describe('subflow: durability', () => {
  it('a parent waiting on a child survives a crash; the child finishing later still resumes it', async () => {
    const runId = await start(h, { nodes: [{ id: 'sub', kind: 'subflow', params: { plan: approvalChild } }, rowsTransform('after', ['sub'])] });
    await until(h, runId, (r) => r.status === RunStatus.RUN_STATUS_WAITING);
    const childId = await childOf(runId, 'sub');
    await until(h, childId, (r) => r.status === RunStatus.RUN_STATUS_WAITING);
    await stack.services.orchestrator.kill();
    await stack.services.orchestrator.start();
    await resume(h, childId, 'ok', 'approve');
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(shape(await frames(h, runId))).toEqual(['start', 'node_start:sub', 'subflow_started:sub', 'node_complete:sub', 'node_start:after', 'node_complete:after', 'complete']);
    // One child only: the replayed parent did not start a second one.
    expect(await stack.db.query(`SELECT id FROM orchestrator.runs WHERE parent_run_id = $1`, [runId])).toHaveLength(1);
  });
});

describe('subflow: bad input', () => {
  it('refuses a subflow with neither or both of plan and playbook_id, or an invalid inline plan, at StartRun', async () => {
    expect((await startError(h, { nodes: [{ id: 'sub', kind: 'subflow' }] })).violations.map((v) => v.field)).toEqual(['plan.nodes[0].params']);
    expect((await startError(h, { nodes: [{ id: 'sub', kind: 'subflow', params: { plan: childPlan(), playbook_id: 'big-rows' } }] })).violations.map((v) => v.field)).toEqual([
      'plan.nodes[0].params',
    ]);
    const bad = await startError(h, { nodes: [{ id: 'sub', kind: 'subflow', params: { plan: { nodes: [{ id: 'x', kind: 'tool', dependsOn: ['y'] }] } } }] });
    expect(bad.violations.map((v) => v.field)).toEqual(['plan.nodes[0].params.plan.nodes[0].dependsOn[0]']);
  });

  it('an unknown playbook or a child missing inputs fails the node with the reason', async () => {
    const runId = await start(h, { nodes: [{ id: 'sub', kind: 'subflow', params: { playbook_id: 'no-such-playbook' } }] });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    expect((await frames(h, runId)).find((f) => f.type === 'node_error')!.payload.code).toBe('NOT_FOUND');

    const noRows = await start(h, { nodes: [{ id: 'sub', kind: 'subflow', params: { plan: childPlan() } }] });
    const r2 = await until(h, noRows);
    expect(r2.error).toBe('node sub failed: node sub: the child plan needs input(s) rows');
  });
});
