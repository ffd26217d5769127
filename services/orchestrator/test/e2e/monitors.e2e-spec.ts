/**
 * Monitors end to end (gateway, orchestrator, connector-runtime and a fixture
 * API as separate processes; PostgreSQL, NATS JetStream): a monitor whose
 * playbook detects new pages of a `/pages?since=` source and processes each.
 * Across cycles only new pages are processed; a kill -9 of the orchestrator
 * mid-cycle processes the same new pages again and never skips or doubles
 * one; a cycle with nothing new is `suppressed`. And a monitor of a workspace
 * folder, whose detection step the output router serves.
 */
import { http, registerUser, startFixtureServer, startStack, until, type FixtureServer, type Stack } from '@af/testing';
import { createConnector, harness } from './helpers.js';

let stack: Stack;
let api: FixtureServer;
let token: string;
let userId: string;

const pages: Array<{ id: string; title: string; updated_at: string }> = [];
/** Requests to /process for this id wait while set. */
let held: { id: string; arrived: () => void; wait: Promise<void> } | undefined;

const CONNECTOR = (baseUrl: string) => `
id: mon-api
name: mon-api
type: rest_api
version: "1.0"
connection:
  base_url: "${baseUrl}"
  timeout_seconds: 20
endpoints:
  pages:
    method: GET
    path: /pages
    parameters:
      - { name: since, type: string }
    response_mapping: { results_path: items }
  process:
    method: GET
    path: /process
    parameters:
      - { name: id, type: string, required: true }
    response_mapping: { results_path: items }
`;

beforeAll(async () => {
  api = await startFixtureServer();
  api.route('GET', '/pages', (req) => {
    const since = typeof req.query.since === 'string' ? Date.parse(req.query.since) : Number.NEGATIVE_INFINITY;
    return { json: { items: pages.filter((p) => Date.parse(p.updated_at) > since) } };
  });
  api.route('GET', '/process', async (req) => {
    if (held && req.query.id === held.id) {
      held.arrived();
      await held.wait;
    }
    return { json: { items: [{ id: req.query.id, processed: true }] } };
  });
  stack = await startStack({ outputRouter: true, env: { orchestrator: { RUN_LEASE_MS: '1500', SCHEDULE_POLL_MS: '100' } } });
  const user = await registerUser(stack.gatewayUrl, 'monitor-e2e@example.com');
  token = user.token;
  userId = user.id;
  await createConnector(harness(stack, userId), CONNECTOR(api.url), 'c-mon');
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await api?.close();
});

const monitors = (path: string) => `${stack.gatewayUrl}/api/agent-factory/monitors${path}`;
const plan = {
  nodes: [
    { id: 'detect', kind: 'tool', action: 'detect_new_data', inputs: { connector: 'mon-api', endpoint: 'pages' }, params: { date_field: 'updated_at', since_param: 'since' } },
    {
      id: 'each',
      kind: 'map',
      dependsOn: ['detect'],
      body: { itemsFrom: '{detect.results}', nodes: [{ id: 'process', kind: 'tool', action: 'call_connector', params: { connector: 'mon-api', endpoint: 'process' }, inputs: { id: '{current.id}' } }] },
    },
    { id: 'advance', kind: 'tool', action: 'set_monitor_watermark', dependsOn: ['each'], inputs: { watermark: '{detect.watermark}' } },
  ],
};
// Scheduled polls fall outside these hours (12 h from now); run-now cycles run whatever the hour.
const hour = (new Date().getUTCHours() + 12) % 24;
const activeHours = { start: `${String(hour).padStart(2, '0')}:00`, end: `${String(hour).padStart(2, '0')}:30`, timezone: 'UTC' };

const processed = () => api.requestsTo('GET', '/process').map((r) => r.query.id);
const runOf = async (runId: string) => (await http('GET', `${stack.gatewayUrl}/api/v1/runs/${runId}`, { token })).body.run;
const settled = (runId: string) => until(`run ${runId} to end`, async () => {
  const run = await runOf(runId);
  return run && ['completed', 'failed', 'cancelled'].includes(run.status) ? run : undefined;
}, 60_000, 100);

async function cycle(id: string): Promise<string> {
  const res = await http('POST', monitors(`/${id}/run-now`), { token, body: {} });
  expect(res.status).toBe(202);
  return res.body.run_id as string;
}

