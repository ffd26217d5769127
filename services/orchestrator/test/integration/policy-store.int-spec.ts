/**
 * Plan versions and policy firings against real PostgreSQL (bus: the
 * in-process one): the replan transaction (locked nodes, fencing by the
 * lease, idempotency, state untouched on refusal), firings with their frames
 * in one fenced statement, and the onTimeout policy timer that parks and wakes
 * a run.
 */
import { PlanGraphSchema } from '@af/plan';
import { ServiceKit, sqlRows } from '@af/service-kit';
import { createTestDatabase, type TestDatabase } from '@af/testing';
import { orchestratorEnvSchema, type OrchestratorConfig } from '../../src/config.js';
import { ORCHESTRATOR_MIGRATIONS } from '../../src/infra/migrations/index.js';
import { PolicyStore } from '../../src/infra/policy.store.js';
import { LeaseLostError, RunExecutionStore } from '../../src/infra/run-execution.store.js';
import { RunMaintenance } from '../../src/infra/run-maintenance.js';
import { RunRepository } from '../../src/infra/run.repository.js';

let db: TestDatabase;
let kit: ServiceKit<OrchestratorConfig>;
let repo: RunRepository;
let store: RunExecutionStore;
let policies: PolicyStore;
let maintenance: RunMaintenance;

const node = (id: string, dependsOn: string[] = [], inputs: Record<string, unknown> = {}) => ({ id, kind: 'tool', action: 'transform_data', inputs, dependsOn });
const v1 = PlanGraphSchema.parse({ nodes: [node('a'), node('b', ['a'])] });
const v2 = PlanGraphSchema.parse({ nodes: [node('a'), node('b', ['a'], { x: 1 }), node('c', ['a'])] });

