/**
 * Issue 2 acceptance: kill -9 the orchestrator while node 2's request is held
 * by the fixture API, restart it; the run finishes and each API request was
 * made exactly once (node 1 is not re-run; node 2's replay is de-duplicated by
 * its idempotency key at connector-runtime).
 */
import {
  connectorYaml,
  fixture,
  http,
  registerAndLogin,
  routeFixtureApi,
  SECRET,
  startFixtureServer,
  startStack,
  waitForRun,
  type FixtureServer,
  type Stack,
} from './skeleton.js';

let api: FixtureServer;
let stack: Stack;
let token: string;

beforeAll(async () => {
  api = await startFixtureServer();
  routeFixtureApi(api);
  stack = await startStack({ env: { orchestrator: { RUN_LEASE_MS: '1500' } } });
  token = await registerAndLogin(stack, 'carol@example.com');
  const res = await http('POST', `${stack.gatewayUrl}/api/agent-factory/connectors`, {
    token,
    body: { yaml: connectorYaml(api.url), credentials: { api_key: SECRET } },
  });
  expect(res.status).toBe(201);
});

afterAll(async () => {
  await stack?.stop();
  await api?.close();
});

it('resumes a run on a restarted orchestrator without repeating effects', async () => {
  const gate = api.hold('GET', '/filings');
  const started = await http('POST', `${stack.gatewayUrl}/api/v1/runs`, {
    token,
    body: { playbook: fixture('org-filings.playbook.yaml'), inputs: { org_name: 'Umbrella' } },
  });
  expect(started.status).toBe(201);
  const runId = started.body.run.id;

  await gate.arrived();
  const mid = await http('GET', `${stack.gatewayUrl}/api/v1/runs/${runId}`, { token });
  expect(mid.body.run.nodes.map((n: any) => n.status)).toEqual(['completed', 'running']);

  const orchestrator = stack.services.orchestrator;
  const firstPid = orchestrator.pid;
  await orchestrator.kill();
  expect(orchestrator.exits.at(-1)?.signal).toBe('SIGKILL');
  await orchestrator.start();
  expect(orchestrator.pid).not.toBe(firstPid);
  gate.release();

  const run = await waitForRun(stack, token, runId, 60_000);
  expect(run.status).toBe('completed');
  expect(run.nodes.map((n: any) => [n.node_id, n.status, n.attempt])).toEqual([
    ['find_org', 'completed', 1],
    ['get_filings', 'completed', 1],
  ]);
  expect(run.outputs.filings.count).toBe(2);
  expect(api.count('GET', '/orgs')).toBe(1);
  expect(api.count('GET', '/filings')).toBe(1);

  // The event log has no gaps or duplicates: 1..n in order, one node_start per node.
  const events = await stack.db.query<{ seq: string; type: string; node_id: string | null }>(
    'SELECT seq, type, node_id FROM orchestrator.run_events WHERE run_id = $1 ORDER BY seq',
    [runId],
  );
  expect(events.map((e) => Number(e.seq))).toEqual(events.map((_, i) => i + 1));
  expect(events.map((e) => e.type)).toEqual(['start', 'node_start', 'node_complete', 'node_start', 'node_complete', 'complete']);
});