it('refuses a monitor without a detection step, naming the field', async () => {
  const res = await http('POST', monitors(''), { token, body: { name: 'm', monitor_config: { interval: '1h' }, target: { plan: { nodes: [{ id: 'wait', kind: 'delay', params: { durationMs: 1 } }] } } } });
  expect(res.status).toBe(400);
  expect(res.body.error.violations).toEqual([expect.objectContaining({ field: 'target.plan.nodes', reason: expect.stringContaining('detection step') })]);
});

it('processes only new pages across cycles and a kill -9, and reports suppressed when nothing is new', async () => {
  const created = await http('POST', monitors(''), { token, body: { name: 'new pages', monitor_config: { interval: '1h', active_hours: activeHours }, target: { plan } } });
  expect(created.status).toBe(201);
  const id = created.body.monitor.id as string;
  pages.push({ id: 'a', title: 'A', updated_at: '2026-01-01T10:00:00Z' }, { id: 'b', title: 'B', updated_at: '2026-01-01T11:00:00Z' });

  // Cycle 1: both pages are new.
  const first = await settled(await cycle(id));
  expect(first.status).toBe('completed');
  expect(processed()).toEqual(['a', 'b']);
  const marks = (await http('GET', monitors(`/${id}/watermarks`), { token })).body.watermarks;
  expect(marks).toEqual([expect.objectContaining({ step_name: 'detect', watermark_type: 'timestamp', watermark_value: '2026-01-01T11:00:00.000Z', items_found_last: 2 })]);

  // Cycle 2: page c is new; the orchestrator is killed while c is being processed.
  pages.push({ id: 'c', title: 'C', updated_at: '2026-01-01T12:00:00Z' });
  let release!: () => void;
  let arrived!: () => void;
  const atGate = new Promise<void>((r) => (arrived = r));
  held = { id: 'c', arrived, wait: new Promise<void>((r) => (release = r)) };
  const second = await cycle(id);
  await atGate;
  // The cycle has not completed: its watermark has not moved.
  expect((await http('GET', monitors(`/${id}/watermarks`), { token })).body.watermarks[0].watermark_value).toBe('2026-01-01T11:00:00.000Z');
  await stack.services.orchestrator.kill();
  await stack.services.orchestrator.start();
  release();
  const run = await settled(second);
  held = undefined;
  expect(run.status).toBe('completed');
  // c once (the replayed call is answered from its idempotency record), a and b never again.
  expect(processed()).toEqual(['a', 'b', 'c']);
  expect((await http('GET', monitors(`/${id}/watermarks`), { token })).body.watermarks).toEqual([
    expect.objectContaining({ step_name: 'detect', watermark_value: '2026-01-01T12:00:00.000Z', items_found_last: 1 }),
  ]);

  // Cycle 3: nothing new — suppressed: the processing steps are skipped, the fire says so.
  const third = await cycle(id);
  const quiet = await settled(third);
  expect(quiet.status).toBe('completed');
  expect(processed()).toEqual(['a', 'b', 'c']);
  const nodes = Object.fromEntries((quiet.nodes as Array<{ node_id: string; status: string; skip_reason?: string }>).map((n) => [n.node_id, n]));
  expect(nodes.each).toMatchObject({ status: 'skipped', skip_reason: 'suppressed' });
  expect(nodes.advance).toMatchObject({ status: 'skipped' });
  const fire = await until('the suppressed fire', async () => {
    const fires = (await http('GET', `${stack.gatewayUrl}/api/agent-factory/schedules/${id}/fires`, { token })).body.fires as Array<{ run_id: string; status: string }>;
    return fires.find((f) => f.run_id === third && f.status === 'suppressed');
  }, 30_000, 100);
  expect(fire).toBeDefined();
  const stats = (await http('GET', monitors(`/${id}/stats`), { token })).body.stats;
  expect(stats).toMatchObject({ cycles: 3, suppressed: 1, found_last_cycle: 0, failed: 0 });
  expect((await http('POST', monitors(`/${id}/pause`), { token })).status).toBe(200);
});

