/**
 * Schedules end to end: the gateway's /api/agent-factory/schedules routes,
 * three orchestrator replicas dispatching (separate processes, real gRPC,
 * PostgreSQL, NATS JetStream). Fires are every second; the tests wait for
 * fires to be recorded, then pause and check what was recorded.
 */
import { http, registerUser, startStack, until, type Stack } from '@af/testing';

let stack: Stack;
let alice: string;
let bob: string;

beforeAll(async () => {
  stack = await startStack({ orchestratorReplicas: 3, env: { orchestrator: { SCHEDULE_POLL_MS: '100', SCHEDULE_BUFFER_RECHECK_MS: '100' } } });
  alice = (await registerUser(stack.gatewayUrl, 'sched-alice@example.com')).token;
  bob = (await registerUser(stack.gatewayUrl, 'sched-bob@example.com')).token;
}, 180_000);

afterAll(async () => {
  await stack?.stop();
});

const url = (path: string) => `${stack.gatewayUrl}/api/agent-factory/schedules${path}`;
const quick = { nodes: [{ id: 'wait', kind: 'delay', params: { durationMs: 10 } }] };
const slow = { nodes: [{ id: 'wait', kind: 'delay', params: { durationMs: 600_000 } }] };
const definition = (over: Record<string, unknown> = {}) => ({ name: 'every second', spec: { interval: '1s' }, target: { plan: quick }, overlap_policy: 'allow_all', ...over });

async function create(over: Record<string, unknown> = {}, token = alice): Promise<string> {
  const res = await http('POST', url(''), { token, body: definition(over) });
  if (res.status !== 200 && res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.schedule.id as string;
}

interface Fire {
  fire_at: string;
  kind: string;
  status: string;
  run_id: string | null;
}

async function fires(id: string): Promise<Fire[]> {
  const res = await http('GET', url(`/${id}/fires?limit=500`), { token: alice });
  expect(res.status).toBe(200);
  return (res.body.fires as Fire[]).reverse();
}

const fired = (id: string, n: number) => until(`${n} fires of ${id}`, async () => ((await fires(id)).length >= n ? true : undefined), 60_000, 250);
const pause = async (id: string) => expect((await http('POST', url(`/${id}/pause`), { token: alice })).status).toBe(200);
const runStatus = async (runId: string) => (await http('GET', `${stack.gatewayUrl}/api/v1/runs/${runId}`, { token: alice })).body.run?.status as string;

/** Fires of an interval schedule form an unbroken 1 s grid, each with its own run. */
function assertOneRunPerFire(list: Fire[]) {
  const times = list.map((f) => Date.parse(f.fire_at));
  times.slice(1).forEach((t, i) => expect(t - times[i]!).toBe(1000));
  expect(list.every((f) => f.status === 'started' || f.status === 'finished')).toBe(true);
  expect(new Set(list.map((f) => f.run_id)).size).toBe(list.length);
}

describe('bad input', () => {
  it('400 naming the cron field and position, the unknown zone, the overlap typo', async () => {
    const cron = await http('POST', url(''), { token: alice, body: definition({ spec: { cron: '0 25 * * *', timezone: 'Europe/Berlin' } }) });
    expect(cron.status).toBe(400);
    expect(cron.body.error.violations).toEqual([expect.objectContaining({ field: 'spec.cron', reason: expect.stringContaining("hour '25' at position 3") })]);
    const zone = await http('POST', url(''), { token: alice, body: definition({ spec: { cron: '0 8 * * *', timezone: 'Europe/Berln' } }) });
    expect(zone.status).toBe(400);
    expect(zone.body.error.violations).toEqual([expect.objectContaining({ field: 'spec.timezone', reason: expect.stringContaining("unknown time zone 'Europe/Berln'") })]);
    const typo = await http('POST', url(''), { token: alice, body: definition({ overlap_policy: 'bufer_all' }) });
    expect(typo.status).toBe(400);
    expect(typo.body.error.violations).toEqual([expect.objectContaining({ field: 'overlap_policy', reason: expect.stringContaining('buffer_all') })]);
    expect((await http('POST', url(''), { token: alice, raw: '[1]' })).status).toBe(400);
    const list = await http('GET', url(''), { token: alice });
    expect(list.body.schedules).toEqual([]);
  });
});

describe('owner only', () => {
  it("another user's schedule is 404 on every route", async () => {
    const id = await create({ paused: true });
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `/${id}`],
      ['PUT', `/${id}`, definition()],
      ['POST', `/${id}/pause`],
      ['POST', `/${id}/resume`],
      ['POST', `/${id}/run-now`, {}],
      ['POST', `/${id}/backfill`, { start_time: '2026-01-01T00:00:00Z', end_time: '2026-01-01T00:00:05Z' }],
      ['GET', `/${id}/fires`],
      ['DELETE', `/${id}`],
    ];
    for (const [method, path, body] of routes) expect([method, path, (await http(method, url(path), { token: bob, body })).status]).toEqual([method, path, 404]);
    expect((await http('GET', url(''), { token: bob })).body.schedules).toEqual([]);
    expect((await http('GET', url(`/${id}`), { token: alice })).status).toBe(200);
    expect((await http('DELETE', url(`/${id}`), { token: alice })).status).toBe(204);
    expect((await http('GET', url(`/${id}`), { token: alice })).status).toBe(404);
  });
});