beforeAll(async () => {
  db = await createTestDatabase();
  kit = await ServiceKit.start({
    name: 'orchestrator',
    envSchema: orchestratorEnvSchema,
    env: { SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789', DATABASE_URL: db.url, NATS_URL: 'memory://policy-store-test', CONNECTOR_RUNTIME_URL: '127.0.0.1:1', METRICS_PORT: '0', LOG_LEVEL: 'silent' },
    migrations: ORCHESTRATOR_MIGRATIONS,
  });
  repo = new RunRepository(kit);
  store = new RunExecutionStore(kit);
  policies = new PolicyStore(kit);
  maintenance = new RunMaintenance(kit, repo);
});

afterAll(async () => {
  await kit?.close();
  await db?.drop();
});

const create = (extra: Partial<Parameters<RunRepository['create']>[0]> = {}) =>
  repo.create({ userId: 'u1', plan: v1, inputs: {}, runContext: 'interactive', idempotencyKey: null, ...extra });

async function completeA(runId: string, owner = 'A'): Promise<void> {
  await store.acquireLease(runId, owner, 60_000);
  await store.nodeStarted(runId, owner, 'a', 1, {});
  await store.nodeCompleted(runId, owner, 'a', { done: true }, { attempt: 1 });
}

it('stores version 1 at create and version N+1 on replan: locked node kept, changed node reset, new node pending; a running run is handed back to the queue', async () => {
  const { run } = await create();
  await completeA(run.id);
  await store.nodeStarted(run.id, 'A', 'b', 1, {});
  const outcome = await policies.replan(run.id, { plan: v2, trigger: 'api', rationale: 'why not' });
  expect(outcome).toMatchObject({ kind: 'replanned', version: 2, previousVersion: 1, queued: true, change: { locked: ['a'], reset: ['b'], insert: ['c'] } });
  const after = await repo.get(run.id);
  expect(after).toMatchObject({ status: 'queued', planVersion: 2 });
  expect(after!.plan.version).toBe(2);
  expect(after!.plan.nodes.map((n) => n.id)).toEqual(['a', 'b', 'c']);
  expect([...(await repo.nodeStates(run.id)).values()].map((n) => [n.nodeId, n.status, n.attempt]).sort()).toEqual([
    ['a', 'completed', 1],
    ['b', 'pending', 1],
    ['c', 'pending', 0],
  ]);
  expect((await repo.outputs(run.id)).get('a')).toEqual({ done: true });
  expect((await policies.planVersions(run.id)).map((v) => [v.version, v.source, v.rationale])).toEqual([
    [1, 'start', null],
    [2, 'replan', 'why not'],
  ]);
  expect((await repo.events(run.id, 0)).map((e) => e.type).slice(-3)).toEqual(['plan_requested', 'plan_generated', 'plan_updated']);
  // The old owner is fenced off.
  await expect(store.nodeCompleted(run.id, 'A', 'b', {}, {})).rejects.toBeInstanceOf(LeaseLostError);
  const work = await sqlRows(kit.db, `SELECT msg_id FROM outbox WHERE msg_id = $1`, [`work:${run.id}:replan:2`]);
  expect(work).toHaveLength(1);
});

it('refuses (and changes nothing) when a completed node would change; the same idempotency key replans once', async () => {
  const { run } = await create();
  await completeA(run.id);
  const changedA = PlanGraphSchema.parse({ nodes: [node('a', [], { y: 2 }), node('b', ['a'])] });
  const events = (await repo.events(run.id, 0)).length;
  const refused = await policies.replan(run.id, { plan: changedA, trigger: 'api' });
  expect(refused).toEqual({ kind: 'rejected', version: 1, violations: [{ field: 'plan.nodes[0]', reason: 'changes completed node a (inputs): completed nodes are locked', code: 'locked_node' }] });
  expect((await repo.events(run.id, 0)).length).toBe(events);
  expect((await repo.get(run.id))!.planVersion).toBe(1);
  expect(await policies.planVersions(run.id)).toHaveLength(1);

  expect(await policies.replan(run.id, { plan: v2, trigger: 'api', idempotencyKey: 'same' })).toMatchObject({ kind: 'replanned', version: 2 });
  expect(await policies.replan(run.id, { plan: v2, trigger: 'api', idempotencyKey: 'same' })).toEqual({ kind: 'duplicate', version: 2 });
  expect(await policies.planVersions(run.id)).toHaveLength(2);
});

it('the executor side is fenced by the lease; the request side refuses finished runs', async () => {
  const { run } = await create();
  await completeA(run.id, 'A');
  await expect(policies.replan(run.id, { plan: v2, trigger: 'policy', owner: 'B' })).rejects.toBeInstanceOf(LeaseLostError);
  expect((await repo.get(run.id))!.planVersion).toBe(1);
  expect(await policies.replan(run.id, { plan: v2, trigger: 'policy', owner: 'A' })).toMatchObject({ kind: 'replanned', queued: false });
  expect((await repo.get(run.id))!.status).toBe('running');
  await repo.cancel(run.id);
  await expect(policies.replan(run.id, { plan: v2, trigger: 'api' })).rejects.toMatchObject({ code: 'FAILED_PRECONDITION', message: `run ${run.id} is cancelled; only an unfinished run can be replanned` });
});

it('a firing and its frames are one fenced statement; a pending firing is applied with a pause', async () => {
  const { run } = await create();
  await store.acquireLease(run.id, 'A', 60_000);
  const firing = { key: 'p@a', policyId: 'p', trigger: { kind: 'onNodeComplete' }, action: { type: 'pause' }, status: 'pending' as const };
  await expect(store.policyFired(run.id, 'B', firing, [{ type: 'policy_triggered', payload: {} }])).rejects.toBeInstanceOf(LeaseLostError);
  expect(await policies.firings(run.id)).toEqual([]);
  await store.policyFired(run.id, 'A', firing, [{ type: 'policy_triggered', payload: { policyId: 'p' } }], { nodeId: 'a', gateId: 'policy:p@a' });
  expect((await policies.firings(run.id)).map((f) => [f.key, f.status])).toEqual([['p@a', 'pending']]);
  expect((await repo.nodeStates(run.id)).get('policy:p@a')!.status).toBe('waiting');
  const last = (await repo.events(run.id, 0)).at(-1)!;
  expect([last.type, last.nodeId]).toEqual(['policy_triggered', 'a']);
  await store.policyApplied(run.id, 'A', 'p@a', [{ type: 'log', payload: { event: 'paused' } }], { pause: true });
  expect((await repo.get(run.id))!.status).toBe('paused');
  expect((await policies.firings(run.id)).map((f) => f.status)).toEqual(['applied']);
  // The gate is not a plan node: GetRun's nodes do not show it.
  expect((await repo.view(run.id))!.nodes.map((n) => n.nodeId)).toEqual(['a', 'b']);
});

it('an onTimeout policy timer keeps a run from parking once due, and wakes a parked run', async () => {
  const { run } = await create({ policies: [{ id: 't', enabled: true, trigger: { kind: 'onTimeout', ms: 60_000 }, action: { type: 'fail' } }], policyTimeoutMs: 60_000 });
  expect((await repo.get(run.id))!.policyTimer!.getTime()).toBeGreaterThan(Date.now() + 50_000);
  await store.acquireLease(run.id, 'A', 60_000);
  expect(await store.park(run.id, 'A')).toBe(true);
  expect(await maintenance.dueTimers(10)).not.toContain(run.id);
  await sqlRows(kit.db, `UPDATE runs SET policy_timer = now() - interval '1 second' WHERE id = $1`, [run.id]);
  expect(await maintenance.dueTimers(10)).toContain(run.id);
  expect((await repo.get(run.id))!.status).toBe('queued');
  await store.acquireLease(run.id, 'A', 60_000);
  expect(await store.park(run.id, 'A')).toBe(false);
});
