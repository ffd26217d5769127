/**
 * Waits on the approval service against real PostgreSQL: ApprovalWaitsStore
 * (register, apply, clarifications, reconciliation cursor) and the
 * ApprovalEventsConsumer's event handling and reconciliation, with the
 * approval service itself replaced by an in-memory fake (bus: in-process).
 */
import { randomUUID } from 'node:crypto';
import { PlanGraphSchema } from '@af/plan';
import { AppError, encodeJson, ServiceKit, sqlRows } from '@af/service-kit';
import { createTestDatabase, type TestDatabase } from '@af/testing';
import type { ApprovalService } from '../../src/app/approval-port.js';
import { orchestratorEnvSchema, type OrchestratorConfig } from '../../src/config.js';
import type { RequestView } from '../../src/domain/human-request.js';
import { ApprovalEventsConsumer } from '../../src/infra/approval-events.consumer.js';
import { ApprovalWaitsStore } from '../../src/infra/approval-waits.store.js';
import { ORCHESTRATOR_MIGRATIONS } from '../../src/infra/migrations/index.js';
import { RunExecutionStore, type LeasedRun } from '../../src/infra/run-execution.store.js';
import { RunRepository } from '../../src/infra/run.repository.js';

let db: TestDatabase;
let kit: ServiceKit<OrchestratorConfig>;
let repo: RunRepository;
let store: RunExecutionStore;
let waits: ApprovalWaitsStore;

