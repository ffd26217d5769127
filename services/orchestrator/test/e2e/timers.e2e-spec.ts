/**
 * Issue 4 through the orchestrator's gRPC API (separate process, real
 * PostgreSQL and NATS): durable timers for delays and approval timeouts that
 * survive a crash, and invalid graphs refused with field paths.
 */
import { orchestrator, orchestratorEvents } from '@af/contracts';
import { PlanGraphSchema, planToWire } from '@af/plan';
import { AppError, call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { startStack, type Stack } from '@af/testing';

let stack: Stack;
let client: orchestrator.OrchestratorServiceClient;
const principal = { userId: 'timer-user', teamIds: [] };

beforeAll(async () => {
  stack = await startStack({ env: { orchestrator: { RUN_LEASE_MS: '1500' } } });
  client = createGrpcClient('orchestrator', orchestrator.ORCHESTRATOR_SERVICE_NAME, `127.0.0.1:${stack.services.orchestrator.env.GRPC_PORT}`, { auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }) });
});

afterAll(async () => {
  await stack?.stop();
});

const plan = (nodes: unknown[], extra: Record<string, unknown> = {}) => planToWire(PlanGraphSchema.parse({ nodes, ...extra }));

async function start(p: ReturnType<typeof plan>): Promise<string> {
  const { run } = await call(client.startRun({ outputContract: undefined, goalCondition: [], policies: [], principal, plan: p, inputs: {}, idempotencyKey: '', runContext: 'background' }));
  return run!.id;
}