it('a monitor of a workspace folder (detect_new_files, served by the output router) sees each new file once', async () => {
  const ws = (path: string) => `${stack.gatewayUrl}/api/agent-factory/workspace${path}`;
  const folder = await http('POST', ws('/folders'), { token, body: { name: 'Filings' } });
  expect(folder.status).toBeLessThan(300);
  const folderId = folder.body.folder.id as string;
  const upload = async (title: string) => expect((await http('POST', ws('/documents'), { token, body: { title, content_type: 'text/plain', content: title, folder_id: folderId } })).status).toBe(201);
  await upload('one.txt');
  const filesPlan = {
    nodes: [
      { id: 'new_files', kind: 'tool', action: 'detect_new_files', inputs: { folder_id: folderId } },
      { id: 'wait', kind: 'delay', dependsOn: ['new_files'], params: { durationMs: 1 } },
    ],
  };
  const created = await http('POST', monitors(''), { token, body: { name: 'filings', monitor_config: { interval: '1h', active_hours: activeHours }, target: { plan: filesPlan } } });
  expect(created.status).toBe(201);
  const id = created.body.monitor.id as string;
  const found = async () => {
    const run = await settled(await cycle(id));
    expect(run.status).toBe('completed');
    const byId = Object.fromEntries((run.nodes as Array<{ node_id: string; status: string }>).map((n) => [n.node_id, n.status]));
    const marks = (await http('GET', monitors(`/${id}/watermarks`), { token })).body.watermarks as Array<{ items_found_last: number; watermark_type: string }>;
    return [marks[0]?.watermark_type, marks[0]?.items_found_last, byId.wait];
  };
  expect(await found()).toEqual(['timestamp', 1, 'completed']);
  await upload('two.txt');
  expect(await found()).toEqual(['timestamp', 1, 'completed']);
  expect(await found()).toEqual(['timestamp', 0, 'skipped']);
  expect((await http('POST', monitors(`/${id}/pause`), { token })).status).toBe(200);
});

it('a monitor of folder changes (detect_folder_changes) reports adds, then a deletion, then nothing (suppressed)', async () => {
  const ws = (path: string) => `${stack.gatewayUrl}/api/agent-factory/workspace${path}`;
  const folder = await http('POST', ws('/folders'), { token, body: { name: 'Watched' } });
  expect(folder.status).toBeLessThan(300);
  const folderId = folder.body.folder.id as string;
  const upload = async (title: string) => {
    const res = await http('POST', ws('/documents'), { token, body: { title, content_type: 'text/plain', content: title, folder_id: folderId } });
    expect(res.status).toBe(201);
    return res.body.document.id as string;
  };
  const first = await upload('a.txt');
  await upload('b.txt');
  const changesPlan = {
    nodes: [
      { id: 'changes', kind: 'tool', action: 'detect_folder_changes', inputs: { folder_id: folderId } },
      { id: 'wait', kind: 'delay', dependsOn: ['changes'], params: { durationMs: 1 } },
    ],
  };
  const created = await http('POST', monitors(''), { token, body: { name: 'watched', monitor_config: { interval: '1h', active_hours: activeHours }, target: { plan: changesPlan } } });
  expect(created.status).toBe(201);
  const id = created.body.monitor.id as string;
  const changes = async () => {
    const run = await settled(await cycle(id));
    expect(run.status).toBe('completed');
    const byId = Object.fromEntries((run.nodes as Array<{ node_id: string; status: string; output: any }>).map((n) => [n.node_id, n]));
    const out = byId.changes!.output;
    return { changes: (out.changes as Array<{ filename: string; change_type: string }>).map((c) => [c.filename, c.change_type]).sort(), deletionsKnown: out.deletions_known, wait: byId.wait!.status };
  };
  expect(await changes()).toEqual({ changes: [['a.txt', 'added'], ['b.txt', 'added']], deletionsKnown: true, wait: 'completed' });
  expect((await http('DELETE', ws(`/documents/${first}`), { token })).status).toBe(204);
  expect(await changes()).toEqual({ changes: [['a.txt', 'deleted']], deletionsKnown: true, wait: 'completed' });
  // Nothing changed since: the cycle is suppressed.
  expect(await changes()).toEqual({ changes: [], deletionsKnown: true, wait: 'skipped' });
  expect((await http('POST', monitors(`/${id}/pause`), { token })).status).toBe(200);
});