beforeAll(async () => {
  db = await createTestDatabase();
  kit = await ServiceKit.start({
    name: 'orchestrator',
    envSchema: orchestratorEnvSchema,
    env: { SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789', DATABASE_URL: db.url, NATS_URL: 'memory://approval-waits-test', CONNECTOR_RUNTIME_URL: '127.0.0.1:1', METRICS_PORT: '0', LOG_LEVEL: 'silent' },
    migrations: ORCHESTRATOR_MIGRATIONS,
  });
  repo = new RunRepository(kit);
  store = new RunExecutionStore(kit);
  waits = new ApprovalWaitsStore(kit);
});

afterAll(async () => {
  await kit?.close();
  await db?.drop();
});

const plan = PlanGraphSchema.parse({ metadata: { non_streaming: true }, nodes: [{ id: 'gate', kind: 'approval' }, { id: 'next', kind: 'tool', dependsOn: ['gate'] }] });

/** A run whose `gate` waits for request `requestId`; `park` leaves it parked (status waiting). */
async function waitingRun(requestId: string, park = true): Promise<string> {
  const { run } = await repo.create({ userId: 'u1', plan, inputs: {}, runContext: 'interactive', idempotencyKey: null });
  await store.acquireLease(run.id, 'A', 60_000);
  await store.nodeStarted(run.id, 'A', 'gate', 1, {});
  await waits.register(run.id, 'gate', requestId, null);
  await store.nodeWaiting(run.id, 'A', 'gate', null, { type: 'hitl_request', payload: { requestId } });
  if (park) expect(await store.park(run.id, 'A')).toBe(true);
  return run.id;
}

const resolved = (runId: string, id: string, over: Partial<RequestView> = {}): RequestView => ({
  id,
  kind: 'approval_gate',
  status: 'approved',
  ownerUserId: 'u1',
  runId,
  nodeId: 'gate',
  timeoutAt: null,
  resolution: { decidedBy: 'u2', decidedAt: '2026-01-01T00:00:00.000Z', decision: 'approve', instructions: 'go' },
  ...over,
});

const workItems = (runId: string) => sqlRows<{ msg_id: string }>(kit.db, `SELECT msg_id FROM outbox WHERE msg_id LIKE $1`, [`work:${runId}:resume:%`]);

describe('ApprovalWaitsStore', () => {
  it('records a resolution on the waiting node once, with a log frame, and queues the parked run', async () => {
    const requestId = randomUUID();
    const runId = await waitingRun(requestId);
    expect(await waits.requestOf(runId, 'gate')).toBe(requestId);
    expect(await waits.apply(resolved(runId, requestId))).toBe(true);
    const state = (await repo.nodeStates(runId)).get('gate')!;
    expect(state.decision).toMatchObject({ decision: 'approve', status: 'approved', requestId, decidedBy: 'u2', instructions: 'go', kind: 'approval_gate' });
    expect((await repo.get(runId))!.status).toBe('queued');
    expect((await repo.events(runId, 0)).at(-1)).toMatchObject({ type: 'log', nodeId: 'gate', payload: { event: 'decision', hitlEvent: 'hitl_approved', requestId } });
    expect(await workItems(runId)).toEqual([{ msg_id: `work:${runId}:resume:${requestId}` }]);
    // The frame's message carries what run_events holds (same seq and payload).
    const frame = (await repo.events(runId, 0)).at(-1)!;
    const [message] = await sqlRows<{ subject: string; payload: Record<string, unknown> }>(kit.db, 'SELECT subject, payload FROM outbox WHERE msg_id = $1', [`run:${runId}:${frame.seq}`]);
    expect(message).toEqual({ subject: kit.subjects.run(runId, 'log'), payload: { runId, seq: frame.seq, type: 'log', nodeId: 'gate', timestamp: frame.timestamp, payload: frame.payload } });
    // The same resolution again (event after ResumeRun, redelivery, reconciliation): nothing more.
    expect(await waits.apply(resolved(runId, requestId))).toBe(false);
    expect((await repo.events(runId, 0)).filter((e) => e.type === 'log')).toHaveLength(1);
  });

  it('with a local claim, leases the parked run in the same statement and starts it from its states (decision included), without a work item', async () => {
    const requestId = randomUUID();
    const runId = await waitingRun(requestId);
    const seen: string[] = [];
    let leased: LeasedRun | undefined;
    waits.claimLocally(() => ({ owner: 'here', leaseMs: 60_000, start: (l) => ((leased = l), seen.push('start')), abandon: () => seen.push('abandon') }));
    try {
      expect(await waits.apply(resolved(runId, requestId))).toBe(true);
      expect(seen).toEqual(['start']);
      const [row] = await sqlRows(kit.db, 'SELECT status, lease_owner, lease_until > now() AS leased FROM runs WHERE id = $1', [runId]);
      expect(row).toEqual({ status: 'running', lease_owner: 'here', leased: true });
      expect(await workItems(runId)).toEqual([]);
      expect(leased!.run).toMatchObject({ id: runId, status: 'running', userId: 'u1' });
      expect(leased!.run.createdAt).toBeInstanceOf(Date);
      // What the execution starts from is what a lease would read now.
      expect(leased!.states).toEqual(await repo.nodeStates(runId));
      expect(leased!.waiting.get('gate')).toMatchObject({ status: 'waiting', approvalRequestId: requestId, decision: { decision: 'approve', requestId } });
      expect([...leased!.outputs.keys()]).toEqual([]);
      // Another replica cannot take it while the lease holds.
      expect(await store.acquireLease(runId, 'elsewhere', 60_000)).toBeNull();
      // A run that is not parked is not leased: the slot goes back.
      seen.length = 0;
      const r2 = randomUUID();
      const running = await waitingRun(r2, false);
      expect(await waits.apply(resolved(running, r2))).toBe(true);
      expect(seen).toEqual(['abandon']);
      // Nothing applied: the slot goes back too.
      seen.length = 0;
      expect(await waits.apply(resolved(running, r2))).toBe(false);
      expect(seen).toEqual(['abandon']);
    } finally {
      waits.claimLocally(() => null);
    }
  });

  it('ignores resolutions of another request, of pending requests, and without run', async () => {
    const requestId = randomUUID();
    const runId = await waitingRun(requestId);
    expect(await waits.apply(resolved(runId, randomUUID()))).toBe(false);
    expect(await waits.apply(resolved(runId, requestId, { status: 'pending' }))).toBe(false);
    expect(await waits.apply(resolved('', requestId))).toBe(false);
    expect(await waits.apply(resolved(randomUUID(), requestId))).toBe(false);
    expect((await repo.nodeStates(runId)).get('gate')!.decision ?? null).toBeNull();
    expect((await repo.get(runId))!.status).toBe('waiting');
  });

  it('leaves a running run running and a paused run paused (only the decision is recorded)', async () => {
    const r1 = randomUUID();
    const running = await waitingRun(r1, false);
    expect(await waits.apply(resolved(running, r1))).toBe(true);
    expect((await repo.get(running))!.status).toBe('running');
    expect(await workItems(running)).toEqual([]);
    const r2 = randomUUID();
    const paused = await waitingRun(r2);
    await repo.pause(paused, 'u1');
    expect(await waits.apply(resolved(paused, r2))).toBe(true);
    expect((await repo.get(paused))!.status).toBe('paused');
  });

  it('keeps the run’s hitlClarifications: questions as asked, answers as they arrive', async () => {
    const requestId = randomUUID();
    const runId = await waitingRun(requestId);
    await waits.addQuestion(runId, { requestId, nodeId: 'gate', capabilityId: 'cap', questionId: 'q-year', question: 'Which year?', createdAt: '2026-01-01T00:00:00.000Z' });
    await waits.addQuestion(runId, { requestId, nodeId: 'gate', questionId: 'dup', question: 'ignored', createdAt: '2026-01-01T00:00:00.000Z' });
    expect(await waits.clarifications(runId)).toEqual([{ nodeId: 'gate', capabilityId: 'cap', questionId: 'q-year', question: 'Which year?', createdAt: '2026-01-01T00:00:00.000Z' }]);
    expect(await waits.apply(resolved(runId, requestId, { kind: 'clarify', status: 'answered', resolution: { decidedBy: 'u1', decidedAt: '2026-01-01T00:01:00.000Z', answer: '2024' } }))).toBe(true);
    expect(await waits.clarifications(runId)).toEqual([
      { nodeId: 'gate', capabilityId: 'cap', questionId: 'q-year', question: 'Which year?', answer: '2024', createdAt: '2026-01-01T00:00:00.000Z', answeredAt: '2026-01-01T00:01:00.000Z' },
    ]);
  });

  it('re-registering clears an earlier decision; node states and run options are readable', async () => {
    const requestId = randomUUID();
    const runId = await waitingRun(requestId, false);
    await waits.apply(resolved(runId, requestId));
    await store.nodeResumed(runId, 'A', 'gate');
    const next = randomUUID();
    await waits.register(runId, 'gate', next, null);
    const state = (await repo.nodeStates(runId)).get('gate')!;
    expect(state.decision ?? null).toBeNull();
    expect(await waits.nodeState(runId, 'gate')).toEqual({ status: 'running', skipReason: null });
    expect(await waits.nodeState(runId, 'nope')).toBeNull();
    expect(await waits.runOptions(runId)).toEqual({ non_streaming: true });
  });

  it('can attach a request to a row that already waits (a runtime policy gate) and records its resolution there', async () => {
    const requestId = randomUUID();
    const runId = await waitingRun(randomUUID());
    await sqlRows(kit.db, `INSERT INTO node_states (run_id, node_id, status, attempt) VALUES ($1, 'policy:qa', 'waiting', 1)`, [runId]);
    await waits.register(runId, 'policy:qa', requestId, null);
    expect(await waits.apply(resolved(runId, requestId, { kind: 'policy_hitl', nodeId: 'policy:qa', status: 'rejected', resolution: { decidedBy: 'u1', decidedAt: 't', decision: 'reject' } }))).toBe(true);
    expect((await repo.nodeStates(runId)).get('policy:qa')!.decision).toMatchObject({ decision: 'reject', kind: 'policy_hitl', status: 'rejected' });
  });
});

describe('ApprovalEventsConsumer', () => {
  const fake = (answers: Map<string, RequestView | 'missing' | 'down'>): ApprovalService => ({
    create: async () => {
      throw new Error('not used');
    },
    decide: async () => {
      throw new Error('not used');
    },
    get: async (_user, id) => {
      const a = answers.get(id);
      if (a === 'missing' || !a) throw AppError.notFound('request', id);
      if (a === 'down') throw new AppError('UNAVAILABLE', 'down');
      return a;
    },
  });

  it('applies a decided event and drops unreadable ones', async () => {
    const requestId = randomUUID();
    const runId = await waitingRun(requestId);
    const consumer = new ApprovalEventsConsumer(kit, waits, fake(new Map()), 60_000);
    expect(await consumer.handle(new TextEncoder().encode('{nope'))).toBe(false);
    expect(await consumer.handle(encodeJson({ type: 'decided', requestId: 'x' }))).toBe(false);
    const event = {
      type: 'decided',
      requestId,
      kind: 'approval_gate',
      status: 'timed_out',
      ownerUserId: 'u1',
      runId,
      nodeId: 'gate',
      notify: false,
      timestamp: new Date().toISOString(),
      resolution: { decidedBy: 'system:timeout', decidedAt: '2026-01-01T00:00:00.000Z', reasonCode: 'timeout', reason: 'nobody acted' },
    };
    expect(await consumer.handle(encodeJson(event))).toBe(true);
    expect((await repo.nodeStates(runId)).get('gate')!.decision).toMatchObject({ status: 'timed_out', decidedBy: 'system:timeout', reasonCode: 'timeout' });
    // Its redelivery, or the event of a resolution applied here already: remembered, nothing done.
    expect(waits.appliedHere(requestId)).toBe(true);
    expect(await consumer.handle(encodeJson(event))).toBe(false);
    // A resolution applied by another replica is applied here from its event (the run's own row decides).
    const other = randomUUID();
    const otherRun = await waitingRun(other);
    expect(waits.appliedHere(other)).toBe(false);
    expect(await consumer.handle(encodeJson({ ...event, requestId: other, runId: otherRun }))).toBe(true);
  });

  it('reconciles undecided waits with the service: resolved ones are applied, others checked again later', async () => {
    await sqlRows(kit.db, `UPDATE node_states SET decision = '{}'::jsonb WHERE status = 'waiting' AND decision IS NULL`);
    const [done, open, missing, down] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const runs = { done: await waitingRun(done), open: await waitingRun(open), missing: await waitingRun(missing), down: await waitingRun(down) };
    await sqlRows(kit.db, `UPDATE node_states SET approval_checked_at = now() - interval '1 hour' WHERE approval_request_id IS NOT NULL`);
    const answers = new Map<string, RequestView | 'missing' | 'down'>([
      [done, resolved(runs.done, done, { status: 'rejected', resolution: { decidedBy: 'u1', decidedAt: '2026-01-01T00:00:00.000Z', decision: 'reject' } })],
      [open, resolved(runs.open, open, { status: 'pending', resolution: null })],
      [missing, 'missing'],
      [down, 'down'],
    ]);
    const consumer = new ApprovalEventsConsumer(kit, waits, fake(answers), 60_000);
    expect(await consumer.reconcile()).toBe(1);
    expect((await repo.nodeStates(runs.done)).get('gate')!.decision).toMatchObject({ status: 'rejected' });
    expect((await repo.get(runs.done))!.status).toBe('queued');
    // Everything was just checked: nothing is due again until the interval passes.
    expect(await waits.toReconcile(60_000, 100)).toEqual([]);
    // Once the interval passed (here: waits of 2 s, checked 1 s ago; a quarter of their age is 0.5 s).
    await sqlRows(kit.db, `UPDATE node_states SET started_at = now() - interval '2 seconds', approval_checked_at = now() - interval '1 second' WHERE approval_request_id IS NOT NULL AND decision IS NULL`);
    const later = await waits.toReconcile(0, 100);
    expect(later.map((w) => w.requestId).sort()).toEqual([open, missing, down].sort());
    expect(later.every((w) => w.userId === 'u1' && w.nodeId === 'gate')).toBe(true);
  });

  it('checks old waits less often: after a quarter of their age when that exceeds the interval, at most every 5 minutes', async () => {
    await sqlRows(kit.db, `UPDATE node_states SET decision = '{}'::jsonb WHERE status = 'waiting' AND decision IS NULL`);
    const id = randomUUID();
    const runId = await waitingRun(id);
    const set = (age: string, checked: string) =>
      sqlRows(kit.db, `UPDATE node_states SET started_at = now() - $2::interval, approval_checked_at = now() - $3::interval WHERE run_id = $1`, [runId, age, checked]);
    const due = async () => (await waits.toReconcile(5_000, 100)).map((w) => w.requestId);
    await set('40 seconds', '8 seconds'); // every max(5 s, 10 s)
    expect(await due()).toEqual([]);
    await set('40 seconds', '11 seconds');
    expect(await due()).toEqual([id]);
    await set('10 seconds', '6 seconds'); // young: every 5 s
    expect(await due()).toEqual([id]);
    await set('3 hours', '4 minutes'); // old: every 5 minutes at most
    expect(await due()).toEqual([]);
    await set('3 hours', '6 minutes');
    expect(await due()).toEqual([id]);
  });
});
