/**
 * RunRepository against real PostgreSQL (bus: the in-process one; the
 * JetStream path is covered by service-kit and the e2e tests).
 */
import { PlanGraphSchema } from '@af/plan';
import { ServiceKit, sqlRows } from '@af/service-kit';
import { createTestDatabase, type TestDatabase } from '@af/testing';
import { orchestratorEnvSchema, type OrchestratorConfig } from '../../src/config.js';
import { Init1763800000000 } from '../../src/infra/migrations/1763800000000-init.js';
import { Waiting1763900000000 } from '../../src/infra/migrations/1763900000000-waiting.js';
import { NodeCache1764000000000 } from '../../src/infra/migrations/1764000000000-node-cache.js';
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
    env: { DATABASE_URL: db.url, NATS_URL: 'memory://run-repo-test', CONNECTOR_RUNTIME_URL: '127.0.0.1:1', METRICS_PORT: '0', LOG_LEVEL: 'silent' },
    migrations: [Init1763800000000, Waiting1763900000000, NodeCache1764000000000],
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