async function until(runId: string, done: (r: orchestrator.Run) => boolean, timeoutMs = 20_000): Promise<orchestrator.Run> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { run } = await call(client.getRun({ principal, runId }));
    if (done(run!)) return run!;
    if (Date.now() > deadline) throw new Error(`run ${runId}: ${orchestrator.runStatusToJSON(run!.status)} ${JSON.stringify(run!.nodes.map((n) => [n.nodeId, n.status]))}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const finished = (r: orchestrator.Run) =>
  [orchestrator.RunStatus.RUN_STATUS_COMPLETED, orchestrator.RunStatus.RUN_STATUS_FAILED, orchestrator.RunStatus.RUN_STATUS_CANCELLED].includes(r.status);

const transform = (id: string, dependsOn: string[] = []) => ({
  id,
  kind: 'tool',
  action: 'transform_data',
  inputs: { data: [3, 1, 2] },
  params: { operations: [{ type: 'sort', direction: 'asc' }] },
  dependsOn,
});

it('a delay parks the run and a durable timer resumes it, even across a crash', async () => {
  const runId = await start(plan([transform('before'), { id: 'wait', kind: 'delay', params: { durationMs: 2500 }, dependsOn: ['before'] }, transform('after', ['wait'])]));
  const parked = await until(runId, (r) => r.status === orchestrator.RunStatus.RUN_STATUS_WAITING);
  expect(parked.nodes.find((n) => n.nodeId === 'wait')!.status).toBe(orchestrator.NodeStatus.NODE_STATUS_WAITING);
  const waitUntil = Date.parse(parked.nodes.find((n) => n.nodeId === 'wait')!.waitUntil);
  expect(waitUntil).toBeGreaterThan(Date.now());

  // The timer lives in PostgreSQL, not in the process.
  await stack.services.orchestrator.kill();
  await stack.services.orchestrator.start();

  const done = await until(runId, finished);
  expect(done.status).toBe(orchestrator.RunStatus.RUN_STATUS_COMPLETED);
  const after = done.nodes.find((n) => n.nodeId === 'after')!;
  expect(Date.parse(after.startedAt)).toBeGreaterThanOrEqual(waitUntil);
  expect(JSON.parse(after.outputJson)).toEqual({ data: [1, 2, 3], count: 3 });
});

it('an approval that nobody decides is skipped when its timeout passes', async () => {
  const runId = await start(
    plan([
      { id: 'gate', kind: 'approval', inputs: { prompt: 'ok?' }, params: { timeout_seconds: 1 } },
      transform('next', ['gate']),
    ]),
  );
  const done = await until(runId, finished);
  expect(done.status).toBe(orchestrator.RunStatus.RUN_STATUS_COMPLETED);
  expect(done.nodes.map((n) => [n.nodeId, n.status, n.skipReason])).toEqual([
    ['gate', orchestrator.NodeStatus.NODE_STATUS_SKIPPED, 'timed_out'],
    ['next', orchestrator.NodeStatus.NODE_STATUS_COMPLETED, ''],
  ]);
});

it('a parallel branch completes while another waits for a person', async () => {
  const runId = await start(plan([{ id: 'gate', kind: 'approval', inputs: { prompt: 'ok?' } }, transform('side'), transform('joined', ['gate', 'side'])]));
  const waiting = await until(runId, (r) => r.status === orchestrator.RunStatus.RUN_STATUS_WAITING);
  expect(waiting.nodes.map((n) => [n.nodeId, n.status])).toEqual([
    ['gate', orchestrator.NodeStatus.NODE_STATUS_WAITING],
    ['side', orchestrator.NodeStatus.NODE_STATUS_COMPLETED],
    ['joined', orchestrator.NodeStatus.NODE_STATUS_PENDING],
  ]);
  await call(client.resumeRun({ principal, runId, nodeId: '', decision: orchestrator.Decision.DECISION_APPROVE, instructions: '', idempotencyKey: '' }));
  const done = await until(runId, finished);
  expect(done.status).toBe(orchestrator.RunStatus.RUN_STATUS_COMPLETED);
});

it('refuses invalid graphs and bad delays with field paths, persisting nothing', async () => {
  const count = async () => Number((await stack.db.query<{ n: string }>('SELECT count(*) AS n FROM orchestrator.runs'))[0]!.n);
  const before = await count();
  const cycle = plan([transform('a', ['b']), transform('b', ['a'])]);
  const err = await call(client.startRun({ outputContract: undefined, goalCondition: [], policies: [], principal, plan: cycle, inputs: {}, idempotencyKey: '', runContext: '' })).catch((e) => e);
  expect(err).toBeInstanceOf(AppError);
  expect(err.code).toBe('INVALID_ARGUMENT');
  expect(err.message).toContain('circular dependency: a → b → a');
  expect(err.violations[0]).toMatchObject({ field: 'plan.nodes[0].dependsOn', code: 'cycle' });
  const unknownDep = plan([transform('a', ['nope'])]);
  const err2 = await call(client.startRun({ outputContract: undefined, goalCondition: [], policies: [], principal, plan: unknownDep, inputs: {}, idempotencyKey: '', runContext: '' })).catch((e) => e);
  expect(err2.code).toBe('INVALID_ARGUMENT');
  expect(err2.violations[0].field).toMatch(/^plan\.nodes\[0\]/);
  const badContext = await call(client.startRun({ outputContract: undefined, goalCondition: [], policies: [], principal, plan: plan([transform('a')]), inputs: {}, idempotencyKey: '', runContext: 'whenever' })).catch((e) => e);
  expect(badContext.violations[0].field).toBe('run_context');
  expect(await count()).toBe(before);

  const unknownRun = await call(client.getRun({ principal, runId: '00000000-0000-4000-8000-000000000000' })).catch((e) => e);
  expect(unknownRun.code).toBe('NOT_FOUND');

  // A delay with no duration fails its node with the reason.
  const runId = await start(plan([{ id: 'wait', kind: 'delay', params: {} }]));
  const done = await until(runId, finished);
  expect(done.status).toBe(orchestrator.RunStatus.RUN_STATUS_FAILED);
  expect(done.nodes[0]!.error).toContain('needs params.durationMs');
});

it('streams a run’s events over gRPC: replay after a seq, then live, ending after complete', async () => {
  const runId = await start(plan([transform('one'), { id: 'pause', kind: 'delay', params: { durationMs: 700 }, dependsOn: ['one'] }, transform('two', ['pause'])]));
  const received: orchestratorEvents.RunEvent[] = [];
  await new Promise<void>((resolve, reject) => {
    client.streamRunEvents({ principal, runId, afterSeq: '1' }).subscribe({
      next: (r) => received.push(r.event!),
      error: reject,
      complete: resolve,
    });
  });
  expect(received.map((e) => Number(e.seq))).toEqual(received.map((_, i) => i + 2));
  expect(received.map((e) => e.type)).toEqual(['node_start', 'node_complete', 'node_start', 'node_complete', 'node_start', 'node_complete', 'complete']);
  expect(received.at(-1)!.payload).toMatchObject({ status: 'completed' });

  // Another user's run is NOT_FOUND; a negative seq is INVALID_ARGUMENT.
  const err = await new Promise<unknown>((resolve) =>
    client.streamRunEvents({ principal: { userId: 'someone-else', teamIds: [] }, runId, afterSeq: '0' }).subscribe({ error: resolve, complete: () => resolve(null) }),
  );
  expect(err).toMatchObject({ code: 5 });
  const bad = await new Promise<unknown>((resolve) =>
    client.streamRunEvents({ principal, runId, afterSeq: '-1' }).subscribe({ error: resolve, complete: () => resolve(null) }),
  );
  expect(bad).toMatchObject({ code: 3 });
});

it('an llm node without a configured model fails with a clear error, never a fake answer', async () => {
  const runId = await start(plan([{ id: 'think', kind: 'llm', action: 'llm_analyze', inputs: { x: 1 }, params: { instructions: 'analyse' }, outputSchema: { type: 'object', fields: [{ name: 'v', type: 'string' }] } }]));
  const done = await until(runId, finished);
  expect(done.status).toBe(orchestrator.RunStatus.RUN_STATUS_FAILED);
  expect(done.nodes[0]!.error).toContain('no LLM is configured');
  expect(done.nodes[0]!.outputJson).toBe('');
});

it('a route takes the first matching branch, skips the others, and a join still runs', async () => {
  const nodes = [
    { id: 'decide', kind: 'route', routes: [{ condition: '{amount} > 100', to: ['big'] }], elseTo: ['small'] },
    { ...transform('big', ['decide']) },
    { ...transform('small', ['decide']) },
    { ...transform('after_small', ['small']) },
    { ...transform('join', ['big', 'small']) },
  ];
  const routed = () => planToWire(PlanGraphSchema.parse({ nodes, inputs: [{ name: 'amount', type: 'number' }] }));
  const startWith = async (amount: number) => {
    const { run } = await call(client.startRun({ outputContract: undefined, goalCondition: [], policies: [], principal, plan: routed(), inputs: { amount }, idempotencyKey: '', runContext: 'background' }));
    return until(run!.id, finished);
  };
  const statusOf = (r: orchestrator.Run) => Object.fromEntries(r.nodes.map((n) => [n.nodeId, [orchestrator.nodeStatusToJSON(n.status).replace('NODE_STATUS_', '').toLowerCase(), n.skipReason]]));

  const big = await startWith(500);
  expect(big.status).toBe(orchestrator.RunStatus.RUN_STATUS_COMPLETED);
  expect(statusOf(big)).toEqual({
    decide: ['completed', ''],
    big: ['completed', ''],
    small: ['skipped', 'route_not_taken'],
    after_small: ['skipped', 'route_not_taken'],
    join: ['completed', ''],
  });
  expect(big.outputs!.decide).toEqual({ route: 0, taken: ['big'] });

  const small = await startWith(5);
  expect(statusOf(small)).toMatchObject({ big: ['skipped', 'route_not_taken'], small: ['completed', ''], after_small: ['completed', ''], join: ['completed', ''] });
  expect(small.outputs!.decide).toEqual({ route: 'else', taken: ['small'] });
});

it('refuses a route whose target does not depend on it', async () => {
  const bad = plan([{ id: 'decide', kind: 'route', routes: [{ condition: 'true', to: ['loose'] }] }, transform('loose')]);
  const err = await call(client.startRun({ outputContract: undefined, goalCondition: [], policies: [], principal, plan: bad, inputs: {}, idempotencyKey: '', runContext: '' })).catch((e) => e);
  expect(err.code).toBe('INVALID_ARGUMENT');
  expect(err.violations[0]).toMatchObject({ field: 'plan.nodes[0].routes[0].to[0]', code: 'invalid_route' });
});
