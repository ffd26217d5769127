/**
 * Issue 4 replans through the real services (orchestrator, planner,
 * connector-runtime, gateway and a fixture API as separate processes,
 * PostgreSQL, NATS): ReplanRun with a new plan (completed nodes locked, their
 * outputs kept and never run again), a replan while a node is in flight (one
 * upstream call), a runtime policy's replan of a stored playbook through the
 * planner (policy_triggered → plan_requested → plan_generated →
 * plan_updated), a policy replan with nothing to compile (plan_rejected, the
 * run waits for ReplanRun), the gateway route, and bad input (StartRun's plan
 * checks included) with the state left unchanged.
 */
import { orchestrator, planner } from '@af/contracts';
import { planFromWire } from '@af/plan';
import { call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { http, startFixtureServer, startStack, type FixtureServer, type Stack } from '@af/testing';
import { createConnector, failure, frames, getRun, harness, output, replan, resume, RunStatus, shape, sleep, start, status, until, type Harness } from './helpers.js';

let stack: Stack;
let api: FixtureServer;
let h: Harness;
let planners: planner.PlannerServiceClient;
/** Requests to /held wait while this is set. */
let held: { release: () => void; wait: Promise<void>; arrived: number } | undefined;

const CONNECTOR = (baseUrl: string) => `
id: replan-api
name: replan-api
type: rest_api
version: "1.0"
connection:
  base_url: "${baseUrl}"
  timeout_seconds: 20
endpoints:
  work:
    method: GET
    path: /work
    parameters:
      - { name: id, type: string, required: true }
    response_mapping: { results_path: items }
  held:
    method: GET
    path: /held
    parameters:
      - { name: id, type: string, required: true }
    response_mapping: { results_path: items }
`;

const PLAYBOOK = (extraStep: string) => `id: replan-book
name: Replanned playbook
version: "1.0"
execution_mode: deterministic
steps:
  - name: first
    step_type: tool
    action: transform_data
    inputs:
      data: [{ n: 3 }, { n: 1 }, { n: 2 }]
    operations:
      - type: sort
        field: n
        direction: asc
    output_key: first
${extraStep}`;

const SECOND = `  - name: second
    step_type: tool
    action: transform_data
    inputs:
      data: "{first.data}"
    operations:
      - type: limit
        value: 2
    output_key: second
`;

beforeAll(async () => {
  api = await startFixtureServer();
  api.route('GET', '/work', (req) => ({ json: { items: [{ id: req.query.id }] } }));
  api.route('GET', '/held', async (req) => {
    if (held) {
      held.arrived++;
      await held.wait;
    }
    return { json: { items: [{ id: req.query.id }] } };
  });
  stack = await startStack({ env: { orchestrator: { RUN_LEASE_MS: '1500' } } });
  h = harness(stack, 'replan-user');
  await createConnector(h, CONNECTOR(api.url), 'c-replan');
  planners = createGrpcClient<planner.PlannerServiceClient>('planner', planner.PLANNER_SERVICE_NAME, `127.0.0.1:${stack.services.planner.env.GRPC_PORT}`, { auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }) });
}, 60_000);

afterAll(async () => {
  held?.release();
  await stack?.stop();
  await api?.close();
});

const work = (id: string, dependsOn: string[] = []) => ({ id, kind: 'tool', action: 'call_connector', params: { connector: 'replan-api', endpoint: 'work' }, inputs: { id }, dependsOn });
const transform = (id: string, data: unknown, dependsOn: string[] = []) => ({ id, kind: 'tool', action: 'transform_data', inputs: { data }, params: {}, dependsOn });
const gate = (id: string, dependsOn: string[]) => ({ id, kind: 'approval', inputs: { prompt: 'go on?' }, dependsOn });
const isStatus = (s: orchestrator.RunStatus) => (r: orchestrator.Run) => r.status === s;
const hits = (id: string) => api.requestsTo('GET', '/work').filter((r) => r.query.id === id).length;

async function versions(runId: string): Promise<number> {
  return Number((await stack.db.query<{ n: string }>('SELECT count(*) AS n FROM orchestrator.plan_versions WHERE run_id = $1', [runId]))[0]!.n);
}

