/**
 * RunRepository against real PostgreSQL (bus: the in-process one; the
 * JetStream path is covered by service-kit and the e2e tests).
 */
import { PlanGraphSchema } from '@af/plan';
import { ServiceKit, sqlRows } from '@af/service-kit';
import { createTestDatabase, type TestDatabase } from '@af/testing';
import { orchestratorEnvSchema, type OrchestratorConfig } from '../../src/config.js';
import { ORCHESTRATOR_MIGRATIONS } from '../../src/infra/migrations/index.js';
import { LeaseLostError, RunExecutionStore } from '../../src/infra/run-execution.store.js';
import { RunMaintenance } from '../../src/infra/run-maintenance.js';
import { RunRepository } from '../../src/infra/run.repository.js';

let db: TestDatabase;
let kit: ServiceKit<OrchestratorConfig>;
let repo: RunRepository;
let store: RunExecutionStore;
let maintenance: RunMaintenance;

const plan = PlanGraphSchema.parse({ nodes: [{ id: 'a', kind: 'tool' }, { id: 'b', kind: 'tool', dependsOn: ['a'] }] });

beforeAll(async () => {
  db = await createTestDatabase();
  kit = await ServiceKit.start({
    name: 'orchestrator',
    envSchema: orchestratorEnvSchema,
    env: { SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789', DATABASE_URL: db.url, NATS_URL: 'memory://run-repo-test', CONNECTOR_RUNTIME_URL: '127.0.0.1:1', METRICS_PORT: '0', LOG_LEVEL: 'silent' },
    migrations: ORCHESTRATOR_MIGRATIONS,
  });
  repo = new RunRepository(kit);
  store = new RunExecutionStore(kit);
  maintenance = new RunMaintenance(kit, repo);
});

afterAll(async () => {
  await kit?.close();
  await db?.drop();
});

const create = (key: string | null = null) => repo.create({ userId: 'u1', plan, inputs: {}, runContext: 'interactive', idempotencyKey: key });

it('creates a run with pending nodes, a start frame and a work item in one transaction', async () => {
  const { run, created } = await create();
  expect(created).toBe(true);
  expect(run.status).toBe('queued');
  expect([...(await repo.nodeStates(run.id)).values()].map((n) => [n.nodeId, n.status])).toEqual([
    ['a', 'pending'],
    ['b', 'pending'],
  ]);
  expect((await repo.events(run.id, 0)).map((e) => [e.seq, e.type])).toEqual([[1, 'start']]);
  const outbox = await sqlRows(kit.db, 'SELECT subject, msg_id FROM outbox ORDER BY id');
  expect(outbox.map((r) => r.msg_id)).toEqual([`run:${run.id}:1`, `work:${run.id}:start`]);
});

it("keeps the starting principal's teams with the run (each once); runs started without carry none", async () => {
  const { run } = await repo.create({ userId: 'u1', teamIds: ['red', 'blue', 'red'], plan, inputs: {}, runContext: 'interactive', idempotencyKey: null });
  expect(run.teamIds).toEqual(['red', 'blue']);
  expect((await repo.get(run.id))!.teamIds).toEqual(['red', 'blue']);
  expect((await create()).run.teamIds).toEqual([]);
});

it('returns the same run for the same idempotency key', async () => {
  const a = await create('k-1');
  const b = await create('k-1');
  expect(b.created).toBe(false);
  expect(b.run.id).toBe(a.run.id);
  expect(Number((await sqlRows(kit.db, 'SELECT count(*) AS n FROM runs WHERE idempotency_key = $1', ['k-1']))[0].n)).toBe(1);
});

it('gives the lease to one owner at a time, and fences a owner whose lease was taken over', async () => {
  const { run } = await create();
  expect(await store.acquireLease(run.id, 'A', 60_000)).not.toBeNull();
  expect(await store.acquireLease(run.id, 'B', 60_000)).toBeNull();
  await store.nodeStarted(run.id, 'A', 'a', 1, {});

  // A stalls; its lease lapses; B takes over.
  await sqlRows(kit.db, `UPDATE runs SET lease_until = now() - interval '1 second' WHERE id = $1`, [run.id]);
  expect(await maintenance.orphans(0, 10)).toContain(run.id);
  expect(await store.acquireLease(run.id, 'B', 60_000)).not.toBeNull();
  expect(await store.renewLease(run.id, 'A', 60_000)).toBe(false);
  await expect(store.nodeCompleted(run.id, 'A', 'a', { x: 1 }, {})).rejects.toBeInstanceOf(LeaseLostError);
  expect((await repo.nodeStates(run.id)).get('a')!.status).toBe('running');

  await store.nodeCompleted(run.id, 'B', 'a', { x: 2 }, {});
  expect((await repo.outputs(run.id)).get('a')).toEqual({ x: 2 });
  const seqs = (await repo.events(run.id, 0)).map((e) => e.seq);
  expect(seqs).toEqual([1, 2, 3]);
});

it('cancels once, then refuses; a cancelled run cannot be leased or written', async () => {
  const { run } = await create();
  await store.acquireLease(run.id, 'A', 60_000);
  expect(await repo.cancel(run.id)).toBe(true);
  expect(await repo.cancel(run.id)).toBe(false);
  expect(await store.acquireLease(run.id, 'A', 60_000)).toBeNull();
  await expect(store.nodeStarted(run.id, 'A', 'a', 1, {})).rejects.toBeInstanceOf(LeaseLostError);
  const view = await repo.view(run.id);
  expect(view!.status).toBe('cancelled');
  expect(view!.nodes.every((n) => n.status === 'cancelled')).toBe(true);
  expect((await repo.events(run.id, 0)).map((e) => e.type)).toEqual(['start', 'complete']);
});

it('keeps per-run sequence numbers gap-free under concurrent writers of one owner', async () => {
  const wide = PlanGraphSchema.parse({ nodes: Array.from({ length: 20 }, (_, i) => ({ id: `n${i}`, kind: 'tool' })) });
  const { run } = await repo.create({ userId: 'u1', plan: wide, inputs: {}, runContext: 'interactive', idempotencyKey: null });
  await store.acquireLease(run.id, 'A', 60_000);
  await Promise.all(wide.nodes.map((n) => store.nodeStarted(run.id, 'A', n.id, 1, {})));
  const seqs = (await repo.events(run.id, 0)).map((e) => e.seq);
  expect(seqs).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
});

it('purges node outputs of long-finished runs only', async () => {
  const done = await create();
  const live = await create();
  for (const { run } of [done, live]) {
    await store.acquireLease(run.id, 'P', 60_000);
    await store.nodeStarted(run.id, 'P', 'a', 1, {});
    await store.nodeCompleted(run.id, 'P', 'a', { big: 'x'.repeat(100) }, {});
  }
  await store.finish(done.run.id, 'P', 'completed', null, {});
  await sqlRows(kit.db, `UPDATE runs SET updated_at = now() - interval '2 hours' WHERE id = ANY($1::uuid[])`, [[done.run.id, live.run.id]]);
  expect(await maintenance.purgeOutputs(3600_000)).toBe(1);
  expect((await repo.outputs(done.run.id)).size).toBe(0);
  expect((await repo.outputs(live.run.id)).get('a')).toEqual({ big: 'x'.repeat(100) });
  // The event log (metadata) stays.
  expect((await repo.events(done.run.id, 0)).length).toBeGreaterThan(2);
});

describe('map iterations', () => {
  it('stores the items and a pending row per instance in one fenced statement; a retry resets what did not complete', async () => {
    const { run } = await create();
    await store.acquireLease(run.id, 'M', 60_000);
    await store.nodeStarted(run.id, 'M', 'a', 1, {});
    await store.mapPrepared(run.id, 'M', 'a', { key: 'a#items', value: { attempt: 1, items: [1, 2], total: 3 } }, ['x[0]', 'x[1]'], [], {
      type: 'log',
      payload: { event: 'map_truncated', total: 3, maxIterations: 2 },
    });
    expect((await repo.outputs(run.id)).get('a#items')).toEqual({ attempt: 1, items: [1, 2], total: 3 });
    const states = await repo.nodeStates(run.id);
    expect(['x[0]', 'x[1]'].map((id) => states.get(id)!.status)).toEqual(['pending', 'pending']);
    const events = await repo.events(run.id, 0);
    expect(events.at(-1)).toMatchObject({ type: 'log', nodeId: 'a', payload: { event: 'map_truncated' } });

    await store.nodeStarted(run.id, 'M', 'x[0]', 1, {});
    await store.nodeCompleted(run.id, 'M', 'x[0]', 10, { attempt: 1 });
    await store.nodeStarted(run.id, 'M', 'x[1]', 1, {});
    await store.nodeEnded(run.id, 'M', 'x[1]', 'failed', 'boom', {});
    // Attempt 2: same instances; the failed one starts over, the completed one stays.
    await store.mapPrepared(run.id, 'M', 'a', { key: 'a#items', value: { attempt: 2, items: [1, 2], total: 3 } }, ['x[0]', 'x[1]'], ['x[1]'], null);
    const after = await repo.nodeStates(run.id);
    expect([after.get('x[0]')!.status, after.get('x[1]')!.status, after.get('x[1]')!.error, after.get('x[1]')!.attempt]).toEqual(['completed', 'pending', null, 1]);
    expect((await repo.events(run.id, 0)).length).toBe(events.length + 4);

    const view = await repo.view(run.id);
    expect(view!.nodes.map((n) => n.nodeId)).toEqual(['a', 'b']);
    expect(view!.iterations.map((n) => n.nodeId)).toEqual([]); // 'x' is not a node of this plan
    await store.instancesCancelled(run.id, 'M', 'a', ['x[0]', 'x[1]']);
    expect([...(await repo.nodeStates(run.id)).values()].filter((s) => s.nodeId.startsWith('x')).map((s) => s.status).sort()).toEqual(['cancelled', 'completed']);
    await expect(store.mapPrepared(run.id, 'other-owner', 'a', { key: 'a#items', value: {} }, [], [], null)).rejects.toBeInstanceOf(LeaseLostError);
  });
});

describe('subflows', () => {
  const child = async (parentId: string, nodeId = 'a') =>
    (await repo.create({ userId: 'u1', plan, inputs: {}, runContext: 'background', idempotencyKey: `child-of-${parentId}-${nodeId}`, parent: { runId: parentId, nodeId, depth: 1 } })).run;

  it('a child run records its parent; the same key finds the same child', async () => {
    const { run: parent } = await create();
    const c = await child(parent.id);
    expect([c.parentRunId, c.parentNodeId, c.depth]).toEqual([parent.id, 'a', 1]);
    expect((await child(parent.id)).id).toBe(c.id);
    expect((await repo.events(c.id, 0))[0]!.payload).toMatchObject({ parentRunId: parent.id, parentNodeId: 'a' });
  });

  it("a child's finish queues its parked parent with a work item in the same statement; park refuses while a child has finished", async () => {
    const { run: parent } = await create();
    await store.acquireLease(parent.id, 'P', 60_000);
    const c = await child(parent.id);
    await store.nodeStarted(parent.id, 'P', 'a', 1, {});
    await store.nodeWaiting(parent.id, 'P', 'a', new Date(Date.now() + 60_000), { type: 'subflow_started', payload: { childRunId: c.id } }, c.id);
    expect((await repo.nodeStates(parent.id)).get('a')!.childRunId).toBe(c.id);
    expect(await store.park(parent.id, 'P')).toBe(true);
    expect((await repo.get(parent.id))!.status).toBe('waiting');

    await store.acquireLease(c.id, 'C', 60_000);
    await store.finish(c.id, 'C', 'completed', null, {});
    expect((await repo.get(parent.id))!.status).toBe('queued');
    const work = await sqlRows(kit.db, `SELECT subject, payload, msg_id FROM outbox WHERE msg_id = $1`, [`work:${parent.id}:child:${c.id}`]);
    expect(work).toHaveLength(1);
    expect(work[0].subject).toBe(kit.subjects.runWork(parent.id));
    expect(work[0].payload).toEqual({ runId: parent.id });
    expect((await repo.waitingStates(parent.id)).get('a')!.childStatus).toBe('completed');

    // Leased again, it cannot park: the child it waits for is done.
    await store.acquireLease(parent.id, 'P', 60_000);
    expect(await store.park(parent.id, 'P')).toBe(false);
  });

  it('adds the active time of each lease that stops or parks to the run (active_ms); a refused release or park adds nothing', async () => {
    const { run } = await create();
    expect((await repo.get(run.id))!.activeMs).toBe(0);
    await store.acquireLease(run.id, 'P', 60_000);
    // Not the owner: nothing changes.
    await store.releaseLease(run.id, 'someone-else', 9_000);
    expect((await repo.get(run.id))!.activeMs).toBe(0);
    await store.releaseLease(run.id, 'P', 300.4);
    expect((await repo.get(run.id))!.activeMs).toBe(300);
    // A negative span (clock skew) adds nothing.
    await store.acquireLease(run.id, 'P', 60_000);
    await store.releaseLease(run.id, 'P', -40);
    // The leased run reads its active time back; parking adds the lease's.
    const leased = await store.leaseWithState(run.id, 'P', 60_000);
    expect(leased!.run.activeMs).toBe(300);
    await store.nodeStarted(run.id, 'P', 'a', 1, {});
    await store.nodeWaiting(run.id, 'P', 'a', new Date(Date.now() + 60_000), { type: 'log', payload: {} });
    expect(await store.park(run.id, 'P', true, 1_250)).toBe(true);
    expect((await repo.get(run.id))!.activeMs).toBe(1_550);
  });

  it('a park refused because a wait became resolvable adds no active time', async () => {
    const { run } = await create();
    await store.acquireLease(run.id, 'P', 60_000);
    await store.nodeStarted(run.id, 'P', 'a', 1, {});
    // Already due: the run must keep executing.
    await store.nodeWaiting(run.id, 'P', 'a', new Date(Date.now() - 1_000), { type: 'log', payload: {} });
    expect(await store.park(run.id, 'P', false, 5_000)).toBe(false);
    expect((await repo.get(run.id))!.activeMs).toBe(0);
  });

  it('reconciles a parked parent whose child finished but whose wake-up was lost', async () => {
    const { run: parent } = await create();
    await store.acquireLease(parent.id, 'P', 60_000);
    const c = await child(parent.id);
    await store.nodeStarted(parent.id, 'P', 'a', 1, {});
    await store.nodeWaiting(parent.id, 'P', 'a', null, null, c.id);
    await store.park(parent.id, 'P');
    // The child ends behind the engine's back (as if its wake-up never happened).
    await sqlRows(kit.db, `UPDATE runs SET status = 'failed' WHERE id = $1`, [c.id]);
    expect(await maintenance.strandedParents(100)).toEqual([parent.id]);
    expect((await repo.get(parent.id))!.status).toBe('queued');
    expect(await maintenance.strandedParents(100)).toEqual([]);
  });

  it('cancel cascades to every unfinished descendant and wakes a parked parent', async () => {
    const { run: root } = await create();
    const mid = await child(root.id);
    const leaf = (await repo.create({ userId: 'u1', plan, inputs: {}, runContext: 'background', idempotencyKey: `leaf-${mid.id}`, parent: { runId: mid.id, nodeId: 'b', depth: 2 } })).run;
    expect(await repo.cancel(root.id)).toBe(true);
    for (const id of [root.id, mid.id, leaf.id]) expect((await repo.get(id))!.status).toBe('cancelled');
    expect((await repo.events(leaf.id, 0)).map((e) => [e.type, e.payload.reason ?? null])).toEqual([
      ['start', null],
      ['complete', 'parent_cancelled'],
    ]);

    const { run: parent } = await create();
    const c = await child(parent.id);
    await store.acquireLease(parent.id, 'P', 60_000);
    await store.nodeStarted(parent.id, 'P', 'a', 1, {});
    await store.nodeWaiting(parent.id, 'P', 'a', null, null, c.id);
    await store.park(parent.id, 'P');
    expect(await repo.cancel(c.id, 'by_user')).toBe(true);
    expect((await repo.get(parent.id))!.status).toBe('queued');
  });

  it('finds unfinished children of finished parents', async () => {
    const { run: parent } = await create();
    const c = await child(parent.id);
    expect(await repo.activeChildren(parent.id)).toEqual([c.id]);
    await sqlRows(kit.db, `UPDATE runs SET status = 'failed' WHERE id = $1`, [parent.id]);
    expect(await maintenance.cancelOrphanChildren(100)).toContain(c.id);
    expect((await repo.get(c.id))!.status).toBe('cancelled');
    expect(await repo.activeChildren(parent.id)).toEqual([]);
  });
});

describe('rollback bookkeeping', () => {
  it('orders completions by their node_complete frame, without cached or skipped ones; progress is durable', async () => {
    const wide = PlanGraphSchema.parse({ nodes: ['p', 'q', 'r', 's'].map((id) => ({ id, kind: 'tool' })) });
    const { run } = await repo.create({ userId: 'u1', plan: wide, inputs: {}, runContext: 'interactive', idempotencyKey: null });
    await store.acquireLease(run.id, 'R', 60_000);
    await store.nodeCompleted(run.id, 'R', 'q', 1, { attempt: 1 }, undefined, { attempt: 1 });
    await store.nodeCompleted(run.id, 'R', 'p', 2, { attempt: 1 }, undefined, { attempt: 1 });
    await store.nodeCompleted(run.id, 'R', 'r', 3, { attempt: 1, cached: true });
    await store.nodeEnded(run.id, 'R', 's', 'skipped', null, { skipped: true }, 'condition_false');
    const completions = await store.completions(run.id, 'R');
    expect([...completions.keys()].sort()).toEqual(['p', 'q']);
    expect(completions.get('p')! > completions.get('q')!).toBe(true);

    await store.rollbackStarted(run.id, 'R', { failedNodeId: 's', error: 'boom', order: ['p', 'q'] }, { nodes: ['p', 'q'] });
    expect((await repo.get(run.id))!.rollback).toEqual({ failedNodeId: 's', error: 'boom', order: ['p', 'q'] });
    await store.nodeRolledBack(run.id, 'R', 'p', true, {});
    await store.nodeRolledBack(run.id, 'R', 'q', false, { error: 'nope' });
    const states = await repo.nodeStates(run.id);
    expect([states.get('p')!.rollbackStatus, states.get('q')!.rollbackStatus, states.get('r')!.rollbackStatus]).toEqual(['done', 'failed', null]);
    expect((await repo.events(run.id, 0)).slice(-3).map((e) => [e.type, e.nodeId ?? null, e.payload.ok ?? null])).toEqual([
      ['rollback_started', null, null],
      ['node_rolled_back', 'p', true],
      ['node_rolled_back', 'q', false],
    ]);
  });
});

describe('leaseWithState', () => {
  it('takes the lease and reads node states (waiting ones with their child run status) and outputs as of that statement', async () => {
    const { run } = await create();
    const leased = await store.leaseWithState(run.id, 'L', 60_000);
    expect(leased!.run).toMatchObject({ id: run.id, status: 'running' });
    expect([...leased!.states.values()].map((s) => [s.nodeId, s.status])).toEqual([
      ['a', 'pending'],
      ['b', 'pending'],
    ]);
    expect(leased!.outputs.size).toBe(0);

    const { run: child } = await repo.create({ userId: 'u1', plan, inputs: {}, runContext: 'background', idempotencyKey: `lws-${run.id}`, parent: { runId: run.id, nodeId: 'b', depth: 1 } });
    await store.nodeCompleted(run.id, 'L', 'a', { x: [1, 'two'] }, { attempt: 1 }, undefined, { attempt: 1 });
    await store.nodeStarted(run.id, 'L', 'b', 1, {});
    const until = new Date(Date.now() + 60_000);
    await store.nodeWaiting(run.id, 'L', 'b', until, null, child.id);
    const again = await store.leaseWithState(run.id, 'L', 60_000);
    const a = again!.states.get('a')!;
    expect([a.status, a.attempt, a.startedAt instanceof Date, a.finishedAt instanceof Date]).toEqual(['completed', 1, true, true]);
    expect(again!.outputs.get('a')).toEqual({ x: [1, 'two'] });
    const b = again!.waiting.get('b')!;
    expect([b.status, b.childRunId, b.childStatus, b.waitUntil!.getTime()]).toEqual(['waiting', child.id, 'queued', until.getTime()]);
    // The same shape as the separate reads.
    expect(again!.states).toEqual(await repo.nodeStates(run.id));
    expect(await store.leaseWithState(run.id, 'other', 60_000)).toBeNull();
  });
});

it("the finish names the run's children still unfinished, read by the same statement", async () => {
  const { run: parent } = await create();
  await store.acquireLease(parent.id, 'F', 60_000);
  const kid = (n: string) => repo.create({ userId: 'u1', plan, inputs: {}, runContext: 'background', idempotencyKey: `fin-${parent.id}-${n}`, parent: { runId: parent.id, nodeId: 'a', depth: 1 } });
  const { run: open } = await kid('open');
  const { run: done } = await kid('done');
  await sqlRows(kit.db, `UPDATE runs SET status = 'completed' WHERE id = $1`, [done.id]);
  expect(await store.finish(parent.id, 'F', 'completed', null, {})).toEqual([open.id]);
  const { run: lonely } = await create();
  await store.acquireLease(lonely.id, 'F', 60_000);
  expect(await store.finish(lonely.id, 'F', 'failed', 'x', {})).toEqual([]);
});

describe('creating a run with a local claim', () => {
  const claims: string[] = [];
  const claiming = (owner = 'here') => () => ({
    owner,
    leaseMs: 60_000,
    start: (leased: { run: { id: string; status: string }; states: Map<string, { status: string }> }) =>
      claims.push(`start ${leased.run.status} ${[...leased.states.values()].map((s) => s.status).join(',')}`),
    abandon: () => claims.push('abandon'),
  });

  afterEach(() => {
    repo.claimLocally(() => null);
    claims.length = 0;
  });

  it('creates it running and leased to this replica, and starts it with all nodes pending, without a work item (the sweeper covers a crash)', async () => {
    repo.claimLocally(claiming() as never);
    const { run, created } = await repo.create({ userId: 'u1', plan, inputs: {}, runContext: 'interactive', idempotencyKey: 'claimed-1' });
    expect([created, run.status]).toEqual([true, 'running']);
    expect(claims).toEqual(['start running pending,pending']);
    const [row] = await sqlRows(kit.db, 'SELECT lease_owner, lease_until > now() AS leased FROM runs WHERE id = $1', [run.id]);
    expect(row).toEqual({ lease_owner: 'here', leased: true });
    expect((await sqlRows(kit.db, 'SELECT msg_id FROM outbox WHERE msg_id LIKE $1', [`%${run.id}%`])).map((r) => r.msg_id)).toEqual([`run:${run.id}:1`]);
    // Another replica cannot take it while the lease holds.
    expect(await store.acquireLease(run.id, 'elsewhere', 60_000)).toBeNull();
    expect(await store.acquireLease(run.id, 'here', 60_000)).not.toBeNull();
  });

  it('creates it queued with a work item when the replica has no room', async () => {
    repo.claimLocally(() => null);
    const { run } = await repo.create({ userId: 'u1', plan, inputs: {}, runContext: 'interactive', idempotencyKey: 'unclaimed-1' });
    expect(run.status).toBe('queued');
    expect(claims).toEqual([]);
    expect((await sqlRows(kit.db, 'SELECT msg_id FROM outbox WHERE msg_id LIKE $1 ORDER BY id', [`%${run.id}%`])).map((r) => r.msg_id)).toEqual([`run:${run.id}:1`, `work:${run.id}:start`]);
  });

  it('gives the slot back when an earlier call already created the run, or when the statement fails', async () => {
    repo.claimLocally(claiming() as never);
    await repo.create({ userId: 'u1', plan, inputs: {}, runContext: 'interactive', idempotencyKey: 'claimed-2' });
    claims.length = 0;
    const again = await repo.create({ userId: 'u1', plan, inputs: {}, runContext: 'interactive', idempotencyKey: 'claimed-2' });
    expect(again.created).toBe(false);
    expect(claims).toEqual(['abandon']);
    claims.length = 0;
    await expect(repo.create({ userId: 'u1', plan, inputs: {}, runContext: 'interactive', idempotencyKey: null, parent: { runId: '00000000-0000-4000-8000-000000000000', nodeId: 'a', depth: 1 } })).rejects.toThrow();
    expect(claims).toEqual(['abandon']);
  });
});

describe('{last_execution_date}: the start of the owner\'s last finished run of the same stored playbook', () => {
  const fromPlaybook = (sourceId: string) => PlanGraphSchema.parse({ ...plan, provenance: { frontEnd: 'playbook', sourceId } });
  const start = (userId: string, p = fromPlaybook('pb-daily')) => repo.create({ userId, plan: p, inputs: {}, runContext: 'scheduled', idempotencyKey: null });
  const finish = (runId: string, status: string) => sqlRows(kit.db, 'UPDATE runs SET status = $2 WHERE id = $1', [runId, status]);

  it('is null for the first run, then the start of the latest finished one (running ones do not count)', async () => {
    const first = (await start('lx-user')).run;
    expect(first.lastExecutionAt).toBeNull();
    // Still running: not a finished run.
    expect((await start('lx-user')).run.lastExecutionAt).toBeNull();
    await finish(first.id, 'completed');
    const second = (await start('lx-user')).run;
    expect(second.lastExecutionAt?.toISOString()).toBe(first.createdAt.toISOString());
    await finish(second.id, 'failed');
    const third = (await start('lx-user')).run;
    expect(third.lastExecutionAt?.toISOString()).toBe(second.createdAt.toISOString());
    // Read back as the executor reads it.
    expect((await repo.get(third.id))!.lastExecutionAt?.toISOString()).toBe(second.createdAt.toISOString());
  });

  it("never takes another user's run, another playbook's, or a run that was not started from a stored playbook", async () => {
    const mine = (await start('lx-owner')).run;
    await finish(mine.id, 'completed');
    expect((await start('lx-stranger')).run.lastExecutionAt).toBeNull();
    expect((await start('lx-owner', fromPlaybook('pb-weekly'))).run.lastExecutionAt).toBeNull();
    const inline = (await repo.create({ userId: 'lx-owner', plan, inputs: {}, runContext: 'interactive', idempotencyKey: null })).run;
    expect(inline.lastExecutionAt).toBeNull();
  });
});
