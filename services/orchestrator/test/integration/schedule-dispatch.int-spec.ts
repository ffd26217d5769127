/**
 * The schedule dispatcher against real PostgreSQL (real: schedules, fires,
 * runs tables, row locks; in-process bus). Time is a fake clock the tests
 * move; runs are created through RunCommands.start and "finish" by having
 * their status set, as no executor runs here.
 */
import { AppError, ServiceKit, sqlRows } from '@af/service-kit';
import { createTestDatabase, type TestDatabase } from '@af/testing';
import { orchestratorEnvSchema, type OrchestratorConfig } from '../../src/config.js';
import { ORCHESTRATOR_MIGRATIONS } from '../../src/infra/migrations/index.js';
import { RunRepository } from '../../src/infra/run.repository.js';
import { RunCommands } from '../../src/app/run-commands.js';
import { ScheduleStore, type BatchedStart, type ClaimedSchedule } from '../../src/infra/schedule.store.js';
import { ScheduleCommands } from '../../src/app/schedule-commands.js';
import { ScheduleDispatcher, type FireRuns } from '../../src/app/schedule-dispatcher.js';
import { scheduleFireRuns } from '../../src/app/schedule-runs.js';
import { fireRunId } from '../../src/domain/schedules/fire-run-id.js';
import { noPlanner } from '../../src/infra/planner.client.js';
import type { AgentProfiles } from '../../src/infra/agent-profiles.client.js';

let db: TestDatabase;
let kit: ServiceKit<OrchestratorConfig>;
let runs: RunCommands;
let store: ScheduleStore;
let now: Date;
const clock = () => now;
let commands: ScheduleCommands;