describe('ReplanRun: golden runs', () => {
  it('version 2 keeps completed nodes (outputs kept, never run again), keeps a waiting approval, adds and changes pending nodes', async () => {
    const v1 = { nodes: [work('fetch'), gate('gate', ['fetch']), transform('publish', [1], ['gate'])] };
    const runId = await start(h, v1);
    const waiting = await until(h, runId, isStatus(RunStatus.RUN_STATUS_WAITING));
    expect(status(waiting)).toEqual({ fetch: 'completed', gate: 'waiting', publish: 'pending' });
    const fetched = output(waiting, 'fetch');

    const v2 = { nodes: [work('fetch'), gate('gate', ['fetch']), transform('publish', [1, 2], ['gate']), transform('extra', '{fetch.results}', ['fetch'])] };
    const replanned = await replan(h, runId, { plan: v2, rationale: 'add a summary step' });
    expect(replanned.planVersion).toBe(2);
    expect(replanned.planVersions.map((v) => [v.version, v.source, v.rationale])).toEqual([
      [1, 'start', ''],
      [2, 'replan', 'add a summary step'],
    ]);

    await until(h, runId, (r) => r.status === RunStatus.RUN_STATUS_WAITING && status(r).extra === 'completed');
    await resume(h, runId, 'gate', 'approve');
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    const fs = await frames(h, runId);
    expect(shape(fs)).toEqual([
      'start',
      'node_start:fetch',
      'node_complete:fetch',
      'node_start:gate',
      'hitl_request:gate',
      'plan_requested',
      'plan_generated',
      'plan_updated',
      'node_start:extra',
      'node_complete:extra',
      'log:gate',
      'node_complete:gate',
      'node_start:publish',
      'node_complete:publish',
      'complete',
    ]);
    expect(fs[5]!.payload).toEqual({ previousVersion: 1, trigger: { source: 'api', rationale: 'add a summary step' } });
    expect(fs[6]!.payload).toEqual({
      version: 2,
      nodes: [
        { id: 'fetch', kind: 'tool', label: 'call_connector' },
        { id: 'gate', kind: 'approval', label: 'approval' },
        { id: 'publish', kind: 'tool', label: 'transform_data' },
        { id: 'extra', kind: 'tool', label: 'transform_data' },
      ],
    });
    expect(fs[7]!.payload).toEqual({
      previousVersion: 1,
      version: 2,
      trigger: { source: 'api', rationale: 'add a summary step' },
      nodes: [
        { id: 'fetch', status: 'completed' },
        { id: 'gate', status: 'waiting' },
        { id: 'publish', status: 'pending' },
        { id: 'extra', status: 'pending' },
      ],
      locked: ['fetch'],
      reset: ['publish'],
      added: ['extra'],
      removed: [],
    });
    expect(run.planVersion).toBe(2);
    expect(status(run)).toEqual({ fetch: 'completed', gate: 'completed', publish: 'completed', extra: 'completed' });
    expect(output(run, 'fetch')).toEqual(fetched);
    expect(output(run, 'extra')).toEqual({ data: [{ id: 'fetch' }], count: 1 });
    expect(output(run, 'publish')).toEqual({ data: [1, 2], count: 2 });
    expect(hits('fetch')).toBe(1);
    expect(await versions(runId)).toBe(2);
  });

  it('a replan while a node is in flight replays it with the same idempotency key: one upstream call, then the new plan', async () => {
    let release!: () => void;
    held = { release: () => release(), wait: new Promise<void>((r) => (release = r)), arrived: 0 };
    const v1 = { nodes: [{ id: 'slow', kind: 'tool', action: 'call_connector', params: { connector: 'replan-api', endpoint: 'held' }, inputs: { id: 'slow-1' } }] };
    const runId = await start(h, v1);
    const before = api.requestsTo('GET', '/held').length;
    while (held.arrived === 0) await sleep(20);
    await replan(h, runId, { plan: { nodes: [...v1.nodes, transform('after', '{slow.results}', ['slow'])] } });
    // The old execution is fenced off; let the upstream answer once the new one waits on the same call.
    await sleep(1500);
    held.release();
    held = undefined;
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(api.requestsTo('GET', '/held').length - before).toBe(1);
    expect(status(run)).toEqual({ slow: 'completed', after: 'completed' });
    expect(output(run, 'after')).toEqual({ data: [{ id: 'slow-1' }], count: 1 });
    const starts = (await frames(h, runId)).filter((f) => f.type === 'node_start' && f.nodeId === 'slow').map((f) => f.payload.attempt);
    expect(new Set(starts)).toEqual(new Set([1]));
  });

  it("a runtime policy's replan compiles the run's stored playbook again through the planner", async () => {
    await call(planners.createPlaybook({ principal: h.principal, yaml: PLAYBOOK(''), idempotencyKey: 'rb-1' }));
    const compiled = await call(planners.compilePlaybook({ principal: h.principal, yaml: PLAYBOOK('') }));
    // The stored playbook gains a step after the run started from version 1.
    await call(planners.createPlaybook({ principal: h.principal, yaml: PLAYBOOK(SECOND), idempotencyKey: 'rb-2' }));
    const runId = await start(h, planFromWire(compiled.plan) as Record<string, unknown>, {
      policies: [{ id: 'grow', trigger: { kind: 'onNodeComplete', selector: { nodeId: 'first' } }, action: { type: 'replan', rationale: 'the playbook changed' } }],
    });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    const fs = await frames(h, runId);
    expect(shape(fs)).toEqual([
      'start',
      'node_start:first',
      'node_complete:first',
      'policy_triggered:first',
      'plan_requested',
      'plan_generated',
      'plan_updated',
      'node_start:second',
      'node_complete:second',
      'complete',
    ]);
    expect(fs[3]!.payload).toMatchObject({ policyId: 'grow', action: 'replan', trigger: 'onNodeComplete' });
    expect(fs[4]!.payload).toEqual({ previousVersion: 1, trigger: { source: 'policy', policyId: 'grow', rationale: 'the playbook changed' } });
    expect(fs[6]!.payload).toMatchObject({ previousVersion: 1, version: 2, locked: ['first'], added: ['second'] });
    expect(run.planVersion).toBe(2);
    expect(run.planVersions.map((v) => [v.version, v.source, v.policyId])).toEqual([
      [1, 'start', ''],
      [2, 'replan', 'grow'],
    ]);
    expect(output(run, 'second')).toEqual({ data: [{ n: 1 }, { n: 2 }], count: 2 });
    expect(run.policyFirings.map((f) => [f.key, f.status])).toEqual([['grow@first', 'applied']]);
  });

  it('a policy replan with nothing to compile emits plan_rejected and pauses; ReplanRun with a plan answers it and the run goes on', async () => {
    const runId = await start(h, { nodes: [transform('a', [1]), transform('b', [2], ['a'])] }, {
      policies: [{ id: 'again', trigger: { kind: 'onNodeComplete', selector: { nodeId: 'a' } }, action: { type: 'replan' } }],
    });
    const paused = await until(h, runId, isStatus(RunStatus.RUN_STATUS_PAUSED));
    expect(status(paused)).toEqual({ a: 'completed', b: 'pending' });
    expect(paused.policyFirings.map((f) => [f.key, f.status])).toEqual([['again@a', 'awaiting_plan']]);
    const rejected = (await frames(h, runId)).find((f) => f.type === 'plan_rejected')!;
    expect(rejected.payload).toMatchObject({ policyId: 'again', diagnostics: [{ field: 'plan', reason: 'is required for a run that was not started from a stored playbook' }] });

    await replan(h, runId, { plan: { nodes: [transform('a', [1]), transform('b', [2, 3], ['a'])] } });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(shape(await frames(h, runId))).toEqual([
      'start',
      'node_start:a',
      'node_complete:a',
      'policy_triggered:a',
      'plan_requested',
      'plan_rejected',
      'log',
      'plan_requested',
      'plan_generated',
      'plan_updated',
      'node_start:b',
      'node_complete:b',
      'complete',
    ]);
    expect(output(run, 'b')).toEqual({ data: [2, 3], count: 2 });
    expect(run.policyFirings.map((f) => [f.key, f.status])).toEqual([['again@a', 'applied']]);
  });

  it('ReplanRun on behalf of a manual replan policy emits policy_triggered first', async () => {
    const runId = await start(h, { nodes: [transform('a', [1]), gate('gate', ['a'])] }, {
      policies: [{ id: 'operator_replan', trigger: { kind: 'manual' }, action: { type: 'replan', rationale: 'operator asked' } }],
    });
    await until(h, runId, isStatus(RunStatus.RUN_STATUS_WAITING));
    const r = await replan(h, runId, { plan: { nodes: [transform('a', [1]), gate('gate', ['a']), transform('c', [3], ['a'])] }, policyId: 'operator_replan' });
    expect(r.planVersions.at(-1)).toMatchObject({ version: 2, policyId: 'operator_replan', rationale: 'operator asked' });
    await until(h, runId, (run) => run.status === RunStatus.RUN_STATUS_WAITING && status(run).c === 'completed');
    const fs = await frames(h, runId);
    expect(shape(fs)).toEqual([
      'start',
      'node_start:a',
      'node_complete:a',
      'node_start:gate',
      'hitl_request:gate',
      'policy_triggered',
      'plan_requested',
      'plan_generated',
      'plan_updated',
      'node_start:c',
      'node_complete:c',
    ]);
    expect(fs[5]!.payload).toMatchObject({ policyId: 'operator_replan', key: 'operator_replan@manual:1', trigger: 'manual', action: 'replan', by: 'replan-user' });
    expect(fs[6]!.payload).toEqual({ previousVersion: 1, trigger: { source: 'manual', policyId: 'operator_replan', rationale: 'operator asked' } });
    await call(h.runs.cancelRun({ principal: h.principal, runId, idempotencyKey: '' }));
  });
});

