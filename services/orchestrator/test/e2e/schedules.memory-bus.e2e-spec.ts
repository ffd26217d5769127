/**
 * Schedules in the one-process mode of `pnpm start` (every service in one
 * process, the in-process bus, real PostgreSQL): a schedule created through
 * the gateway fires and its runs complete; a monitor finds new records, then
 * reports its next cycle suppressed.
 */
import { http, registerUser, startFixtureServer, startStack, until, type FixtureServer, type Stack } from '@af/testing';

let stack: Stack;
let token: string;
let api: FixtureServer;

beforeAll(async () => {
  api = await startFixtureServer();
  api.route('GET', '/records', { json: { items: [{ id: 1, created_at: '2026-01-01T10:00:00Z' }, { id: 2, created_at: '2026-01-01T11:00:00Z' }] } });
  stack = await startStack({ bus: 'memory', env: { orchestrator: { SCHEDULE_POLL_MS: '100' } } });
  token = (await registerUser(stack.gatewayUrl, 'sched-memory@example.com')).token;
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await api?.close();
});

it('an every-second schedule fires and its runs complete', async () => {
  const url = (path: string) => `${stack.gatewayUrl}/api/agent-factory/schedules${path}`;
  const created = await http('POST', url(''), { token, body: { name: 'tick', spec: { interval: '1s' }, target: { plan: { nodes: [{ id: 'wait', kind: 'delay', params: { durationMs: 10 } }] } } } });
  expect(created.status).toBe(201);
  const id = created.body.schedule.id as string;
  const runIds = await until('two fires with runs', async () => {
    const fires = (await http('GET', url(`/${id}/fires`), { token })).body.fires as Array<{ run_id: string | null }>;
    const ids = fires.map((f) => f.run_id).filter((r): r is string => r !== null);
    return ids.length >= 2 ? ids : undefined;
  }, 60_000, 200);
  expect((await http('POST', url(`/${id}/pause`), { token })).status).toBe(200);
  for (const runId of runIds) {
    const status = await until(`run ${runId} to complete`, async () => {
      const run = (await http('GET', `${stack.gatewayUrl}/api/v1/runs/${runId}`, { token })).body.run;
      return run?.status === 'completed' ? run.status : undefined;
    }, 60_000, 200);
    expect(status).toBe('completed');
  }
});

it('a monitor finds the new records, then its next cycle is suppressed', async () => {
  const yaml = `id: records-api\nname: records-api\ntype: rest_api\nversion: "1.0"\nconnection:\n  base_url: "${api.url}"\nendpoints:\n  records:\n    method: GET\n    path: /records\n    response_mapping: { results_path: items }\n`;
  expect((await http('POST', `${stack.gatewayUrl}/api/agent-factory/connectors`, { token, body: { yaml } })).status).toBeLessThan(300);
  const plan = {
    nodes: [
      { id: 'found', kind: 'tool', action: 'detect_new_data', inputs: { connector: 'records-api', endpoint: 'records' } },
      { id: 'wait', kind: 'delay', dependsOn: ['found'], params: { durationMs: 1 } },
    ],
  };
  const hour = (new Date().getUTCHours() + 12) % 24;
  const hours = { start: `${String(hour).padStart(2, '0')}:00`, end: `${String(hour).padStart(2, '0')}:30`, timezone: 'UTC' };
  const url = (path: string) => `${stack.gatewayUrl}/api/agent-factory/monitors${path}`;
  const created = await http('POST', url(''), { token, body: { name: 'records', monitor_config: { interval: '1h', active_hours: hours }, target: { plan } } });
  expect(created.status).toBe(201);
  const id = created.body.monitor.id as string;
  const cycle = async () => {
    const runId = (await http('POST', url(`/${id}/run-now`), { token, body: {} })).body.run_id as string;
    return until(`run ${runId} to complete`, async () => {
      const run = (await http('GET', `${stack.gatewayUrl}/api/v1/runs/${runId}`, { token })).body.run;
      return run?.status === 'completed' ? run : undefined;
    }, 60_000, 100);
  };
  const first = await cycle();
  expect(first.nodes.map((n: { node_id: string; status: string }) => [n.node_id, n.status])).toEqual([['found', 'completed'], ['wait', 'completed']]);
  // No date field named: created_at was found; the watermark is the latest time.
  expect((await http('GET', url(`/${id}/watermarks`), { token })).body.watermarks).toEqual([expect.objectContaining({ step_name: 'found', watermark_type: 'timestamp', watermark_value: '2026-01-01T11:00:00.000Z', items_found_last: 2 })]);
  const second = await cycle();
  expect(second.nodes.map((n: { node_id: string; status: string; skip_reason: string | null }) => [n.node_id, n.status, n.skip_reason])).toEqual([['found', 'completed', null], ['wait', 'skipped', 'suppressed']]);
  const stats = await until('the suppressed cycle in the stats', async () => {
    const s = (await http('GET', url(`/${id}/stats`), { token })).body.stats;
    return s?.suppressed === 1 ? s : undefined;
  }, 30_000, 100);
  expect(stats).toMatchObject({ cycles: 2, suppressed: 1, found_last_cycle: 0 });
  expect((await http('POST', url(`/${id}/pause`), { token })).status).toBe(200);
});
