/**
 * The approval service's adapters against the real things: RequestRepository,
 * LeaderLock and RequestSweeper on PostgreSQL (a fresh database), and the
 * run-end consumer on NATS JetStream (a private subject prefix).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { encodeJson, ServiceKit, sqlRows } from '@af/service-kit';
import { createTestDatabase, TEST_NATS_URL, type TestDatabase } from '@af/testing';
import { approvalEnvSchema, type ApprovalConfig } from '../../src/config.js';
import type { NewRequest } from '../../src/domain/new-request.js';
import { LeaderLock } from '../../src/infra/leader-lock.js';
import { APPROVAL_MIGRATIONS } from '../../src/infra/migrations/index.js';
import { approvalEvent, approvalSubject, RequestRepository } from '../../src/infra/request.repository.js';
import { RequestSweeper, type RunStatusSource } from '../../src/infra/request-sweeper.js';
import { RunEndConsumer } from '../../src/infra/run-end.consumer.js';

let db: TestDatabase;
let kit: ServiceKit<ApprovalConfig>;
let other: ServiceKit<ApprovalConfig>;
let repo: RequestRepository;
const prefix = `ti${randomBytes(4).toString('hex')}`;

const start = (instance: string) =>
  ServiceKit.start({
    name: 'approval',
    envSchema: approvalEnvSchema,
    env: { SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789', DATABASE_URL: db.url, NATS_URL: TEST_NATS_URL, NATS_PREFIX: prefix, METRICS_PORT: '0', LOG_LEVEL: 'silent', SERVICE_INSTANCE_ID: instance },
    migrations: APPROVAL_MIGRATIONS,
  });

beforeAll(async () => {
  db = await createTestDatabase();
  kit = await start('a');
  other = await start('b');
  repo = new RequestRepository(kit);
});

afterAll(async () => {
  await kit?.close();
  await other?.close();
  await db?.drop();
});

const fresh = (over: Partial<NewRequest> = {}): NewRequest => ({
  kind: 'approval_gate',
  ownerUserId: 'owner',
  runId: randomUUID(),
  nodeId: 'gate',
  runContext: 'background',
  operatorPrompt: 'Go?',
  details: { preview: [1, 2] },
  outputSchema: null,
  capabilityId: null,
  teamIds: [],
  allowTeamDecisions: false,
  assigneeUserIds: [],
  timeoutSeconds: null,
  notify: true,
  autoApprove: false,
  idempotencyKey: null,
  ...over,
});

const outbox = (id: string) => sqlRows<{ subject: string; msg_id: string; payload: any }>(kit.db, `SELECT subject, msg_id, payload FROM outbox WHERE msg_id LIKE $1 ORDER BY id`, [`approval:${id}:%`]);
const events = (id: string) => sqlRows<{ type: string; actor: string }>(kit.db, 'SELECT type, actor FROM request_events WHERE request_id = $1 ORDER BY id', [id]);

describe('RequestRepository', () => {
  it('inserts with its audit row and `requested` message in one transaction; idempotent per owner and key', async () => {
    const { request, created } = await repo.insert(fresh({ idempotencyKey: 'run:gate:1', timeoutSeconds: 60 }));
    expect(created).toBe(true);
    expect(request).toMatchObject({ status: 'pending', kind: 'approval_gate', details: { preview: [1, 2] }, notify: true, decidedAt: null });
    expect(request.timeoutAt!.getTime() - request.createdAt.getTime()).toBeGreaterThan(59_000);
    expect(await events(request.id)).toEqual([{ type: 'created', actor: 'owner' }]);
    const msgs = await outbox(request.id);
    expect(msgs.map((m) => m.subject)).toEqual([`${prefix}.af.approval.${request.id}.requested`]);
    expect(msgs[0]!.payload).toMatchObject({ type: 'requested', requestId: request.id, kind: 'approval_gate', status: 'pending', notify: true });

    const again = await repo.insert(fresh({ idempotencyKey: 'run:gate:1', operatorPrompt: 'different' }));
    expect(again).toEqual({ request, created: false });
    expect((await repo.insert(fresh({ idempotencyKey: 'run:gate:1', ownerUserId: 'someone' }))).created).toBe(true);
  });

  it('inserts an automatic approval already decided, with both messages', async () => {
    const { request } = await repo.insert(fresh({ autoApprove: true }), { status: 'approved', resolution: { decision: 'approve', automatic: true }, decidedBy: 'policy:auto_approve' });
    expect(request).toMatchObject({ status: 'approved', decidedBy: 'policy:auto_approve', timeoutAt: null });
    expect(request.decidedAt).toBeInstanceOf(Date);
    expect((await outbox(request.id)).map((m) => m.msg_id)).toEqual([`approval:${request.id}:requested`, `approval:${request.id}:decided`]);
    expect((await events(request.id)).map((e) => e.type)).toEqual(['created', 'approved']);
  });

  it('resolves exactly once under concurrent decisions', async () => {
    const { request } = await repo.insert(fresh());
    const results = await Promise.all(
      ['alice', 'bob', 'carol', 'dave'].map((who, i) => repo.resolve(request.id, i % 2 ? 'rejected' : 'approved', { decision: i % 2 ? 'reject' : 'approve' }, who, `k-${who}`)),
    );
    const winners = results.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    const stored = (await repo.get(request.id))!;
    expect(stored).toMatchObject({ status: winners[0]!.status, decidedBy: winners[0]!.decidedBy, resolutionKey: `k-${winners[0]!.decidedBy}` });
    const decided = (await outbox(request.id)).filter((m) => m.msg_id.endsWith(':decided'));
    expect(decided).toHaveLength(1);
    expect(decided[0]!.payload).toMatchObject({ type: 'decided', status: stored.status, resolution: { decidedBy: stored.decidedBy, decidedAt: stored.decidedAt!.toISOString() } });
    // The event written with the resolution is the one approvalEvent() makes of the stored request (its time aside).
    const payload = decided[0]!.payload as Record<string, unknown>;
    expect(payload).toEqual({ ...approvalEvent(stored, 'decided'), timestamp: payload.timestamp });
    expect((await events(request.id)).map((e) => [e.type, e.actor])).toEqual([['created', 'owner'], [stored.status, stored.decidedBy]]);
  });

  it('lists what a principal may act on: owner, assignee, team member when allowed; filters and keyset order', async () => {
    const run = randomUUID();
    const mine = await repo.insert(fresh({ ownerUserId: 'lister', runId: run }));
    const assigned = await repo.insert(fresh({ ownerUserId: 'x', kind: 'human_task', outputSchema: { type: 'object' }, capabilityId: 'cap.brief', assigneeUserIds: ['lister'] }));
    const team = await repo.insert(fresh({ ownerUserId: 'y', teamIds: ['t1'], allowTeamDecisions: true }));
    await repo.insert(fresh({ ownerUserId: 'z', teamIds: ['t1'], allowTeamDecisions: false }));
    const principal = { userId: 'lister', teamIds: ['t1'] };
    const all = await repo.list({ principal, kinds: [], statuses: [], capabilityId: null, runId: null }, 10, null);
    expect(all.map((r) => r.id)).toEqual([team.request.id, assigned.request.id, mine.request.id]);
    const page2 = await repo.list({ principal, kinds: [], statuses: [], capabilityId: null, runId: null }, 10, { createdAt: all[0]!.createdAt.toISOString(), id: all[0]!.id });
    expect(page2.map((r) => r.id)).toEqual([assigned.request.id, mine.request.id]);
    expect((await repo.list({ principal, kinds: ['human_task'], statuses: ['pending'], capabilityId: 'cap.brief', runId: null }, 10, null)).map((r) => r.id)).toEqual([assigned.request.id]);
    expect((await repo.list({ principal, kinds: [], statuses: [], capabilityId: null, runId: run }, 10, null)).map((r) => r.id)).toEqual([mine.request.id]);
    expect(await repo.list({ principal: { userId: 'nobody', teamIds: [] }, kinds: [], statuses: [], capabilityId: null, runId: null }, 10, null)).toEqual([]);
  });

  it('times out due requests (and only those), each with a `decided` message', async () => {
    const due = await repo.insert(fresh({ timeoutSeconds: 0.05 }));
    const later = await repo.insert(fresh({ timeoutSeconds: 3600 }));
    await new Promise((r) => setTimeout(r, 100));
    const done = await repo.timeOutDue(100, 'system:timeout', { reasonCode: 'timeout' });
    expect(done.map((r) => r.id)).toContain(due.request.id);
    expect(done.map((r) => r.id)).not.toContain(later.request.id);
    expect((await repo.get(due.request.id))!).toMatchObject({ status: 'timed_out', decidedBy: 'system:timeout', resolution: { reasonCode: 'timeout' } });
    const decided = (await outbox(due.request.id)).find((m) => m.msg_id === `approval:${due.request.id}:decided`)!;
    const stored = (await repo.get(due.request.id))!;
    expect(decided.subject).toBe(approvalSubject(kit.subjects, due.request.id, 'decided'));
    expect(decided.payload).toEqual({ ...approvalEvent(stored, 'decided'), timestamp: decided.payload.timestamp });
    expect((await events(due.request.id)).map((e) => [e.type, e.actor])).toEqual([['created', stored.ownerUserId], ['timed_out', 'system:timeout']]);
    expect(await repo.timeOutDue(100, 'system:timeout', {})).toEqual([]);
  });

  it('expires the pending requests of a run, leaving resolved ones alone', async () => {
    const run = randomUUID();
    const a = await repo.insert(fresh({ runId: run, nodeId: 'a' }));
    const b = await repo.insert(fresh({ runId: run, nodeId: 'b' }));
    await repo.resolve(b.request.id, 'approved', { decision: 'approve' }, 'owner', null);
    const done = await repo.expireRun(run, 'system:run_ended', { reasonCode: 'run_ended', reason: 'gone' });
    expect(done.map((r) => r.id)).toEqual([a.request.id]);
    expect((await repo.get(b.request.id))!.status).toBe('approved');
  });

  it('hands out runs to check least recently checked first', async () => {
    await sqlRows(kit.db, `UPDATE requests SET status = 'expired', decided_at = now() WHERE status = 'pending'`);
    const r1 = randomUUID();
    const r2 = randomUUID();
    await repo.insert(fresh({ runId: r1, ownerUserId: 'o1' }));
    await repo.insert(fresh({ runId: r2, ownerUserId: 'o2' }));
    expect(await repo.runsToCheck(60_000, 10)).toEqual([]);
    const first = await repo.runsToCheck(0, 1);
    expect(first).toHaveLength(1);
    const second = await repo.runsToCheck(0, 1);
    expect([...first, ...second].map((x) => x.runId).sort()).toEqual([r1, r2].sort());
    expect([...first, ...second].find((x) => x.runId === r1)!.ownerUserId).toBe('o1');
  });
});

describe('LeaderLock', () => {
  it('lets one replica lead; the other takes over when it releases or its connection dies', async () => {
    const a = new LeaderLock(kit.db, 'test-leader', kit.log);
    const b = new LeaderLock(other.db, 'test-leader', other.log);
    expect(await a.hold()).toBe(true);
    expect(await b.hold()).toBe(false);
    expect(await a.hold()).toBe(true);
    await a.release();
    expect(await b.hold()).toBe(true);
    expect(await a.hold()).toBe(false);
    // b's session dies (a crashed replica): a takes over.
    await sqlRows(kit.db, `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = hashtext('test-leader')::oid::bigint AND granted`);
    expect(await b.hold()).toBe(false);
    expect(await a.hold()).toBe(true);
    await a.release();
    await b.release();
  });
});

describe('RequestSweeper', () => {
  it('only the leader times out; stale requests of ended or vanished runs are expired, others kept', async () => {
    await sqlRows(kit.db, `UPDATE requests SET status = 'expired', decided_at = now() WHERE status = 'pending'`);
    const [ended, gone, active, unknown] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const states: RunStatusSource = {
      state: async (_owner, runId) => {
        if (runId === ended) return { state: 'ended', status: 'cancelled' };
        if (runId === gone) return { state: 'gone', status: 'not_found' };
        if (runId === active) return { state: 'active', status: 'waiting' };
        throw new Error('orchestrator unavailable');
      },
    };
    const reqs = await Promise.all([ended, gone, active, unknown].map((runId) => repo.insert(fresh({ runId }))));
    const due = await repo.insert(fresh({ timeoutSeconds: 0.01 }));
    await new Promise((r) => setTimeout(r, 50));
    const lock = new LeaderLock(kit.db, 'sweeper-test', kit.log);
    const follower = new RequestSweeper(new RequestRepository(other), new LeaderLock(other.db, 'sweeper-test', other.log), other.log, states, { intervalMs: 50, staleCheckMs: 1 });
    const leader = new RequestSweeper(repo, lock, kit.log, states, { intervalMs: 50, staleCheckMs: 1 });
    expect(await leader.tick()).toEqual({ leader: true, timedOut: 1, expired: 2 });
    expect(await follower.tick()).toEqual({ leader: false, timedOut: 0, expired: 0 });
    const status = async (i: number) => (await repo.get(reqs[i]!.request.id))!;
    expect(await status(0)).toMatchObject({ status: 'expired', decidedBy: 'system:run_ended', resolution: { reason: `run ${ended} ended (cancelled)` } });
    expect(await status(1)).toMatchObject({ status: 'expired', resolution: { reason: `run ${gone} no longer exists` } });
    expect((await status(2)).status).toBe('pending');
    expect((await status(3)).status).toBe('pending');
    expect((await repo.get(due.request.id))!.status).toBe('timed_out');
    await leader.stop();
    await follower.stop();
  });

  it('start() keeps sweeping on a timer until stopped', async () => {
    const lock = new LeaderLock(kit.db, 'sweeper-loop', kit.log);
    const sweeper = new RequestSweeper(repo, lock, kit.log, undefined, { intervalMs: 50, staleCheckMs: 60_000 });
    sweeper.start();
    const r = await repo.insert(fresh({ timeoutSeconds: 0.2 }));
    const deadline = Date.now() + 5000;
    while ((await repo.get(r.request.id))!.status === 'pending' && Date.now() < deadline) await new Promise((x) => setTimeout(x, 50));
    expect((await repo.get(r.request.id))!.status).toBe('timed_out');
    await sweeper.stop();
    expect(lock.isLeader).toBe(false);
  });
});

describe('RunEndConsumer (JetStream)', () => {
  it("expires a run's pending requests when its `complete` frame arrives, once across replicas", async () => {
    const run = randomUUID();
    const a = await repo.insert(fresh({ runId: run }));
    const consumers = [new RunEndConsumer(kit, repo), new RunEndConsumer(other, new RequestRepository(other))];
    for (const c of consumers) await c.start();
    await kit.bus.publish(`${prefix}.af.run.${run}.complete`, encodeJson({ runId: run, seq: 9, type: 'complete', payload: { status: 'failed' } }), `run:${run}:9`);
    const deadline = Date.now() + 10_000;
    while ((await repo.get(a.request.id))!.status === 'pending' && Date.now() < deadline) await new Promise((x) => setTimeout(x, 50));
    expect((await repo.get(a.request.id))!).toMatchObject({ status: 'expired', resolution: { reasonCode: 'run_ended', reason: `run ${run} ended (failed)` } });
    expect((await events(a.request.id)).filter((e) => e.type === 'expired')).toHaveLength(1);
    for (const c of consumers) await c.stop();
  });

  it('ignores frames it cannot read', async () => {
    const c = new RunEndConsumer(kit, repo);
    expect(await c.handle(new TextEncoder().encode('not json'))).toBe(0);
    expect(await c.handle(encodeJson({ runId: 'not-a-run', payload: {} }))).toBe(0);
  });
});