describe('ReplanRun and friends: bad input leaves the run as it was', () => {
  async function snapshot(runId: string) {
    const run = await getRun(h, runId);
    return { version: run.planVersion, status: run.status, nodes: status(run), frames: (await frames(h, runId)).length, versions: await versions(runId) };
  }

  it('a plan that changes or drops a completed node, an invalid graph, a missing input, an unserved action, llm steps without a model, a stale version: INVALID_ARGUMENT / FAILED_PRECONDITION naming the field', async () => {
    const runId = await start(h, { nodes: [work('fetch'), gate('gate', ['fetch'])] });
    await until(h, runId, isStatus(RunStatus.RUN_STATUS_WAITING));
    const before = await snapshot(runId);
    const fetches = hits('fetch');

    const changed = await failure(replan(h, runId, { plan: { nodes: [{ ...work('fetch'), inputs: { id: 'other' } }, gate('gate', ['fetch'])] } }));
    expect(changed.code).toBe('INVALID_ARGUMENT');
    expect(changed.violations).toEqual([{ field: 'plan.nodes[0]', reason: 'changes completed node fetch (inputs): completed nodes are locked', code: 'locked_node' }]);
    expect(changed.message).toContain('changes completed node fetch');

    const dropped = await failure(replan(h, runId, { plan: { nodes: [gate('gate', [])] } }));
    expect(dropped.violations).toEqual([{ field: 'plan.nodes', reason: 'drops completed node fetch: completed nodes are locked (keep it, unchanged)', code: 'locked_node' }]);

    const cycle = await failure(replan(h, runId, { plan: { nodes: [work('fetch'), transform('x', [1], ['y']), transform('y', [1], ['x'])] } }));
    expect(cycle.code).toBe('INVALID_ARGUMENT');
    expect(cycle.violations[0]).toMatchObject({ field: 'plan.nodes[1].dependsOn', code: 'cycle' });

    const needsInput = await failure(replan(h, runId, { plan: { inputs: [{ name: 'org', required: true }], nodes: [work('fetch'), gate('gate', ['fetch'])] } }));
    expect(needsInput.violations).toEqual([{ field: 'plan.inputs.org', reason: 'is required by the new plan but the run has no value for it', code: 'missing_required' }]);

    const foreignTeam = { ...gate('gate', ['fetch']), params: { team_ids: ['a-team-not-mine'], allow_team_decisions: true } };
    const teams = await failure(replan(h, runId, { plan: { nodes: [work('fetch'), foreignTeam] } }));
    expect(teams.violations).toEqual([{ field: 'plan.nodes.gate.params.team_ids[0]', reason: "you are not a member of team 'a-team-not-mine': only your own teams may decide your runs", code: 'not_team_member' }]);

    // StartRun's plan checks hold for a new plan too: no action nothing here serves, no llm steps of a playbook without a model.
    const notify = { id: 'notify', kind: 'tool', action: 'send_notification', inputs: { message: 'fetched' }, params: {}, dependsOn: ['gate'] };
    const unserved = await failure(replan(h, runId, { plan: { nodes: [work('fetch'), gate('gate', ['fetch']), notify] } }));
    expect(unserved.code).toBe('INVALID_ARGUMENT');
    expect(unserved.violations).toEqual([expect.objectContaining({ field: 'plan.nodes.notify.action', code: 'action_unavailable' })]);
    expect(unserved.message).toContain("action 'send_notification' is not available in this deployment");
    const summarise = { id: 'summarise', kind: 'llm', action: 'llm_analyze', inputs: { data: '{fetch}' }, params: { prompt: 'Summarise' }, outputSchema: { type: 'object', properties: { text: { type: 'string' } } }, dependsOn: ['gate'] };
    const noModel = await failure(replan(h, runId, { plan: { provenance: { frontEnd: 'playbook' }, nodes: [work('fetch'), gate('gate', ['fetch']), summarise] } }));
    expect(noModel.code).toBe('FAILED_PRECONDITION');
    expect(noModel.violations).toEqual([expect.objectContaining({ field: 'plan.nodes.summarise', code: 'no_model_configured' })]);

    const stale = await failure(replan(h, runId, { plan: { nodes: [work('fetch'), gate('gate', ['fetch'])] }, expectedPlanVersion: 7 }));
    expect(stale.code).toBe('FAILED_PRECONDITION');
    expect(stale.message).toBe(`run ${runId} is at plan version 1, not 7`);

    const noSource = await failure(replan(h, runId));
    expect(noSource.code).toBe('FAILED_PRECONDITION');
    expect(noSource.message).toContain('was not started from a stored playbook');

    const notManual = await failure(replan(h, runId, { plan: { nodes: [work('fetch'), gate('gate', ['fetch'])] }, policyId: 'nope' }));
    expect(notManual.violations[0]).toMatchObject({ field: 'policy_id', reason: `run ${runId} has no policy nope` });

    expect(await snapshot(runId)).toEqual(before);
    expect(hits('fetch')).toBe(fetches);

    // The same idempotency key replans once.
    const plan = { nodes: [work('fetch'), gate('gate', ['fetch']), transform('z', [1], ['fetch'])] };
    expect((await replan(h, runId, { plan, key: 'once' })).planVersion).toBe(2);
    expect((await replan(h, runId, { plan, key: 'once' })).planVersion).toBe(2);
    expect(await versions(runId)).toBe(2);
    await call(h.runs.cancelRun({ principal: h.principal, runId, idempotencyKey: '' }));
  });

  it('unknown or foreign run ids are NOT_FOUND for every RPC; a finished run cannot be replanned, resumed or cancelled again', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const other = harness(stack, 'someone-else');
    const runId = await start(h, { nodes: [transform('a', [1])] });
    await until(h, runId);
    const p = { principal: h.principal, idempotencyKey: '' };
    for (const id of [unknown, 'not-a-uuid']) {
      for (const attempt of [
        call(h.runs.getRun({ principal: h.principal, runId: id })),
        call(h.runs.cancelRun({ ...p, runId: id })),
        call(h.runs.pauseRun({ ...p, runId: id })),
        call(h.runs.resumeRun({ ...p, runId: id, nodeId: '', decision: orchestrator.Decision.DECISION_UNSPECIFIED, instructions: '' })),
        replan(h, id, { plan: { nodes: [transform('a', [1])] } }),
        call(h.runs.triggerPolicy({ ...p, runId: id, policyId: 'x' })),
      ]) {
        expect((await failure(attempt)).code).toBe('NOT_FOUND');
      }
    }
    expect((await failure(replan(other, runId, { plan: { nodes: [transform('a', [1])] } }))).code).toBe('NOT_FOUND');

    const before = await snapshot(runId);
    const finished = await failure(replan(h, runId, { plan: { nodes: [transform('a', [1]), transform('b', [2])] } }));
    expect(finished.code).toBe('FAILED_PRECONDITION');
    expect(finished.message).toBe(`run ${runId} is completed; only an unfinished run can be replanned`);
    const notPaused = await failure(call(h.runs.resumeRun({ ...p, runId, nodeId: '', decision: orchestrator.Decision.DECISION_UNSPECIFIED, instructions: '' })));
    expect(notPaused.code).toBe('FAILED_PRECONDITION');
    expect(notPaused.message).toBe(`run ${runId} is completed, not paused`);
    const cancelFinished = await failure(call(h.runs.cancelRun({ ...p, runId })));
    expect(cancelFinished.message).toBe(`run ${runId} is already completed`);
    expect(await snapshot(runId)).toEqual(before);
  });

  it('resume of a run that is not paused and cancel twice are refused, the run unchanged', async () => {
    const runId = await start(h, { nodes: [{ id: 'wait', kind: 'delay', params: { seconds: 60 } }] });
    await until(h, runId, isStatus(RunStatus.RUN_STATUS_WAITING));
    const p = { principal: h.principal, idempotencyKey: '' };
    const before = await snapshot(runId);
    const notPaused = await failure(call(h.runs.resumeRun({ ...p, runId, nodeId: '', decision: orchestrator.Decision.DECISION_UNSPECIFIED, instructions: '' })));
    expect(notPaused).toMatchObject({ code: 'FAILED_PRECONDITION', message: `run ${runId} is waiting, not paused` });
    const noGate = await failure(call(h.runs.resumeRun({ ...p, runId, nodeId: 'policy:nothing', decision: orchestrator.Decision.DECISION_APPROVE, instructions: '' })));
    expect(noGate).toMatchObject({ code: 'FAILED_PRECONDITION', message: 'policy gate policy:nothing is not waiting for a decision' });
    expect(await snapshot(runId)).toEqual(before);

    await call(h.runs.cancelRun({ ...p, runId }));
    const cancelled = await snapshot(runId);
    const twice = await failure(call(h.runs.cancelRun({ ...p, runId })));
    expect(twice).toMatchObject({ code: 'FAILED_PRECONDITION', message: `run ${runId} is already cancelled` });
    const replanCancelled = await failure(replan(h, runId, { plan: { nodes: [{ id: 'wait', kind: 'delay', params: { seconds: 60 } }] } }));
    expect(replanCancelled.code).toBe('FAILED_PRECONDITION');
    expect(await snapshot(runId)).toEqual(cancelled);
  });
});

