/**
 * Issue 4 runtime policies (flex spec §5.3 RuntimePolicy, §5.10) through the
 * orchestrator's gRPC API (separate processes, PostgreSQL, NATS): every
 * trigger (onStart, onNodeComplete with selector and condition,
 * onValidationFail, onTimeout on a parked run, onMetricBelow, manual) and
 * every action (emit, hitl with approve/reject follow-ups, pause, fail;
 * replan is in replan.e2e-spec.ts) as golden runs with the exact frame
 * order; a crash does not fire a policy twice; legacy actions are refused.
 */
import { orchestrator } from '@af/contracts';
import { call } from '@af/service-kit';
import { startStack, type Stack } from '@af/testing';
import { failure, frames, getRun, harness, output, resume, RunStatus, shape, start, startError, status, until, type Frame, type Harness } from './helpers.js';

let stack: Stack;
let h: Harness;

beforeAll(async () => {
  stack = await startStack({ env: { orchestrator: { RUN_LEASE_MS: '1500' } } });
  h = harness(stack, 'policy-user');
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

const transform = (id: string, data: unknown[], dependsOn: string[] = []) => ({ id, kind: 'tool', action: 'transform_data', inputs: { data }, params: {}, dependsOn });
const chain = { nodes: [transform('a', [1, 2, 3]), transform('b', [4], ['a'])] };
const triggered = (fs: Frame[]) => fs.filter((f) => f.type === 'policy_triggered').map((f) => f.payload);
const gates = (r: orchestrator.Run) => r.policyGates.map((g) => [g.nodeId, orchestrator.nodeStatusToJSON(g.status).replace('NODE_STATUS_', '').toLowerCase()]);
const isStatus = (s: orchestrator.RunStatus) => (r: orchestrator.Run) => r.status === s;

async function trigger(runId: string, policyId: string, key = ''): Promise<orchestrator.Run> {
  return (await call(h.runs.triggerPolicy({ principal: h.principal, runId, policyId, idempotencyKey: key }))).run!;
}

describe('runtime policies: golden runs', () => {
  it('onStart and onNodeComplete (selector + condition) emit: policy_triggered, then the custom frame; the run goes on', async () => {
    const runId = await start(h, chain, {
      policies: [
        { id: 'opened', trigger: { kind: 'onStart' }, action: { type: 'emit', event: 'run_opened', payload: { team: 'ops' } } },
        { id: 'big_a', trigger: { kind: 'onNodeComplete', selector: { nodeId: 'a' }, condition: { dsl: 'output.count > 2' } }, action: { type: 'emit', event: 'big_batch' } },
        { id: 'big_b', trigger: { kind: 'onNodeComplete', selector: { nodeId: 'b' }, condition: { jsonLogic: { '>': [{ var: 'output.count' }, 2] } } }, action: { type: 'fail' } },
        { id: 'off', enabled: false, trigger: { kind: 'onStart' }, action: { type: 'fail' } },
      ],
    });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    const fs = await frames(h, runId);
    expect(shape(fs)).toEqual([
      'start',
      'policy_triggered',
      'run_opened',
      'node_start:a',
      'node_complete:a',
      'policy_triggered:a',
      'big_batch:a',
      'node_start:b',
      'node_complete:b',
      'complete',
    ]);
    expect(fs[1]!.payload).toEqual({
      policyId: 'opened',
      key: 'opened',
      trigger: 'onStart',
      triggerDetails: { kind: 'onStart' },
      action: 'emit',
      actionDetails: { type: 'emit', event: 'run_opened', payload: { team: 'ops' } },
    });
    expect(fs[2]!.payload).toEqual({ policyId: 'opened', team: 'ops' });
    expect(fs[5]!.payload).toMatchObject({ policyId: 'big_a', key: 'big_a@a', trigger: 'onNodeComplete', action: 'emit', nodeId: 'a' });
    expect(status(run)).toEqual({ a: 'completed', b: 'completed' });
    expect(run.policyFirings.map((f) => [f.key, f.policyId, f.status])).toEqual([
      ['opened', 'opened', 'applied'],
      ['big_a@a', 'big_a', 'applied'],
    ]);
  });

  it('hitl: a gate parks the run before the next node; approving runs approveAction, then the run goes on', async () => {
    const runId = await start(h, chain, {
      policies: [
        {
          id: 'review',
          trigger: { kind: 'onNodeComplete', selector: { nodeId: 'a' } },
          action: { type: 'hitl', rationale: 'Check batch a', approveAction: { type: 'emit', event: 'reviewed' } },
        },
      ],
    });
    const waiting = await until(h, runId, isStatus(RunStatus.RUN_STATUS_WAITING));
    expect(status(waiting)).toEqual({ a: 'completed', b: 'pending' });
    expect(gates(waiting)).toEqual([['policy:review@a', 'waiting']]);
    const request = (await frames(h, runId)).find((f) => f.type === 'hitl_request')!;
    expect(request.payload).toEqual({
      pendingNodeId: 'policy:review@a',
      // The gate is a policy_hitl request in the approval service (policy-approvals.e2e-spec.ts decides one there).
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

    // With no node id, the decision goes to the only thing waiting: the gate.
    await resume(h, runId, '', 'approve');
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(shape(await frames(h, runId))).toEqual([
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
    const fs = await frames(h, runId);
    expect(fs[6]!.payload).toMatchObject({ policyId: 'review', key: 'review@a/approve', trigger: 'hitl', action: 'emit', decision: 'approve' });
    expect(gates(run)).toEqual([['policy:review@a', 'completed']]);
    expect(run.policyFirings.map((f) => [f.key, f.status])).toEqual([
      ['review@a', 'applied'],
      ['review@a/approve', 'applied'],
    ]);
  });

  it('hitl: rejecting without a rejectAction fails the run; later nodes never start', async () => {
    const runId = await start(h, chain, { policies: [{ id: 'review', trigger: { kind: 'onNodeComplete', selector: { nodeId: 'a' } }, action: { type: 'hitl' } }] });
    await until(h, runId, isStatus(RunStatus.RUN_STATUS_WAITING));
    await resume(h, runId, 'policy:review@a', 'reject');
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    expect(run.error).toBe('policy review: the operator (policy-user) rejected gate policy:review@a');
    expect(shape(await frames(h, runId))).toEqual([
      'start',
      'node_start:a',
      'node_complete:a',
      'policy_triggered:a',
      'hitl_request:a',
      'log:policy:review@a',
      'policy_triggered',
      'complete',
    ]);
    expect(status(run)).toEqual({ a: 'completed', b: 'cancelled' });
    expect(gates(run)).toEqual([['policy:review@a', 'skipped']]);
  });

  it('pause: the run stops taking nodes; ResumeRun goes on and the policy does not fire again', async () => {
    const runId = await start(h, chain, { policies: [{ id: 'hold', trigger: { kind: 'onNodeComplete', selector: { kind: 'tool', nodeId: 'a' } }, action: { type: 'pause', reason: 'look first' } }] });
    const paused = await until(h, runId, isStatus(RunStatus.RUN_STATUS_PAUSED));
    expect(status(paused)).toEqual({ a: 'completed', b: 'pending' });
    await call(h.runs.resumeRun({ principal: h.principal, runId, nodeId: '', decision: orchestrator.Decision.DECISION_UNSPECIFIED, instructions: '', idempotencyKey: '' }));
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    const fs = await frames(h, runId);
    expect(shape(fs)).toEqual(['start', 'node_start:a', 'node_complete:a', 'policy_triggered:a', 'log', 'log', 'node_start:b', 'node_complete:b', 'complete']);
    expect(fs[4]!.payload).toEqual({ event: 'paused', by: 'policy:hold', reason: 'look first' });
    expect(fs[5]!.payload).toEqual({ event: 'resumed' });
  });

  it('fail: the run fails with the policy message; later nodes never start', async () => {
    const runId = await start(h, chain, { policies: [{ id: 'guard', trigger: { kind: 'onNodeComplete', selector: { nodeId: 'a' } }, action: { type: 'fail', message: 'batch a is too big' } }] });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    expect(run.error).toBe('policy guard: batch a is too big');
    const fs = await frames(h, runId);
    expect(shape(fs)).toEqual(['start', 'node_start:a', 'node_complete:a', 'policy_triggered:a', 'complete']);
    expect(fs[4]!.payload).toEqual({
      status: 'failed',
      error: run.error,
      policyId: 'guard',
      durationMs: expect.any(Number),
      activeMs: expect.any(Number),
      task_status: 'error',
      steps_completed: 1,
      steps_failed: 0,
      steps_skipped: 0,
      error_summary: 'policy guard: batch a is too big',
      // A background run's end names who asked, so output-router can tell them.
      requested_by: 'policy-user',
      run_context: 'background',
    });
    expect(status(run)).toEqual({ a: 'completed', b: 'cancelled' });
    expect(run.policyFirings.map((f) => [f.key, f.status])).toEqual([['guard@a', 'applied']]);
  });

  it('onMetricBelow: fires once when a node output metric drops below its threshold', async () => {
    const runId = await start(
      h,
      { nodes: [transform('a', [1]), transform('b', [], ['a'])] },
      { policies: [{ id: 'low', trigger: { kind: 'onMetricBelow', metric: 'a.count', threshold: 2 }, action: { type: 'emit', event: 'low_volume' } }] },
    );
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    const fs = await frames(h, runId);
    expect(shape(fs)).toEqual(['start', 'node_start:a', 'node_complete:a', 'policy_triggered', 'low_volume', 'node_start:b', 'node_complete:b', 'complete']);
    expect(fs[3]!.payload).toMatchObject({ policyId: 'low', trigger: 'onMetricBelow', metric: 'a.count', value: 1, threshold: 2 });
  });

  it('onTimeout: a durable policy timer wakes a parked run and fails it', async () => {
    const runId = await start(
      h,
      { nodes: [{ id: 'gate', kind: 'approval', inputs: { prompt: 'ok?' } }, transform('after', [1], ['gate'])] },
      { policies: [{ id: 'slow', trigger: { kind: 'onTimeout', ms: 1500 }, action: { type: 'fail', message: 'nobody answered in time' } }] },
    );
    const parked = await until(h, runId, isStatus(RunStatus.RUN_STATUS_WAITING));
    expect(status(parked)).toEqual({ gate: 'waiting', after: 'pending' });
    const run = await until(h, runId, undefined, 15_000);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    expect(run.error).toBe('policy slow: nobody answered in time');
    const fs = await frames(h, runId);
    expect(shape(fs)).toEqual(['start', 'node_start:gate', 'hitl_request:gate', 'policy_triggered', 'complete']);
    expect(fs[3]!.payload.elapsedMs).toBeGreaterThanOrEqual(1500);
    expect(status(run)).toEqual({ gate: 'cancelled', after: 'cancelled' });
  });

  it('onValidationFail → hitl: approving accepts the output as it is and the run completes', async () => {
    const contract = { schema: { type: 'object', required: ['a'], properties: { a: { type: 'object', properties: { count: { type: 'integer', minimum: 5 } } } } } };
    const runId = await start(h, { nodes: [transform('a', [1, 2])] }, {
      outputContract: contract,
      policies: [{ id: 'qa', trigger: { kind: 'onValidationFail' }, action: { type: 'hitl', rationale: 'Output does not match the contract' } }],
    });
    await until(h, runId, isStatus(RunStatus.RUN_STATUS_WAITING));
    await resume(h, runId, 'policy:qa', 'approve');
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    const fs = await frames(h, runId);
    expect(shape(fs)).toEqual(['start', 'node_start:a', 'node_complete:a', 'validation_error', 'policy_triggered', 'hitl_request', 'log:policy:qa', 'complete']);
    expect(fs[3]!.payload).toEqual({ scope: 'output_contract', errors: [{ path: '/a/count', keyword: 'minimum', message: 'must be >= 5' }] });
    expect(fs[4]!.payload).toMatchObject({ policyId: 'qa', trigger: 'onValidationFail', errors: 1 });
    expect(fs.at(-1)!.payload).toMatchObject({ status: 'completed', output_contract: 'accepted_by_operator' });
    expect(output(run, 'a')).toEqual({ data: [1, 2], count: 2 });
  });

  it('onValidationFail → emit: the frame, then the run fails as it would without the policy', async () => {
    const contract = { schema: { type: 'object', required: ['missing'] } };
    const runId = await start(h, { nodes: [transform('a', [1])] }, {
      outputContract: contract,
      policies: [{ id: 'tell', trigger: { kind: 'onValidationFail', condition: { jsonLogic: { some: [{ var: 'errors' }, { '==': [{ var: 'keyword' }, 'required'] }] } } }, action: { type: 'emit', event: 'contract_broken' } }],
    });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    expect(run.error).toBe("the final output does not satisfy the output contract: /missing must have required property 'missing'");
    expect(shape(await frames(h, runId))).toEqual(['start', 'node_start:a', 'node_complete:a', 'validation_error', 'policy_triggered', 'contract_broken', 'complete']);
  });

  it('onValidationFail with a selector fires only for errors about the selected node’s output', async () => {
    const contract = { schema: { type: 'object', properties: { a: { type: 'object', properties: { count: { type: 'integer', minimum: 5 } } } } } };
    const runId = await start(h, chain, {
      outputContract: contract,
      policies: [
        { id: 'about_b', trigger: { kind: 'onValidationFail', selector: { nodeId: 'b' } }, action: { type: 'emit', event: 'b_broken' } },
        { id: 'about_a', trigger: { kind: 'onValidationFail', selector: { nodeId: 'a', kind: 'tool' } }, action: { type: 'emit', event: 'a_broken' } },
      ],
    });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    const fs = await frames(h, runId);
    expect(shape(fs)).toEqual(['start', 'node_start:a', 'node_complete:a', 'node_start:b', 'node_complete:b', 'validation_error', 'policy_triggered', 'a_broken', 'complete']);
    expect(fs[6]!.payload).toMatchObject({ policyId: 'about_a', trigger: 'onValidationFail', errors: 1, nodeIds: ['a'] });
    expect(run.policyFirings.map((f) => f.key)).toEqual(['about_a']);
  });
});

describe('runtime policies: manual triggers', () => {
  it('TriggerPolicy fires a manual policy: emit, then fail ends the run; other policies are refused by name', async () => {
    const runId = await start(h, { nodes: [{ id: 'wait', kind: 'delay', params: { seconds: 60 } }] }, {
      policies: [
        { id: 'shout', trigger: { kind: 'manual' }, action: { type: 'emit', event: 'operator_note', payload: { note: 'checked' } } },
        { id: 'stop', trigger: { kind: 'manual' }, action: { type: 'fail', message: 'stopped by the operator' } },
        { id: 'auto', trigger: { kind: 'onStart' }, action: { type: 'emit', event: 'started' } },
      ],
    });
    await until(h, runId, isStatus(RunStatus.RUN_STATUS_WAITING));
    const afterEmit = await trigger(runId, 'shout');
    expect(afterEmit.status).toBe(RunStatus.RUN_STATUS_WAITING);
    expect(afterEmit.policyFirings.map((f) => f.key)).toEqual(['auto', 'shout@manual:1']);

    const notManual = await failure(trigger(runId, 'auto'));
    expect(notManual).toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'policy_id', reason: 'policy auto is triggered by onStart, not manual' }] });
    const unknown = await failure(trigger(runId, 'nope'));
    expect(unknown.violations[0]).toMatchObject({ field: 'policy_id', reason: `run ${runId} has no policy nope` });

    const failed = await trigger(runId, 'stop');
    expect(failed.status).toBe(RunStatus.RUN_STATUS_FAILED);
    expect(failed.error).toBe('stopped by the operator');
    const fs = await frames(h, runId);
    expect(shape(fs)).toEqual(['start', 'policy_triggered', 'started', 'node_start:wait', 'policy_triggered', 'operator_note', 'policy_triggered', 'complete']);
    expect(fs[4]!.payload).toMatchObject({ policyId: 'shout', key: 'shout@manual:1', trigger: 'manual', by: 'policy-user' });
    expect(fs.at(-1)!.payload).toEqual({
      status: 'failed',
      error: 'stopped by the operator',
      policyId: 'stop',
      task_status: 'error',
      steps_completed: 0,
      steps_failed: 0,
      steps_skipped: 0,
      error_summary: 'stopped by the operator',
    });
    expect(status(failed)).toEqual({ wait: 'cancelled' });

    const late = await failure(trigger(runId, 'shout'));
    expect(late.code).toBe('FAILED_PRECONDITION');
    expect((await frames(h, runId)).length).toBe(fs.length);
  });

  it('a manual hitl on a running run opens a gate the executor honours; the same idempotency key fires once', async () => {
    const runId = await start(h, { nodes: [{ id: 'wait', kind: 'delay', params: { durationMs: 1500 } }, transform('after', [1], ['wait'])] }, {
      policies: [{ id: 'check', trigger: { kind: 'manual' }, action: { type: 'hitl', rationale: 'operator check', rejectAction: { type: 'pause', reason: 'rejected' } } }],
    });
    await until(h, runId, (r) => r.nodes[0]!.status === orchestrator.NodeStatus.NODE_STATUS_WAITING);
    await trigger(runId, 'check', 'k1');
    await trigger(runId, 'check', 'k1');
    // The delay's timer passes; the gate still holds the next node.
    await new Promise((r) => setTimeout(r, 2500));
    const held = await getRun(h, runId);
    expect(held.status).toBe(RunStatus.RUN_STATUS_WAITING);
    expect(status(held)).toEqual({ wait: 'completed', after: 'pending' });
    expect(gates(held)).toEqual([['policy:check@manual:k1', 'waiting']]);
    await resume(h, runId, 'policy:check@manual:k1', 'reject');
    const paused = await until(h, runId, isStatus(RunStatus.RUN_STATUS_PAUSED));
    expect(status(paused)).toEqual({ wait: 'completed', after: 'pending' });
    expect(paused.policyFirings.map((f) => [f.key, f.status])).toEqual([
      ['check@manual:k1', 'applied'],
      ['check@manual:k1/reject', 'applied'],
    ]);
    expect(triggered(await frames(h, runId)).map((p) => [p.key, p.action])).toEqual([
      ['check@manual:k1', 'hitl'],
      ['check@manual:k1/reject', 'pause'],
    ]);
  });
});

describe('runtime policies: durability and bad input', () => {
  it('a policy that fired is not fired again when the run resumes on a restarted orchestrator', async () => {
    const runId = await start(h, chain, {
      policies: [
        { id: 'hello', trigger: { kind: 'onStart' }, action: { type: 'emit', event: 'hello' } },
        { id: 'review', trigger: { kind: 'onNodeComplete', selector: { nodeId: 'a' } }, action: { type: 'hitl' } },
      ],
    });
    await until(h, runId, isStatus(RunStatus.RUN_STATUS_WAITING));
    await stack.services.orchestrator.kill();
    await stack.services.orchestrator.start();
    await resume(h, runId, 'policy:review@a', 'approve');
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(triggered(await frames(h, runId)).map((p) => p.key)).toEqual(['hello', 'review@a']);
    expect(shape(await frames(h, runId)).filter((f) => f === 'hello' || f.startsWith('hitl_request'))).toEqual(['hello', 'hitl_request:a']);
  });

  it('StartRun refuses goto and legacy action names with a migration hint naming the field; nothing is persisted', async () => {
    const count = async () => Number((await stack.db.query<{ n: string }>(`SELECT count(*) AS n FROM orchestrator.runs WHERE user_id = 'policy-user'`))[0]!.n);
    const before = await count();
    const err = await startError(h, chain, {
      policies: [
        { id: 'back', trigger: { kind: 'manual' }, action: { type: 'goto', next: { relation: { direction: 'previous' } } } },
        { id: 'old', trigger: { kind: 'onNodeComplete', selector: { nodeId: 'bb' } }, action: { type: 'hitl_pause' } },
      ],
    });
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations).toEqual([
      {
        field: 'policies[0].action.type',
        reason: "'goto' is not supported: goto was removed (flex spec §5.10): policies never re-route nodes; use {type: 'replan'} to change the flow",
        code: 'deprecated_action',
      },
      { field: 'policies[1].trigger.selector.nodeId', reason: 'the plan has no node "bb"', code: 'invalid_policy', suggestedFix: 'b' },
      { field: 'policies[1].action.type', reason: "'hitl_pause' is not supported: hitl_pause was renamed: use {type: 'hitl'}", code: 'deprecated_action', suggestedFix: 'hitl' },
    ]);
    expect(err.message).toContain('policies[0].action.type');
    expect(await count()).toBe(before);
  });
});
