/**
 * Held settlements (RunExecutionStore `batchMax`): pure nodes' completions,
 * skips and decided waits ride on the run's next fenced statement, in the
 * order they happened, against real PostgreSQL.
 */
import { PlanGraphSchema } from '@af/plan';
import { OUTBOX_BATCH_SUBJECT, outboxMessages, ServiceKit, sqlRows } from '@af/service-kit';
import { createTestDatabase, type TestDatabase } from '@af/testing';
import { orchestratorEnvSchema, type OrchestratorConfig } from '../../src/config.js';
import { ORCHESTRATOR_MIGRATIONS } from '../../src/infra/migrations/index.js';
import { LeaseLostError, RunExecutionStore } from '../../src/infra/run-execution.store.js';
import { RunRepository } from '../../src/infra/run.repository.js';

let db: TestDatabase;
let kit: ServiceKit<OrchestratorConfig>;
let repo: RunRepository;
let store: RunExecutionStore;

const plan = PlanGraphSchema.parse({ nodes: ['p1', 'p2', 'p3', 'fx', 'sk'].map((id) => ({ id, kind: 'tool' })) });

beforeAll(async () => {
  db = await createTestDatabase();
  kit = await ServiceKit.start({
    name: 'orchestrator',
    envSchema: orchestratorEnvSchema,
    env: { SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789', DATABASE_URL: db.url, NATS_URL: 'memory://held-settlements-test', CONNECTOR_RUNTIME_URL: '127.0.0.1:1', METRICS_PORT: '0', LOG_LEVEL: 'silent' },
    migrations: ORCHESTRATOR_MIGRATIONS,
  });
  repo = new RunRepository(kit);
  store = new RunExecutionStore(kit, { batchMax: 3 });
});

afterAll(async () => {
  await kit?.close();
  await db?.drop();
});

async function leased(owner = 'A'): Promise<string> {
  const { run } = await repo.create({ userId: 'u1', plan, inputs: {}, runContext: 'interactive', idempotencyKey: null });
  expect(await store.acquireLease(run.id, owner, 60_000)).not.toBeNull();
  return run.id;
}

const shape = async (runId: string) => (await repo.events(runId, 0)).map((e) => `${e.seq}:${e.type}${e.nodeId ? `:${e.nodeId}` : ''}`);
const statuses = async (runId: string) => Object.fromEntries([...(await repo.nodeStates(runId)).values()].map((s) => [s.nodeId, s.status]));
const defer = { defer: true };

it('writes nothing for held settlements until the next statement, which carries them first, in order', async () => {
  const runId = await leased();
  await store.nodeCompleted(runId, 'A', 'p1', { v: 1 }, { attempt: 1 }, undefined, { attempt: 1 }, defer);
  await store.nodeEnded(runId, 'A', 'sk', 'skipped', null, { skipped: true, reason: 'condition_false' }, 'condition_false', defer);
  expect(await shape(runId)).toEqual(['1:start']);
  expect((await statuses(runId)).p1).toBe('pending');
  expect((await repo.outputs(runId)).size).toBe(0);

  // The next side-effecting node's start: one statement with both settlements before it.
  await store.nodeStarted(runId, 'A', 'fx', 1, {});
  expect(await shape(runId)).toEqual(['1:start', '2:node_start:p1', '3:node_complete:p1', '4:node_complete:sk', '5:node_start:fx']);
  const states = await repo.nodeStates(runId);
  expect([states.get('p1')!.status, states.get('p1')!.attempt, states.get('sk')!.status, states.get('sk')!.skipReason, states.get('fx')!.status]).toEqual([
    'completed',
    1,
    'skipped',
    'condition_false',
    'running',
  ]);
  expect(states.get('p1')!.startedAt).not.toBeNull();
  expect((await repo.outputs(runId)).get('p1')).toEqual({ v: 1 });
  // Each frame also went to the outbox, with its own node id: the statement's frames as one batch row.
  const [batch] = await sqlRows(kit.db, `SELECT subject, msg_id, payload FROM outbox WHERE msg_id LIKE $1 ORDER BY id`, [`batch:run:${runId}:%`]);
  expect([batch.subject, batch.msg_id]).toEqual([OUTBOX_BATCH_SUBJECT, `batch:run:${runId}:2`]);
  expect(outboxMessages({ subject: batch.subject, payload: batch.payload, msgId: batch.msg_id }).map((m) => {
    const frame = m.payload as { nodeId?: string; type: string; seq: number };
    return [m.msgId, m.subject, frame.nodeId ?? null, frame.type, frame.seq];
  })).toEqual([
    [`run:${runId}:2`, kit.subjects.run(runId, 'node_start'), 'p1', 'node_start', 2],
    [`run:${runId}:3`, kit.subjects.run(runId, 'node_complete'), 'p1', 'node_complete', 3],
    [`run:${runId}:4`, kit.subjects.run(runId, 'node_complete'), 'sk', 'node_complete', 4],
    [`run:${runId}:5`, kit.subjects.run(runId, 'node_start'), 'fx', 'node_start', 5],
  ]);
});

it('writes held settlements on their own once batchMax are held', async () => {
  const runId = await leased();
  await store.nodeCompleted(runId, 'A', 'p1', 1, { attempt: 1 }, undefined, { attempt: 1 }, defer);
  await store.nodeCompleted(runId, 'A', 'p2', 2, { attempt: 1 }, undefined, { attempt: 1 }, defer);
  expect(await shape(runId)).toEqual(['1:start']);
  await store.nodeCompleted(runId, 'A', 'p3', 3, { attempt: 1 }, undefined, { attempt: 1 }, defer);
  expect((await shape(runId)).length).toBe(7);
  expect(Object.fromEntries([...(await repo.outputs(runId))])).toEqual({ p1: 1, p2: 2, p3: 3 });
});

it('the finish carries held settlements and cancels only what is still open', async () => {
  const runId = await leased();
  await store.nodeCompleted(runId, 'A', 'p1', 1, { attempt: 1 }, undefined, { attempt: 1 }, defer);
  await store.nodeCompleted(runId, 'A', 'p2', 2, { attempt: 1 }, undefined, { attempt: 1 }, defer);
  await store.finish(runId, 'A', 'completed', null, {});
  expect(await shape(runId)).toEqual(['1:start', '2:node_start:p1', '3:node_complete:p1', '4:node_start:p2', '5:node_complete:p2', '6:complete']);
  expect(await statuses(runId)).toEqual({ p1: 'completed', p2: 'completed', p3: 'cancelled', fx: 'cancelled', sk: 'cancelled' });
  expect((await repo.get(runId))!.status).toBe('completed');
});

it('a second settlement of the same node goes in a statement after the first', async () => {
  const runId = await leased();
  await store.nodeCompleted(runId, 'A', 'p1', 'first', { attempt: 1 }, undefined, { attempt: 1 }, defer);
  await store.nodeCompleted(runId, 'A', 'p1', 'second', { attempt: 2 }, undefined, { attempt: 2 }, defer);
  await store.flush(runId, 'A');
  expect((await repo.outputs(runId)).get('p1')).toBe('second');
  expect((await repo.nodeStates(runId)).get('p1')!.attempt).toBe(2);
  expect((await shape(runId)).length).toBe(5);
});

it('settlements go first, on their own, before a statement that touches other nodes (rollback, map reset) and before park', async () => {
  const runId = await leased();
  await store.nodeCompleted(runId, 'A', 'p1', 1, { attempt: 1 }, undefined, { attempt: 1 }, defer);
  const completions = await store.completions(runId, 'A');
  expect([...completions.keys()]).toEqual(['p1']);
  await store.nodeCompleted(runId, 'A', 'p2', 2, { attempt: 1 }, undefined, { attempt: 1 }, defer);
  await store.rollbackStarted(runId, 'A', { failedNodeId: 'fx', error: 'x', order: ['p2', 'p1'] }, {});
  const states = await repo.nodeStates(runId);
  expect([states.get('p1')!.rollbackStatus, states.get('p2')!.rollbackStatus, states.get('p2')!.status]).toEqual(['pending', 'pending', 'completed']);

  const parked = await leased();
  await store.nodeStarted(parked, 'A', 'fx', 1, {});
  await store.nodeWaiting(parked, 'A', 'fx', null, null);
  await store.nodeCompleted(parked, 'A', 'p1', 1, { attempt: 1 }, undefined, { attempt: 1 }, defer);
  expect(await store.park(parked, 'A')).toBe(true);
  expect((await statuses(parked)).p1).toBe('completed');
});

it('keeps sequence numbers gap-free when held settlements and concurrent writes interleave', async () => {
  const runId = await leased();
  await Promise.all([
    store.nodeCompleted(runId, 'A', 'p1', 1, { attempt: 1 }, undefined, { attempt: 1 }, defer).then(() => store.nodeStarted(runId, 'A', 'fx', 1, {})),
    store.nodeCompleted(runId, 'A', 'p2', 2, { attempt: 1 }, undefined, { attempt: 1 }, defer),
    store.nodeStarted(runId, 'A', 'p3', 1, {}),
    store.nodeEnded(runId, 'A', 'sk', 'skipped', null, { skipped: true }, 'route_not_taken', defer),
  ]);
  await store.finish(runId, 'A', 'completed', null, {});
  const seqs = (await repo.events(runId, 0)).map((e) => e.seq);
  expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
  expect(seqs.length).toBe(1 + 2 + 2 + 1 + 1 + 1 + 1);
  const frames = await shape(runId);
  // Each node's start comes before its completion.
  expect(frames.findIndex((f) => f.endsWith('node_start:p1'))).toBeLessThan(frames.findIndex((f) => f.endsWith('node_complete:p1')));
});

it('drops held settlements when the lease is lost: nothing of them is written and the sequence has no gap', async () => {
  const runId = await leased();
  await store.nodeCompleted(runId, 'A', 'p1', 1, { attempt: 1 }, undefined, { attempt: 1 }, defer);
  await sqlRows(kit.db, `UPDATE runs SET lease_until = now() - interval '1 second' WHERE id = $1`, [runId]);
  const b = new RunExecutionStore(kit, { batchMax: 3 });
  expect(await b.acquireLease(runId, 'B', 60_000)).not.toBeNull();
  await expect(store.nodeStarted(runId, 'A', 'fx', 1, {})).rejects.toBeInstanceOf(LeaseLostError);
  expect((await statuses(runId)).p1).toBe('pending');
  await b.nodeStarted(runId, 'B', 'fx', 1, {});
  expect(await shape(runId)).toEqual(['1:start', '2:node_start:fx']);
});

it('refuses further writes of an execution whose held settlements were lost to a failed statement', async () => {
  const runId = await leased();
  await store.nodeCompleted(runId, 'A', 'p1', 1, { attempt: 1 }, undefined, { attempt: 1 }, defer);
  // An invalid timestamp makes the carrying statement fail (not a lease problem).
  await expect(store.nodeWaiting(runId, 'A', 'fx', new Date(Number.NaN), { type: 'log', payload: {} })).rejects.toThrow();
  await expect(store.nodeStarted(runId, 'A', 'p2', 1, {})).rejects.toThrow();
  expect(await shape(runId)).toEqual(['1:start']);
  // A new execution (lease taken again) starts from the stored states.
  expect(await store.acquireLease(runId, 'A', 60_000)).not.toBeNull();
  await store.nodeStarted(runId, 'A', 'p2', 1, {});
  expect(await shape(runId)).toEqual(['1:start', '2:node_start:p2']);
});

it('without batchMax every settlement is its own statement', async () => {
  const plain = new RunExecutionStore(kit);
  expect(plain.batching).toBe(false);
  const runId = await leased();
  await plain.nodeCompleted(runId, 'A', 'p1', 1, { attempt: 1 }, undefined, { attempt: 1 }, defer);
  expect(await shape(runId)).toEqual(['1:start', '2:node_start:p1', '3:node_complete:p1']);
});