describe('dispatch', () => {
  it('run-now starts a scheduled run with the id it answered, which completes', async () => {
    const id = await create({ paused: true });
    await http('POST', url(`/${id}/resume`), { token: alice });
    await pause(id);
    const now = await http('POST', url(`/${id}/run-now`), { token: alice, body: {} });
    expect(now.status).toBe(202);
    // Paused schedules dispatch nothing, run-now included, until resumed.
    await http('POST', url(`/${id}/resume`), { token: alice });
    const status = await until('run-now run to complete', async () => ((await runStatus(now.body.run_id)) === 'completed' ? 'completed' : undefined), 60_000, 100);
    expect(status).toBe('completed');
    await pause(id);
    const manual = (await fires(id)).filter((f) => f.kind === 'manual');
    expect(manual.map((f) => f.run_id)).toEqual([now.body.run_id]);
  });

  // Each policy needs three fires (a second apart) of its own schedule: the six run side by side.
  const overlap: Array<[string, (statuses: string[]) => void]> = [
    ['skip', (s: string[]) => expect(s).toEqual(['started', ...s.slice(1).map(() => 'skipped')])],
    ['buffer_one', (s: string[]) => expect(s).toEqual(['started', 'buffered', ...s.slice(2).map(() => 'skipped')])],
    ['buffer_all', (s: string[]) => expect(s).toEqual(['started', ...s.slice(1).map(() => 'buffered')])],
    ['cancel_other', (s: string[]) => expect(s).toEqual([...s.slice(1).map(() => 'finished'), 'started'])],
    ['terminate_other', (s: string[]) => expect(s).toEqual([...s.slice(1).map(() => 'finished'), 'started'])],
    ['allow_all', (s: string[]) => expect(s.every((x) => x === 'started')).toBe(true)],
  ];
  it(`overlap policies ${overlap.map(([p]) => p).join(', ')}, while each run takes minutes`, async () => {
    const failures = await Promise.all(
      overlap.map(async ([policy, check]) => {
        try {
          const id = await create({ overlap_policy: policy, target: { plan: slow } });
          await fired(id, 3);
          await pause(id);
          const list = await fires(id);
          check(list.map((f) => f.status));
          const cancelled = policy === 'cancel_other' || policy === 'terminate_other';
          for (const f of list.filter((x) => x.run_id)) expect(await runStatus(f.run_id!)).toBe(cancelled && f !== list.at(-1) ? 'cancelled' : 'waiting');
          return undefined;
        } catch (err) {
          return `overlap policy ${policy}: ${(err as Error).message}`;
        }
      }),
    );
    expect(failures.filter(Boolean)).toEqual([]);
  });

  it('three replicas, one killed -9 mid-dispatch and restarted: every fire of 20 schedules starts exactly one run', async () => {
    const ids = await Promise.all(Array.from({ length: 20 }, () => create()));
    // The first and last schedule created stand for all (polling every one at once would load this small
    // machine more than the dispatch does); the assertions below look at every schedule.
    const watched = [ids[0]!, ids.at(-1)!];
    const twoMore = async () => {
      for (const id of watched) await fired(id, (await fires(id)).length + 2);
    };
    await twoMore();
    await stack.orchestrators[1]!.kill();
    await twoMore();
    await stack.orchestrators[1]!.start();
    await twoMore();
    for (const id of ids) await pause(id);
    for (const id of ids) assertOneRunPerFire(await fires(id));
  });

  it('after every replica was down, fires older than the catch-up window are missed and the rest run', async () => {
    const id = await create({ catchup_window: '2s' });
    await fired(id, 2);
    const downAt = Date.now();
    await Promise.all(stack.orchestrators.map((o) => o.kill()));
    // Down long enough for several fires to fall out of the 2 s window.
    await new Promise((r) => setTimeout(r, 6000));
    const upAt = Date.now();
    await Promise.all(stack.orchestrators.map((o) => o.start()));
    const missed = await until('missed fires', async () => {
      const s = (await http('GET', url(`/${id}`), { token: alice })).body.schedule;
      return s?.missed_fires > 0 ? (s.missed_fires as number) : undefined;
    }, 60_000, 100);
    expect(missed).toBeGreaterThanOrEqual(2);
    await fired(id, (await fires(id)).length + 2);
    await pause(id);
    const list = await fires(id);
    // Nothing recorded from well inside the downtime: those fires fell out of the window before any replica was back.
    expect(list.filter((f) => Date.parse(f.fire_at) > downAt + 1000 && Date.parse(f.fire_at) < upAt - 3000)).toEqual([]);
    expect(list.every((f) => f.status === 'started' || f.status === 'finished')).toBe(true);
  });
});