describe('gateway: POST /api/v1/runs/:id/replan', () => {
  it('replans a run with new playbook YAML, refusing bad bodies and locked-step changes with 4xx', async () => {
    const email = 'replan@example.com';
    const password = 'correct horse battery staple';
    expect((await http('POST', `${stack.gatewayUrl}/api/auth/register`, { body: { email, password } })).status).toBe(201);
    const token = (await http('POST', `${stack.gatewayUrl}/api/auth/login`, { body: { email, password } })).body.access_token as string;
    const url = (path: string) => `${stack.gatewayUrl}${path}`;
    const withGate = PLAYBOOK(`  - name: confirm
    step_type: approval
    prompt: "go on?"
`);
    const started = await http('POST', url('/api/v1/runs'), { token, body: { playbook: withGate, inputs: {} } });
    expect(started.status).toBe(201);
    const runId = started.body.run.id as string;
    for (let i = 0; ; i++) {
      const res = await http('GET', url(`/api/v1/runs/${runId}`), { token });
      if (res.body.run.status === 'waiting') break;
      if (i > 200) throw new Error(`run is ${res.body.run.status}`);
      await sleep(50);
    }

    const ok = await http('POST', url(`/api/v1/runs/${runId}/replan`), { token, body: { playbook: withGate + SECOND, rationale: 'more', expected_plan_version: 1 } });
    expect(ok.status).toBe(200);
    expect(ok.body.run).toMatchObject({ plan_version: 2 });
    expect(ok.body.run.nodes.map((n: { node_id: string; status: string }) => [n.node_id, n.status])).toEqual([
      ['first', 'completed'],
      ['confirm', 'waiting'],
      ['second', 'pending'],
    ]);

    const locked = await http('POST', url(`/api/v1/runs/${runId}/replan`), { token, body: { playbook: withGate.replace('{ n: 3 }, ', '') } });
    expect(locked.status).toBe(400);
    expect(JSON.stringify(locked.body)).toContain('changes completed node first');
    const badBody = await http('POST', url(`/api/v1/runs/${runId}/replan`), { token, body: { expected_plan_version: 'two' } });
    expect(badBody.status).toBe(400);
    expect(JSON.stringify(badBody.body)).toContain('expected_plan_version');
    const missing = await http('POST', url('/api/v1/runs/00000000-0000-4000-8000-000000000000/replan'), { token, body: {} });
    expect(missing.status).toBe(404);
    const noAuth = await http('POST', url(`/api/v1/runs/${runId}/replan`), { body: {} });
    expect(noAuth.status).toBe(401);
    expect((await http('GET', url(`/api/v1/runs/${runId}`), { token })).body.run.plan_version).toBe(2);
    await http('POST', url(`/api/v1/runs/${runId}/cancel`), { token });
  });
});
