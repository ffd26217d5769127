/**
 * Schedules in the one-process mode of `pnpm start` (every service in one
 * process, the in-process bus, real PostgreSQL): a schedule created through
 * the gateway fires and its runs complete.
 */
import { http, registerUser, startStack, until, type Stack } from '@af/testing';

let stack: Stack;
let token: string;

beforeAll(async () => {
  stack = await startStack({ bus: 'memory', env: { orchestrator: { SCHEDULE_POLL_MS: '100' } } });
  token = (await registerUser(stack.gatewayUrl, 'sched-memory@example.com')).token;
}, 180_000);

afterAll(async () => {
  await stack?.stop();
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