describe('monitors', () => {
  const monitors = (path: string) => `${stack.gatewayUrl}/api/agent-factory/monitors${path}`;
  const detecting = { nodes: [{ id: 'new_items', kind: 'tool', action: 'detect_new_data', params: { connector: 'c', endpoint: 'e' } }] };

  it('create, list, pause, resume and delete a monitor, set / get / reset its watermarks; bad input is 400; others get 404', async () => {
    const noDetection = await http('POST', monitors(''), { token: alice, body: { name: 'm', monitor_config: { interval: '15m' }, target: { plan: quick } } });
    expect(noDetection.status).toBe(400);
    expect(noDetection.body.error.violations).toEqual([expect.objectContaining({ field: 'target.plan.nodes', reason: expect.stringContaining('detection step') })]);
    const badHours = await http('POST', monitors(''), { token: alice, body: { name: 'm', monitor_config: { interval: '15m', active_hours: { start: '8am', end: '22:00', timezone: 'UTC' } }, target: { plan: detecting } } });
    expect(badHours.status).toBe(400);
    expect(badHours.body.error.violations).toEqual([expect.objectContaining({ field: 'monitor.active_hours.start' })]);
    const created = await http('POST', monitors(''), {
      token: alice,
      body: { name: 'new filings', monitor_config: { interval: '15m', active_hours: { start: '08:00', end: '22:00', timezone: 'America/New_York' } }, target: { plan: detecting }, paused: true },
    });
    expect(created.status).toBe(201);
    const id = created.body.monitor.id as string;
    expect(created.body.monitor.monitor_config).toEqual({ interval: 900_000, active_hours: { start: '08:00', end: '22:00', timezone: 'America/New_York' }, suppress_if_empty: true });
    expect(created.body.monitor.definition.approval_policy).toBe('auto_approve');
    expect((await http('GET', monitors(''), { token: alice })).body.monitors.map((m: { id: string }) => m.id)).toContain(id);
    const scheduleId = await create({ paused: true });
    // A plain schedule is not a monitor.
    expect((await http('GET', monitors(`/${scheduleId}`), { token: alice })).status).toBe(404);
    expect((await http('GET', monitors(''), { token: alice })).body.monitors.map((m: { id: string }) => m.id)).not.toContain(scheduleId);
    for (const [method, path] of [['GET', `/${id}`], ['POST', `/${id}/pause`], ['POST', `/${id}/run-now`], ['DELETE', `/${id}`]] as const) {
      expect([method, path, (await http(method, monitors(path), { token: bob })).status]).toEqual([method, path, 404]);
    }
    const set = await http('PUT', monitors(`/${id}/watermarks/new_items`), { token: alice, body: { watermark_type: 'timestamp', watermark_value: '2026-01-01T00:00:00Z', metadata: { endpoint: 'filings' } } });
    expect(set.status).toBe(200);
    expect((await http('GET', monitors(`/${id}/watermarks`), { token: alice })).body.watermarks).toEqual([
      expect.objectContaining({ step_name: 'new_items', watermark_type: 'timestamp', watermark_value: '2026-01-01T00:00:00Z', metadata: { endpoint: 'filings' } }),
    ]);
    const wrongKind = await http('PUT', monitors(`/${id}/watermarks/new_items`), { token: alice, body: { watermark_type: 'offset', watermark_value: '3' } });
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body.error.violations).toEqual([expect.objectContaining({ field: 'watermark_type', code: 'watermark_kind_mismatch' })]);
    expect((await http('GET', monitors(`/${id}/watermarks`), { token: bob })).status).toBe(404);
    expect((await http('POST', monitors(`/${id}/reset-watermarks`), { token: alice })).body).toEqual({ reset: 1 });
    expect((await http('GET', monitors(`/${id}/watermarks`), { token: alice })).body.watermarks).toEqual([]);
    expect((await http('POST', monitors(`/${id}/resume`), { token: alice })).body.monitor.paused).toBe(false);
    // The cycle runs; its detection step fails (no connector 'c'), so the run fails and no watermark moves.
    const fired = await http('POST', monitors(`/${id}/run-now`), { token: alice });
    expect(fired.status).toBe(202);
    const failed = await until('the run-now cycle to fail', async () => {
      const run = (await http('GET', `${stack.gatewayUrl}/api/v1/runs/${fired.body.run_id}`, { token: alice })).body.run;
      return run?.status === 'failed' ? run : undefined;
    }, 60_000, 200);
    expect(failed.run_context).toBe('monitor');
    const stats = (await http('GET', monitors(`/${id}/stats`), { token: alice })).body.stats;
    expect(stats).toMatchObject({ cycles: 1, suppressed: 0, found_last_cycle: 0, failed: 0 });
    expect((await http('GET', monitors(`/${id}/watermarks`), { token: alice })).body.watermarks).toEqual([]);
    expect((await http('GET', monitors(`/${id}/stats`), { token: bob })).status).toBe(404);
    expect((await http('POST', monitors(`/${id}/pause`), { token: alice })).body.monitor.paused).toBe(true);
    expect((await http('DELETE', monitors(`/${id}`), { token: alice })).status).toBe(204);
    expect((await http('GET', monitors(`/${id}`), { token: alice })).status).toBe(404);
  });
});
