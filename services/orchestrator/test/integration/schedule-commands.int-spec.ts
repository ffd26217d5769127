/**
 * Schedule use cases against real PostgreSQL (real: schedules, fires and runs
 * tables; in-process bus), with the dispatcher on a fake clock: pause and
 * resume, run-now, backfill, ownership and bad input.
 */
import { AppError, ServiceKit } from '@af/service-kit';
import { createTestDatabase, type TestDatabase } from '@af/testing';
import { orchestratorEnvSchema, type OrchestratorConfig } from '../../src/config.js';
import { ORCHESTRATOR_MIGRATIONS } from '../../src/infra/migrations/index.js';
import { RunRepository } from '../../src/infra/run.repository.js';
import { RunCommands } from '../../src/app/run-commands.js';
import { ScheduleStore } from '../../src/infra/schedule.store.js';
import { ScheduleCommands } from '../../src/app/schedule-commands.js';
import { ScheduleDispatcher } from '../../src/app/schedule-dispatcher.js';
import { scheduleFireRuns } from '../../src/app/schedule-runs.js';
import { noPlanner } from '../../src/infra/planner.client.js';
import { MonitorWatermarkStore } from '../../src/infra/monitor-watermark.store.js';
import { MonitorWatermarks } from '../../src/app/monitor-watermarks.js';

let db: TestDatabase;
let kit: ServiceKit<OrchestratorConfig>;
let store: ScheduleStore;
let commands: ScheduleCommands;
let dispatcher: ScheduleDispatcher;
let now: Date;

const plan = { nodes: [{ id: 'a', kind: 'transform', action: 'transform_data', params: { operation: 'count' } }] };