const plan = { nodes: [{ id: 'a', kind: 'transform', action: 'transform_data', params: { operation: 'count' } }] };
const startKit = (name: string) =>
  ServiceKit.start({
    name: 'orchestrator',
    envSchema: orchestratorEnvSchema,
    env: { SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789', DATABASE_URL: db.url, NATS_URL: `memory://${name}`, CONNECTOR_RUNTIME_URL: '127.0.0.1:1', METRICS_PORT: '0', LOG_LEVEL: 'silent' },
    migrations: ORCHESTRATOR_MIGRATIONS,
  });

function dispatcher(fireRuns: FireRuns = scheduleFireRuns(runs, noPlanner), s = store) {
  return new ScheduleDispatcher(s, fireRuns, kit.log, { clock, batch: 10, workers: 1, pollMs: 1000, bufferRecheckMs: 1000 });
}

beforeAll(async () => {
  db = await createTestDatabase();
  kit = await startKit('sched-int');
  runs = new RunCommands(new RunRepository(kit));
  store = new ScheduleStore(kit);
  commands = new ScheduleCommands(store, clock);
});

afterAll(async () => {
  await kit?.close();
  await db?.drop();
});

beforeEach(async () => {
  await kit.db.query('DELETE FROM schedules');
});

const schedule = (over: Record<string, unknown> = {}, userId = 'u1') =>
  commands.create({ userId, teamIds: [], idempotencyKey: '', definition: { name: 'n', spec: { cron: '0 * * * *' }, target: { plan }, ...over } });
const runsOf = (scheduleId: string) => sqlRows<{ id: string; status: string; run_context: string; inputs: any; plan: any }>(kit.db, `SELECT r.* FROM runs r JOIN schedule_fires f ON f.run_id = r.id WHERE f.schedule_id = $1 ORDER BY f.fire_at`, [scheduleId]);
const firesOf = async (scheduleId: string) => (await store.fires(scheduleId, 100)).reverse().map((f) => [f.fireAt.toISOString(), f.status]);
const finish = (runId: string) => kit.db.query(`UPDATE runs SET status = 'completed' WHERE id = $1`, [runId]);

describe('cron fires', () => {
  it('fires a New York 09:00 cron at 14:00Z, then 13:00Z after spring-forward, one run per fire with the derived id', async () => {
    now = new Date('2026-03-07T00:00:00Z');
    const s = await schedule({ spec: { cron: '0 9 * * *', timezone: 'America/New_York' }, overlap_policy: 'allow_all', query_template: 'news since {last_run_date} until {date}' });
    expect(s.nextFireAt?.toISOString()).toBe('2026-03-07T14:00:00.000Z');
    const d = dispatcher();
    for (const t of ['2026-03-07T13:59:59Z', '2026-03-07T14:00:00Z', '2026-03-07T14:00:30Z', '2026-03-08T12:59:59Z', '2026-03-08T13:00:00Z', '2026-03-08T13:00:01Z']) {
      now = new Date(t);
      await d.tick();
    }
    expect(await firesOf(s.id)).toEqual([
      ['2026-03-07T14:00:00.000Z', 'started'],
      ['2026-03-08T13:00:00.000Z', 'started'],
    ]);
    const started = await runsOf(s.id);
    expect(started.map((r) => r.id)).toEqual([fireRunId(s.id, new Date('2026-03-07T14:00:00Z')), fireRunId(s.id, new Date('2026-03-08T13:00:00Z'))]);
    expect(started.map((r) => r.run_context)).toEqual(['scheduled', 'scheduled']);
    expect(started.map((r) => r.inputs.query)).toEqual(['news since 2026-03-06 until 2026-03-07', 'news since 2026-03-07 until 2026-03-08']);
    const view = await commands.get('u1', s.id);
    expect([view.nextFireAt?.toISOString(), view.lastRunId, view.lastRunStatus]).toEqual(['2026-03-09T13:00:00.000Z', started[1]!.id, 'queued']);
  });

  it('fires a Berlin 02:30 cron once on the fall-back day (the first 02:30) and an hour later on spring-forward day (03:30)', async () => {
    now = new Date('2026-03-28T12:00:00Z');
    const s = await schedule({ spec: { cron: '30 2 * * *', timezone: 'Europe/Berlin' }, overlap_policy: 'allow_all' });
    const d = dispatcher();
    // 2026-03-29: 02:00 CET jumps to 03:00 CEST, so 02:30 does not exist: it fires at 03:30 CEST (01:30Z).
    for (const t of ['2026-03-29T00:30:00Z', '2026-03-29T01:29:59Z', '2026-03-29T01:30:00Z', '2026-03-30T00:30:00Z']) {
      now = new Date(t);
      await d.tick();
    }
    expect(await firesOf(s.id)).toEqual([
      ['2026-03-29T01:30:00.000Z', 'started'],
      ['2026-03-30T00:30:00.000Z', 'started'],
    ]);
    const t = await schedule({ spec: { cron: '30 2 * * *', timezone: 'Europe/Berlin' }, overlap_policy: 'allow_all' });
    // 2026-10-25: 03:00 CEST goes back to 02:00 CET, so 02:30 happens at 00:30Z and again at 01:30Z: it fires once, at the first.
    now = new Date('2026-10-24T12:00:00Z');
    await commands.update('u1', t.id, { name: 'n', spec: { cron: '30 2 * * *', timezone: 'Europe/Berlin' }, target: { plan }, overlap_policy: 'allow_all' });
    for (const at of ['2026-10-25T00:30:00Z', '2026-10-25T01:30:00Z', '2026-10-25T02:00:00Z', '2026-10-26T01:30:00Z']) {
      now = new Date(at);
      await d.tick();
    }
    expect((await firesOf(t.id)).filter(([f]) => f! >= '2026-10-25')).toEqual([
      ['2026-10-25T00:30:00.000Z', 'started'],
      ['2026-10-26T01:30:00.000Z', 'started'],
    ]);
  });

  it('a burst due at the same instant is dispatched in one tick by claims that go on from each other (batch 10, two workers)', async () => {
    now = new Date('2026-01-01T00:30:00Z');
    const made = [];
    for (let i = 0; i < 45; i++) made.push(await schedule({ spec: { at: '2026-01-01T01:00:00Z' } }));
    now = new Date('2026-01-01T01:00:00Z');
    const d = new ScheduleDispatcher(store, scheduleFireRuns(runs, noPlanner), kit.log, { clock, batch: 10, workers: 2, pollMs: 1000, bufferRecheckMs: 1000 });
    const report = await d.tick();
    expect(report.started).toBe(45);
    const [row] = await sqlRows<{ fires: number; runs: number }>(
      kit.db,
      `SELECT count(*)::int AS fires, count(DISTINCT r.id)::int AS runs FROM schedule_fires f JOIN runs r ON r.id = f.run_id WHERE f.schedule_id = ANY($1::uuid[]) AND f.status = 'started'`,
      [made.map((m) => m.id)],
    );
    expect(row).toEqual({ fires: 45, runs: 45 });
  });

  it('gives the run the approval policy and a timeout policy of the schedule', async () => {
    now = new Date('2026-01-01T00:30:00Z');
    const s = await schedule({ approval_policy: 'auto_approve', timeout_seconds: 90 });
    now = new Date('2026-01-01T01:00:00Z');
    await dispatcher().tick();
    const [run] = await runsOf(s.id);
    expect(run!.plan.approvalPolicy).toBe('auto_approve');
    const [row] = await sqlRows(kit.db, 'SELECT policies FROM runs WHERE id = $1', [run!.id]);
    expect(row.policies).toEqual([expect.objectContaining({ id: 'schedule_timeout', trigger: { kind: 'onTimeout', ms: 90_000 }, action: expect.objectContaining({ type: 'fail' }) })]);
  });
});

describe('agent profile targets', () => {
  const profileId = 'a0000000-0000-4000-8000-000000000001';
  const asked: Array<{ principal: unknown; query: string; runId: string; runContext: string }> = [];
  const agents: AgentProfiles = {
    authorize: async (_p, id) => {
      if (id !== profileId) throw AppError.notFound('agent profile', id);
    },
    prepareRun: async (principal, r) => {
      asked.push({ principal, query: r.query, runId: r.runId, runContext: r.runContext });
      if (r.query.includes('clarify')) throw new AppError('FAILED_PRECONDITION', "agent '@np' needs more input than the schedule gives", { retryable: false });
      return { agentProfileId: r.agentProfileId, plan, inputs: { org_name: 'Omidyar' }, teamId: '', strategy: 'playbook' };
    },
  };
  const agentCommands = () => new ScheduleCommands(store, clock, undefined, agents);
  const create = (over: Record<string, unknown> = {}) =>
    agentCommands().create({
      userId: 'u1',
      teamIds: ['t1'],
      idempotencyKey: '',
      definition: { name: 'agent', spec: { cron: '0 9 * * *', timezone: 'Europe/Berlin' }, target: { agent_profile_id: profileId }, query_template: 'news from {last_run_date} to {date}', ...over },
    });

  it('a fire asks the agent the rendered query and creates its run as the agent\'s scheduled run', async () => {
    now = new Date('2026-03-02T07:30:00Z');
    const s = await create();
    now = new Date('2026-03-02T08:00:00Z');
    await dispatcher(scheduleFireRuns(runs, noPlanner, agents)).tick();
    const fire = (await store.fires(s.id, 10))[0]!;
    expect([fire.fireAt.toISOString(), fire.status]).toEqual(['2026-03-02T08:00:00.000Z', 'started']);
    expect(asked.at(-1)).toEqual({ principal: { userId: 'u1', teamIds: ['t1'] }, query: 'news from 2026-03-02 to 2026-03-02', runId: fire.runId, runContext: 'scheduled' });
    const [row] = await sqlRows(kit.db, 'SELECT run_context, inputs, agent_profile_id, invoked_by, agent_team_id FROM runs WHERE id = $1', [fire.runId]);
    expect(row).toEqual({ run_context: 'scheduled', inputs: { org_name: 'Omidyar' }, agent_profile_id: profileId, invoked_by: 'u1', agent_team_id: null });
  });

  it('an agent that cannot answer fails the fire at once, with the reason', async () => {
    now = new Date('2026-03-02T07:30:00Z');
    const s = await create({ query_template: 'clarify {date}' });
    now = new Date('2026-03-02T08:00:00Z');
    await dispatcher(scheduleFireRuns(runs, noPlanner, agents)).tick();
    expect((await store.fires(s.id, 10)).map((f) => [f.status, f.attempt, f.reason])).toEqual([['failed', 0, "agent '@np' needs more input than the schedule gives"]]);
  });

  it('refuses a profile the owner may not run (404), a missing query and an agent monitor (400)', async () => {
    await expect(create({ target: { agent_profile_id: 'a0000000-0000-4000-8000-000000000002' } })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(create({ query_template: '' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: [expect.objectContaining({ field: 'query_template' })] });
    await expect(
      agentCommands().create({ userId: 'u1', teamIds: [], idempotencyKey: '', definition: { name: 'm', monitor: { interval: '15m' }, target: { agent_profile_id: profileId }, query_template: 'x' } }),
    ).rejects.toMatchObject({ violations: [expect.objectContaining({ field: 'target.agent_profile_id' })] });
  });

  it('lists the schedules using a profile: the caller\'s by id and name, others counted', async () => {
    const mine = await create({ name: 'mine' });
    await agentCommands().create({ userId: 'u2', teamIds: [], idempotencyKey: '', definition: { name: 'theirs', spec: { cron: '0 9 * * *' }, target: { agent_profile_id: profileId }, query_template: 'q' } });
    expect(await agentCommands().usingAgentProfile('u1', profileId)).toEqual({ own: [{ id: mine.id, name: 'mine' }], others: 1 });
    expect(await agentCommands().usingAgentProfile('u1', 'a0000000-0000-4000-8000-000000000009')).toEqual({ own: [], others: 0 });
    await expect(agentCommands().usingAgentProfile('u1', '')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('schedules using a stored playbook', () => {
  it("lists the caller's schedules and monitors targeting the playbook, never another user's", async () => {
    now = new Date('2026-03-02T07:30:00Z');
    const daily = await schedule({ name: 'daily', target: { playbook_id: 'pb-1' } });
    const hourly = await schedule({ name: 'hourly', target: { playbook_id: 'pb-1' } });
    await schedule({ name: 'other playbook', target: { playbook_id: 'pb-2' } });
    await schedule({ name: 'theirs', target: { playbook_id: 'pb-1' } }, 'u2');
    // Both are made at the same clock instant: their order among themselves is by id, so compare by name.
    const using = await commands.usingPlaybook('u1', 'pb-1');
    expect(using.total).toBe(2);
    expect([...using.own].sort((a, b) => a.name.localeCompare(b.name))).toEqual([{ id: daily.id, name: 'daily' }, { id: hourly.id, name: 'hourly' }]);
    expect(await commands.usingPlaybook('u1', 'pb-3')).toEqual({ own: [], total: 0 });
    await expect(commands.usingPlaybook('u1', '')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: [expect.objectContaining({ field: 'playbook_id' })] });
    await expect(commands.usingPlaybook('', 'pb-1')).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});

describe('overlap policies (a run of the 01:00 fire still active at 02:00)', () => {
  async function overlap(policy: string) {
    now = new Date('2026-01-01T00:30:00Z');
    const s = await schedule({ overlap_policy: policy });
    const d = dispatcher();
    for (const t of ['01:00', '02:00', '03:00']) {
      now = new Date(`2026-01-01T${t}:00Z`);
      await d.tick();
    }
    return { s, d };
  }

  it('skip: later fires are skipped while the run is active', async () => {
    const { s } = await overlap('skip');
    expect(await firesOf(s.id)).toEqual([
      ['2026-01-01T01:00:00.000Z', 'started'],
      ['2026-01-01T02:00:00.000Z', 'skipped'],
      ['2026-01-01T03:00:00.000Z', 'skipped'],
    ]);
  });

  it('buffer_one: one fire waits, the next is dropped; the waiting one starts when the run ends', async () => {
    const { s, d } = await overlap('buffer_one');
    expect((await firesOf(s.id)).map((f) => f[1])).toEqual(['started', 'buffered', 'skipped']);
    await finish(fireRunId(s.id, new Date('2026-01-01T01:00:00Z')));
    now = new Date('2026-01-01T03:00:02Z');
    await d.tick();
    expect((await firesOf(s.id)).map((f) => f[1])).toEqual(['finished', 'started', 'skipped']);
  });

  it('buffer_all: every fire waits and they start one after another', async () => {
    const { s, d } = await overlap('buffer_all');
    expect((await firesOf(s.id)).map((f) => f[1])).toEqual(['started', 'buffered', 'buffered']);
    await finish(fireRunId(s.id, new Date('2026-01-01T01:00:00Z')));
    now = new Date('2026-01-01T03:00:02Z');
    await d.tick();
    expect((await firesOf(s.id)).map((f) => f[1])).toEqual(['finished', 'started', 'buffered']);
    await finish(fireRunId(s.id, new Date('2026-01-01T02:00:00Z')));
    now = new Date('2026-01-01T03:00:04Z');
    await d.tick();
    expect((await firesOf(s.id)).map((f) => f[1])).toEqual(['finished', 'finished', 'started']);
  });

  it.each(['cancel_other', 'terminate_other'])('%s: the active run is cancelled and the new fire runs', async (policy) => {
    const { s } = await overlap(policy);
    expect((await firesOf(s.id)).map((f) => f[1])).toEqual(['finished', 'finished', 'started']);
    expect((await runsOf(s.id)).map((r) => r.status)).toEqual(['cancelled', 'cancelled', 'queued']);
  });

  it('allow_all: every fire runs alongside', async () => {
    const { s } = await overlap('allow_all');
    expect((await runsOf(s.id)).map((r) => r.status)).toEqual(['queued', 'queued', 'queued']);
  });
});

describe('catch-up window', () => {
  it('after every replica was down, fires older than the window are missed and those inside it run', async () => {
    now = new Date('2026-01-01T00:30:00Z');
    const s = await schedule({ overlap_policy: 'allow_all', catchup_window: '2h' });
    now = new Date('2026-01-01T05:30:00Z');
    await dispatcher().tick();
    expect(await firesOf(s.id)).toEqual([
      ['2026-01-01T04:00:00.000Z', 'started'],
      ['2026-01-01T05:00:00.000Z', 'started'],
    ]);
    const view = await commands.get('u1', s.id);
    expect([view.missedFires, view.nextFireAt?.toISOString()]).toEqual([3, '2026-01-01T06:00:00.000Z']);
  });
});

describe('starting runs', () => {
  it('retries a fire whose run could not start, then starts it once', async () => {
    now = new Date('2026-01-01T00:30:00Z');
    const s = await schedule({ max_retries: 2 });
    const real = scheduleFireRuns(runs, noPlanner);
    let failures = 2;
    const flaky: FireRuns = { ...real, prepare: async (sch, fire) => (failures-- > 0 ? Promise.reject(new AppError('UNAVAILABLE', 'planner down')) : real.prepare(sch, fire)) };
    const d = dispatcher(flaky);
    for (const t of ['01:00:00', '01:00:01', '01:00:03']) {
      now = new Date(`2026-01-01T${t}Z`);
      await d.tick();
    }
    const fires = await store.fires(s.id, 10);
    expect(fires.map((f) => [f.status, f.attempt])).toEqual([['started', 2]]);
  });

  it('gives up after max_retries, and at once on a non-retryable error', async () => {
    now = new Date('2026-01-01T00:30:00Z');
    const s = await schedule({ max_retries: 0 });
    const d = dispatcher({ prepare: async () => Promise.reject(new AppError('UNAVAILABLE', 'down')), cancel: async () => undefined });
    now = new Date('2026-01-01T01:00:00Z');
    await d.tick();
    expect((await store.fires(s.id, 10)).map((f) => [f.status, f.reason])).toEqual([['failed', 'down']]);
    const t = await schedule({ max_retries: 5 });
    const bad = dispatcher({ prepare: async () => Promise.reject(AppError.invalid('inputs.topic', 'is required')), cancel: async () => undefined });
    now = new Date('2026-01-01T02:00:00Z');
    await bad.tick();
    expect((await store.fires(t.id, 10)).map((f) => [f.fireAt.toISOString(), f.status, f.attempt])).toEqual([['2026-01-01T02:00:00.000Z', 'failed', 0]]);
  });

  it('a dispatch that dies mid-claim leaves neither fire nor run; the next one starts exactly one run', async () => {
    now = new Date('2026-01-01T00:30:00Z');
    const s = await schedule();
    // The runs are created by the statement that ends the claim: a crash before its commit rolls everything back.
    class CrashingStore extends ScheduleStore {
      crash = true;
      override claim(at: Date, limit: number, step: (c: ClaimedSchedule) => Promise<void>, started?: (fires: BatchedStart[]) => void) {
        return super.claim(
          at,
          limit,
          async (c) => {
            await step(c);
            if (this.crash) {
              this.crash = false;
              throw new Error('connection lost mid-dispatch');
            }
          },
          started,
        );
      }
    }
    const d = dispatcher(scheduleFireRuns(runs, noPlanner), new CrashingStore(kit));
    now = new Date('2026-01-01T01:00:00Z');
    await expect(d.tick()).rejects.toThrow('connection lost mid-dispatch');
    expect(await firesOf(s.id)).toEqual([]);
    now = new Date('2026-01-01T01:00:05Z');
    await d.tick();
    expect(await firesOf(s.id)).toEqual([['2026-01-01T01:00:00.000Z', 'started']]);
    const [{ n }] = await sqlRows(kit.db, `SELECT count(*)::int AS n FROM runs WHERE idempotency_key LIKE $1`, [`schedule:${s.id}:%`]);
    expect(n).toBe(1);
  });
});

describe('replicas', () => {
  it('three dispatchers ticking at once over 60 due schedules start exactly one run per fire', async () => {
    now = new Date('2026-01-01T00:30:00Z');
    const ids = await Promise.all(Array.from({ length: 60 }, () => schedule({ overlap_policy: 'allow_all' }).then((s) => s.id)));
    const kits = await Promise.all([startKit('r2'), startKit('r3')]);
    try {
      const ds = [store, ...kits.map((k) => new ScheduleStore(k))].map((st, i) => dispatcher(scheduleFireRuns(i === 0 ? runs : new RunCommands(new RunRepository(kits[i - 1]!)), noPlanner), st));
      for (const t of ['01:00:00', '02:00:00']) {
        now = new Date(`2026-01-01T${t}Z`);
        await Promise.all(ds.map((d) => d.tick()));
      }
      const rows = await sqlRows<{ schedule_id: string; n: number }>(kit.db, `SELECT schedule_id, count(*)::int AS n FROM schedule_fires WHERE status = 'started' GROUP BY schedule_id`);
      expect(rows).toHaveLength(60);
      expect(rows.every((r) => r.n === 2)).toBe(true);
      const [{ n }] = await sqlRows(kit.db, `SELECT count(*)::int AS n FROM runs WHERE run_context = 'scheduled' AND idempotency_key LIKE ANY($1)`, [ids.map((id) => `schedule:${id}:%`)]);
      expect(n).toBe(120);
    } finally {
      await Promise.all(kits.map((k) => k.close()));
    }
  });
});
