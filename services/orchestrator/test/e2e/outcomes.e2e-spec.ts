/**
 * Run outcomes through the orchestrator's gRPC API (separate processes,
 * PostgreSQL, NATS): task_status while a run waits on a person and after a
 * decision, on cancel and on a manual `fail` policy; ListRuns filtered by
 * task status and by playbook; a workflow's own output_schema checked when the run finishes.
 */
import { orchestrator } from '@af/contracts';
import { call } from '@af/service-kit';
import { startStack, type Stack } from '@af/testing';
import { failure, frames, getRun, harness, resume, RunStatus, start, status, until, type Harness } from './helpers.js';

const TaskStatus = orchestrator.TaskStatus;

let stack: Stack;
let h: Harness;

beforeAll(async () => {
  stack = await startStack();
  h = harness(stack, 'outcome-user');
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

const transform = (id: string, data: unknown, dependsOn: string[] = []) => ({ id, kind: 'tool', action: 'transform_data', inputs: { data }, params: {}, dependsOn });
const gate = (id: string, dependsOn: string[] = []) => ({ id, kind: 'approval', inputs: { prompt: 'go on?' }, dependsOn });
const isStatus = (s: orchestrator.RunStatus) => (r: orchestrator.Run) => r.status === s;

async function listIds(taskStatuses: orchestrator.TaskStatus[]): Promise<string[]> {
  const { runs } = await call(h.runs.listRuns({ principal: h.principal, statuses: [], taskStatuses, pageSize: 200, pageToken: '' }));
  return runs.map((r) => r.id);
}

describe('task status', () => {
  it('is awaiting_approval while the run waits on a person, nothing while it runs again, complete when it is done', async () => {
    const runId = await start(h, { nodes: [transform('a', [1]), gate('ok', ['a']), transform('b', [2], ['ok'])] });
    const parked = await until(h, runId, isStatus(RunStatus.RUN_STATUS_WAITING));
    expect(parked).toMatchObject({ taskStatus: TaskStatus.TASK_STATUS_AWAITING_APPROVAL, stepsCompleted: 0, errorSummary: '' });
    expect(await listIds([TaskStatus.TASK_STATUS_AWAITING_APPROVAL])).toContain(runId);

    await resume(h, runId, 'ok', 'approve');
    const run = await until(h, runId);
    expect(run).toMatchObject({ status: RunStatus.RUN_STATUS_COMPLETED, taskStatus: TaskStatus.TASK_STATUS_COMPLETE, stepsCompleted: 3, stepsFailed: 0, stepsSkipped: 0 });
    expect(await listIds([TaskStatus.TASK_STATUS_AWAITING_APPROVAL])).not.toContain(runId);
    expect(await listIds([TaskStatus.TASK_STATUS_COMPLETE])).toContain(runId);
    const complete = (await frames(h, runId)).at(-1)!;
    expect(complete).toMatchObject({ type: 'complete', payload: { status: 'completed', task_status: 'complete', steps_completed: 3, steps_failed: 0, steps_skipped: 0, error_summary: null } });
  });

  it('a timer is not a person: a run parked on a delay has no task status yet', async () => {
    const runId = await start(h, { nodes: [{ id: 'wait', kind: 'delay', params: { seconds: 60 } }] });
    const parked = await until(h, runId, isStatus(RunStatus.RUN_STATUS_WAITING));
    expect(parked.taskStatus).toBe(TaskStatus.TASK_STATUS_UNSPECIFIED);
    await call(h.runs.cancelRun({ principal: h.principal, runId, idempotencyKey: '' }));
  });

  it('a cancelled run is partial when some steps completed, and says it was cancelled', async () => {
    const runId = await start(h, { nodes: [transform('a', [1]), gate('ok', ['a'])] });
    await until(h, runId, isStatus(RunStatus.RUN_STATUS_WAITING));
    const { run } = await call(h.runs.cancelRun({ principal: h.principal, runId, idempotencyKey: '' }));
    expect(run).toMatchObject({ status: RunStatus.RUN_STATUS_CANCELLED, taskStatus: TaskStatus.TASK_STATUS_PARTIAL, stepsCompleted: 1, errorSummary: 'cancelled' });
    expect((await frames(h, runId)).at(-1)!.payload).toMatchObject({ status: 'cancelled', task_status: 'partial', steps_completed: 1 });
  });

  it('a manual fail policy ends the run with task status error', async () => {
    const runId = await start(h, { nodes: [gate('ok')] }, { policies: [{ id: 'stop', trigger: { kind: 'manual' }, action: { type: 'fail', message: 'operator stopped it' } }] });
    await until(h, runId, isStatus(RunStatus.RUN_STATUS_WAITING));
    await call(h.runs.triggerPolicy({ principal: h.principal, runId, policyId: 'stop', idempotencyKey: '' }));
    const run = await getRun(h, runId);
    expect(run).toMatchObject({ status: RunStatus.RUN_STATUS_FAILED, taskStatus: TaskStatus.TASK_STATUS_ERROR, errorSummary: 'operator stopped it' });
  });

  it('ListRuns refuses an unspecified task status, naming the field', async () => {
    const err = await failure(call(h.runs.listRuns({ principal: h.principal, statuses: [], taskStatuses: [TaskStatus.TASK_STATUS_UNSPECIFIED], pageSize: 10, pageToken: '' })));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toContain('task_statuses');
  });
});

describe('ListRuns by playbook', () => {
  it('lists only the runs whose plan came from that playbook; an overlong id is refused naming the field', async () => {
    const fromPlaybook = await start(h, { provenance: { frontEnd: 'playbook', sourceId: 'pb-filter' }, nodes: [transform('a', [1])] });
    const otherPlaybook = await start(h, { provenance: { frontEnd: 'playbook', sourceId: 'pb-other' }, nodes: [transform('a', [1])] });
    // The same source id from another front end is not a playbook run.
    const workflow = await start(h, { provenance: { frontEnd: 'workflow_steps', sourceId: 'pb-filter' }, nodes: [transform('a', [1])] });
    const list = async (playbookId: string) => (await call(h.runs.listRuns({ principal: h.principal, statuses: [], taskStatuses: [], pageSize: 200, pageToken: '', playbookId }))).runs.map((r) => r.id);
    expect(await list('pb-filter')).toEqual([fromPlaybook]);
    expect(await list('pb-other')).toEqual([otherPlaybook]);
    expect(await list('')).toEqual(expect.arrayContaining([fromPlaybook, otherPlaybook, workflow]));
    const err = await failure(call(h.runs.listRuns({ principal: h.principal, statuses: [], taskStatuses: [], pageSize: 10, pageToken: '', playbookId: 'p'.repeat(201) })));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toContain('playbook_id');
  });
});

describe('upstream_failed', () => {
  const broken = (id: string, dependsOn: string[] = []) => ({ id, kind: 'tool', action: 'call_connector', params: { connector: 'no-such-connector', endpoint: 'x' }, dependsOn, errorPolicy: { onError: 'skip' } });

  it('inside map iterations: a body step reading a failed body step is skipped per iteration, naming the instance', async () => {
    const runId = await start(h, {
      inputs: [{ name: 'ids' }],
      nodes: [
        {
          id: 'each',
          kind: 'map',
          body: { itemsFrom: '{ids}', continueOnError: true, nodes: [broken('fetch'), transform('use', '{fetch.results}', ['fetch']), transform('plain', [1], ['fetch'])] },
        },
      ],
    }, { inputs: { ids: ['a', 'b'] } });
    const run = await until(h, runId);
    expect(status(run)).toMatchObject({ 'fetch[0]': 'failed', 'use[0]': 'skipped', 'plain[0]': 'completed', 'fetch[1]': 'failed', 'use[1]': 'skipped', 'plain[1]': 'completed' });
    const use1 = run.iterations.find((n) => n.nodeId === 'use[1]')!;
    expect(use1).toMatchObject({ skipReason: 'upstream_failed', error: expect.stringMatching(/^upstream step 'fetch' failed: /) });
    const frame = (await frames(h, runId)).find((f) => f.type === 'node_complete' && f.nodeId === 'use[1]')!;
    expect(frame.payload).toMatchObject({ skipped: true, reason: 'upstream_failed', upstream: 'fetch[1]' });
    // The map completed (continueOnError), but its iterations lost steps: the run is partial, naming them.
    expect(run).toMatchObject({ status: RunStatus.RUN_STATUS_COMPLETED, taskStatus: TaskStatus.TASK_STATUS_PARTIAL, stepsCompleted: 1 });
    expect(run.errorSummary).toMatch(/^fetch\[0\] failed: .*; fetch\[1\] failed: .*; use\[0\] skipped: upstream step 'fetch' failed: /);
  });
});

describe("a workflow's own output_schema", () => {
  const nodes = [transform('step1', [{ n: 1 }]), transform('step2', [], ['step1'])];
  const outputSchema = [
    { name: 'rows', type: 'array', source: '{step1.data}' },
    { name: 'empty', type: 'array', source: '{step2.data}' },
  ];

  it('is checked when the run finishes: a run that produces it completes', async () => {
    const run = await until(h, await start(h, { nodes, metadata: { output_schema: outputSchema } }));
    expect(run).toMatchObject({ status: RunStatus.RUN_STATUS_COMPLETED, taskStatus: TaskStatus.TASK_STATUS_COMPLETE });
  });

  it('a violation fails the run as an output contract does: validation_error, then complete failed', async () => {
    const broken = [...outputSchema, { name: 'report', type: 'object', source: '{step2.report}' }];
    const runId = await start(h, { nodes, metadata: { output_schema: broken } });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    expect(run.error).toMatch(/^the final output does not satisfy the workflow's output_schema: .*report/);
    expect(status(run)).toEqual({ step1: 'completed', step2: 'completed' });
    expect(run).toMatchObject({ taskStatus: TaskStatus.TASK_STATUS_ERROR, stepsCompleted: 2 });
    expect(run.errorSummary).toContain("workflow's output_schema");
    const fs = await frames(h, runId);
    const validation = fs.find((f) => f.type === 'validation_error')!;
    expect(validation.payload).toMatchObject({ scope: 'workflow_output_schema', errors: [expect.objectContaining({ keyword: 'required' })] });
    expect(fs.at(-1)).toMatchObject({ type: 'complete', payload: { status: 'failed', task_status: 'error' } });
  });

  it('fires onValidationFail policies like an output contract violation, with the scope named', async () => {
    const broken = [{ name: 'report', type: 'object', source: '{step2.report}' }];
    const runId = await start(h, { nodes, metadata: { output_schema: broken } }, { policies: [{ id: 'note', trigger: { kind: 'onValidationFail' }, action: { type: 'emit', event: 'bad_output' } }] });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    const fs = await frames(h, runId);
    expect(fs.slice(-4).map((f) => f.type)).toEqual(['validation_error', 'policy_triggered', 'bad_output', 'complete']);
    expect(fs.at(-4)!.payload.scope).toBe('workflow_output_schema');
  });
});