beforeAll(async () => {
  db = await createTestDatabase();
  kit = await ServiceKit.start({
    name: 'orchestrator',
    envSchema: orchestratorEnvSchema,
    env: { SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789', DATABASE_URL: db.url, NATS_URL: 'memory://sched-cmd', CONNECTOR_RUNTIME_URL: '127.0.0.1:1', METRICS_PORT: '0', LOG_LEVEL: 'silent' },
    migrations: ORCHESTRATOR_MIGRATIONS,
  });
  store = new ScheduleStore(kit);
  commands = new ScheduleCommands(store, () => now);
  dispatcher = new ScheduleDispatcher(store, scheduleFireRuns(new RunCommands(new RunRepository(kit)), noPlanner), kit.log, { clock: () => now, batch: 10, workers: 1, pollMs: 1000, bufferRecheckMs: 1000 });
});

afterAll(async () => {
  await kit?.close();
  await db?.drop();
});

const create = (over: Record<string, unknown> = {}, userId = 'u1', idempotencyKey = '') =>
  commands.create({ userId, teamIds: [], idempotencyKey, definition: { name: 'n', spec: { cron: '0 * * * *' }, target: { plan }, overlap_policy: 'allow_all', ...over } });
const statuses = async (id: string) => (await commands.fires('u1', id, 100)).reverse().map((f) => [f.fireAt.toISOString(), f.kind, f.status]);

async function error(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

it('a paused schedule does not fire; resuming skips what fell while paused', async () => {
  now = new Date('2026-01-01T00:30:00Z');
  const s = await create();
  await commands.pause('u1', s.id);
  now = new Date('2026-01-01T03:10:00Z');
  await dispatcher.tick();
  expect(await statuses(s.id)).toEqual([]);
  const resumed = await commands.resume('u1', s.id);
  expect([resumed.paused, resumed.definition.paused, resumed.nextFireAt?.toISOString()]).toEqual([false, false, '2026-01-01T04:00:00.000Z']);
  now = new Date('2026-01-01T04:00:00Z');
  await dispatcher.tick();
  expect(await statuses(s.id)).toEqual([['2026-01-01T04:00:00.000Z', 'scheduled', 'started']]);
});

it('run-now fires at once with a derived run id', async () => {
  now = new Date('2026-01-01T00:30:00Z');
  const s = await create();
  const fired = await commands.runNow('u1', s.id, '');
  await dispatcher.tick();
  expect(await statuses(s.id)).toEqual([['2026-01-01T00:30:00.000Z', 'manual', 'started']]);
  expect((await commands.get('u1', s.id)).lastRunId).toBe(fired.runId);
});

it('backfill queues the fires of a past range once; a repeat starts nothing again', async () => {
  now = new Date('2026-01-02T00:00:00Z');
  const s = await create();
  const first = await commands.backfill('u1', s.id, { from: '2026-01-01T01:00:00Z', to: '2026-01-01T03:00:00Z', overlapPolicy: '' });
  expect([first.queued.length, first.alreadyRecorded]).toEqual([3, 0]);
  await dispatcher.tick();
  const again = await commands.backfill('u1', s.id, { from: '2026-01-01T02:00:00Z', to: '2026-01-01T04:00:00Z', overlapPolicy: 'skip' });
  expect([again.queued.map((d) => d.toISOString()), again.alreadyRecorded]).toEqual([['2026-01-01T04:00:00.000Z'], 2]);
  await dispatcher.tick();
  expect(await statuses(s.id)).toEqual([
    ['2026-01-01T01:00:00.000Z', 'backfill', 'started'],
    ['2026-01-01T02:00:00.000Z', 'backfill', 'started'],
    ['2026-01-01T03:00:00.000Z', 'backfill', 'started'],
    // skip for this backfill: the earlier runs are still active.
    ['2026-01-01T04:00:00.000Z', 'backfill', 'skipped'],
  ]);
});

it('refuses bad backfill ranges, naming the field', async () => {
  now = new Date('2026-01-02T00:00:00Z');
  const s = await create({ spec: { cron: '* * * * *' } });
  expect((await error(commands.backfill('u1', s.id, { from: 'yesterday', to: '2026-01-01T00:00:00Z', overlapPolicy: '' }))).violations[0]!.field).toBe('start_time');
  expect((await error(commands.backfill('u1', s.id, { from: '2026-01-01T05:00:00Z', to: '2026-01-01T04:00:00Z', overlapPolicy: '' }))).violations[0]!.field).toBe('end_time');
  expect((await error(commands.backfill('u1', s.id, { from: '2026-01-01T00:00:00Z', to: '2026-01-03T00:00:00Z', overlapPolicy: '' }))).message).toMatch(/future/);
  expect((await error(commands.backfill('u1', s.id, { from: '2025-12-01T00:00:00Z', to: '2026-01-01T00:00:00Z', overlapPolicy: '' }))).message).toMatch(/more than 1000 fires/);
  expect((await error(commands.backfill('u1', s.id, { from: '2026-01-01T00:00:00Z', to: '2026-01-01T00:10:00Z', overlapPolicy: 'skipp' }))).violations[0]!.field).toBe('overlap_policy');
});

it("another user's schedule is not found, for every command", async () => {
  now = new Date('2026-01-01T00:30:00Z');
  const s = await create();
  const calls = [
    commands.get('u2', s.id),
    commands.update('u2', s.id, { name: 'x', spec: { cron: '* * * * *' }, target: { plan } }),
    commands.pause('u2', s.id),
    commands.resume('u2', s.id),
    commands.runNow('u2', s.id, ''),
    commands.backfill('u2', s.id, { from: '2026-01-01T00:00:00Z', to: '2026-01-01T00:10:00Z', overlapPolicy: '' }),
    commands.fires('u2', s.id, 10),
    commands.delete('u2', s.id),
    commands.get('u1', 'not-a-uuid'),
  ];
  for (const c of calls) expect((await error(c)).code).toBe('NOT_FOUND');
  expect((await commands.list('u2', 0, '')).schedules).toEqual([]);
  expect((await commands.get('u1', s.id)).id).toBe(s.id);
});

it('refuses bad definitions, naming each field', async () => {
  now = new Date('2026-01-01T00:30:00Z');
  const e = await error(create({ spec: { cron: '0 8 * * 9', timezone: 'Mars/Olympus' }, overlap_policy: 'bufferone' }));
  expect(e.code).toBe('INVALID_ARGUMENT');
  expect(e.violations.map((v) => v.field).sort()).toEqual(['overlap_policy', 'spec.timezone']);
  const cron = await error(create({ spec: { cron: '0 8 * * 9' } }));
  expect(cron.violations).toEqual([{ field: 'spec.cron', reason: expect.stringContaining("day-of-week '9' at position 9") }]);
  const past = await error(create({ spec: { at: '2025-01-01T00:00:00Z' } }));
  expect(past.violations[0]!.field).toBe('spec.at');
  const badPlan = await error(create({ target: { plan: { nodes: [{ id: 'a', kind: 'nope' }] } } }));
  expect(badPlan.violations[0]!.field).toMatch(/^target\.plan\.nodes/);
});

it('create with an idempotency key returns the same schedule; update replaces the definition; delete removes it', async () => {
  now = new Date('2026-01-01T00:30:00Z');
  const a = await create({}, 'u1', 'key-1');
  const b = await create({ name: 'other' }, 'u1', 'key-1');
  expect(b.id).toBe(a.id);
  const [c, d] = await Promise.all([create({}, 'u1', 'key-2'), create({}, 'u1', 'key-2')]);
  expect(c.id).toBe(d.id);
  expect((await create({}, 'u2', 'key-1')).id).not.toBe(a.id);
  const updated = await commands.update('u1', a.id, { name: 'daily', spec: { cron: '0 6 * * *', timezone: 'Asia/Tokyo' }, target: { plan } });
  expect([updated.name, updated.nextFireAt?.toISOString(), updated.definition.overlap_policy]).toEqual(['daily', '2026-01-01T21:00:00.000Z', 'skip']);
  await commands.delete('u1', a.id);
  expect((await error(commands.get('u1', a.id))).code).toBe('NOT_FOUND');
});

it('lists the owner’s schedules page by page', async () => {
  await kit.db.query('DELETE FROM schedules');
  now = new Date('2026-01-01T00:30:00Z');
  for (let i = 0; i < 3; i++) await create({ name: `s${i}` });
  const p1 = await commands.list('u1', 2, '');
  const p2 = await commands.list('u1', 2, p1.nextPageToken);
  expect([...p1.schedules, ...p2.schedules].map((s) => s.name).sort()).toEqual(['s0', 's1', 's2']);
  expect(p2.nextPageToken).toBe('');
  expect((await error(commands.list('u1', 2, 'garbage'))).violations[0]!.field).toBe('page_token');
});

describe('monitors', () => {
  const detecting = { nodes: [{ id: 'new_items', kind: 'tool', action: 'detect_new_data', params: { connector: 'c', endpoint: 'e' } }] };

  it('polls on its interval inside its active hours only, as monitor runs', async () => {
    await kit.db.query('DELETE FROM schedules');
    // 2026-01-01T00:00Z; active 09:00–10:00 in Tokyo = 00:00–01:00Z.
    now = new Date('2025-12-31T23:40:00Z');
    const m = await commands.create({ userId: 'u1', teamIds: [], idempotencyKey: '', definition: { name: 'm', monitor: { interval: '30m', active_hours: { start: '09:00', end: '10:00', timezone: 'Asia/Tokyo' } }, overlap_policy: 'allow_all', target: { plan: detecting } } });
    for (const t of ['2026-01-01T00:10:00Z', '2026-01-01T00:40:00Z', '2026-01-01T01:10:00Z']) {
      now = new Date(t);
      await dispatcher.tick();
    }
    expect((await commands.fires('u1', m.id, 10)).reverse().map((f) => [f.fireAt.toISOString(), f.status, f.reason])).toEqual([
      ['2026-01-01T00:10:00.000Z', 'started', null],
      ['2026-01-01T00:40:00.000Z', 'started', null],
      ['2026-01-01T01:10:00.000Z', 'skipped', 'outside_active_hours'],
    ]);
    const [run] = await kit.db.query(`SELECT run_context, plan->>'approvalPolicy' AS approval FROM runs WHERE id = $1`, [(await commands.fires('u1', m.id, 10)).at(-1)!.runId]);
    expect(run).toEqual({ run_context: 'monitor', approval: 'auto_approve' });
  });

  it('refuses a monitor without a detection step', async () => {
    now = new Date('2026-01-01T00:00:00Z');
    const e = await error(commands.create({ userId: 'u1', teamIds: [], idempotencyKey: '', definition: { name: 'm', monitor: { interval: '30m' }, target: { plan } } }));
    expect(e.violations).toEqual([{ field: 'target.plan.nodes', reason: expect.stringContaining('at least one detection step') }]);
  });
});

describe('monitor watermarks', () => {
  const detecting = { nodes: [{ id: 'new_items', kind: 'tool', action: 'detect_new_data', params: { connector: 'c', endpoint: 'e' } }] };

  it('set, list and reset per step; a value must fit its kind and a step keeps its kind; owner only', async () => {
    now = new Date('2026-01-01T00:00:00Z');
    const watermarks = new MonitorWatermarks(commands, new MonitorWatermarkStore(kit));
    const m = await commands.create({ userId: 'u1', teamIds: [], idempotencyKey: '', definition: { name: 'm', monitor: { interval: '30m' }, target: { plan: detecting } } });
    const set = (stepName: string, kind: string, value: string, userId = 'u1') => watermarks.set(userId, m.id, { stepName, kind, value, metadata: { endpoint: 'e' } });
    await set('new_items', 'timestamp', '2026-01-01T00:00:00Z');
    await set('new_items', 'timestamp', '2026-01-02T00:00:00Z');
    await set('listing', 'hash', 'a'.repeat(64));
    expect((await watermarks.list('u1', m.id)).map((w) => [w.stepName, w.kind, w.value, w.metadata])).toEqual([
      ['listing', 'hash', 'a'.repeat(64), { endpoint: 'e' }],
      ['new_items', 'timestamp', '2026-01-02T00:00:00Z', { endpoint: 'e' }],
    ]);
    const wrongKind = await error(set('new_items', 'cursor', 'abc'));
    expect(wrongKind.violations).toEqual([{ field: 'watermark_type', reason: expect.stringContaining('keeps a timestamp watermark, not cursor'), code: 'watermark_kind_mismatch' }]);
    expect((await error(set('new_items', 'timestamp', 'yesterday'))).violations[0]!.field).toBe('watermark_value');
    expect((await error(set('new_items', 'etag', 'x'))).violations[0]!.field).toBe('watermark_type');
    expect((await error(set('bad step', 'offset', '1'))).violations[0]!.field).toBe('step_name');
    expect((await error(set('new_items', 'offset', '1', 'u2'))).code).toBe('NOT_FOUND');
    expect((await error(watermarks.list('u2', m.id))).code).toBe('NOT_FOUND');
    expect(await watermarks.reset('u1', m.id, 'listing')).toBe(1);
    expect(await watermarks.reset('u1', m.id, '')).toBe(1);
    expect(await watermarks.list('u1', m.id)).toEqual([]);
    // After a reset the step may take another kind.
    expect((await set('new_items', 'cursor', 'abc')).kind).toBe('cursor');
  });

  it('a schedule that is not a monitor has no watermarks', async () => {
    now = new Date('2026-01-01T00:00:00Z');
    const watermarks = new MonitorWatermarks(commands, new MonitorWatermarkStore(kit));
    const s = await create();
    expect((await error(watermarks.list('u1', s.id))).code).toBe('NOT_FOUND');
  });
});
