/**
 * Issue 4 error policy through the real services: fallback nodes stand in for
 * a failed primary, and the node result cache skips a repeated call.
 */
import { connector, orchestrator } from '@af/contracts';
import { PlanGraphSchema, planToWire } from '@af/plan';
import { call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { startFixtureServer, startStack, type FixtureServer, type Stack } from '@af/testing';

let stack: Stack;
let api: FixtureServer;
let runs: orchestrator.OrchestratorServiceClient;
const principal = { userId: 'policy-user', teamIds: [] };

const CONNECTOR = (baseUrl: string) => `
id: policy-api
name: Policy API
type: rest_api
version: "1.0"
connection:
  base_url: "${baseUrl}"
  timeout_seconds: 10
endpoints:
  primary:
    method: GET
    path: /primary
    response_mapping: { results_path: items }
  backup:
    method: GET
    path: /backup
    response_mapping: { results_path: items }
  lookup:
    method: GET
    path: /lookup
    parameters:
      - { name: q, type: string, required: true }
    response_mapping: { results_path: items }
`;

beforeAll(async () => {
  api = await startFixtureServer();
  api.route('GET', '/primary', { status: 503, json: { error: 'down' } });
  api.route('GET', '/backup', { json: { items: [{ source: 'backup' }] } });
  api.route('GET', '/lookup', (req) => ({ json: { items: [{ q: req.query.q }] } }));
  stack = await startStack();
  runs = createGrpcClient('orchestrator', orchestrator.ORCHESTRATOR_SERVICE_NAME, `127.0.0.1:${stack.services.orchestrator.env.GRPC_PORT}`, { auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }) });
  const connectors = createGrpcClient<connector.ConnectorServiceClient>('connector', connector.CONNECTOR_SERVICE_NAME, `127.0.0.1:${stack.services['connector-runtime'].env.GRPC_PORT}`, { auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }) });
  await call(connectors.createConnector({ principal, yaml: CONNECTOR(api.url), definition: undefined, credentials: {}, idempotencyKey: 'c1' }));
});

afterAll(async () => {
  await stack?.stop();
  await api?.close();
});

const tool = (id: string, endpoint: string, extra: Record<string, unknown> = {}) => ({
  id,
  kind: 'tool',
  action: 'call_connector',
  params: { connector: 'policy-api', endpoint },
  ...extra,
});

async function run(nodes: unknown[], inputs: Record<string, unknown> = {}): Promise<orchestrator.Run> {
  const plan = planToWire(PlanGraphSchema.parse({ nodes, inputs: Object.keys(inputs).map((name) => ({ name })) }));
  const { run: started } = await call(runs.startRun({ outputContract: undefined, goalCondition: [], policies: [], principal, plan, inputs, idempotencyKey: '', runContext: 'background' }));
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { run: r } = await call(runs.getRun({ principal, runId: started!.id }));
    if ([3, 4, 5].includes(r!.status)) return r!;
    if (Date.now() > deadline) throw new Error(`run ${started!.id} did not finish`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

const byId = (r: orchestrator.Run) => Object.fromEntries(r.nodes.map((n) => [n.nodeId, n]));

it('runs the fallback when the primary fails, and downstream reads its output', async () => {
  const r = await run([
    tool('fetch', 'primary', { errorPolicy: { onError: 'fallback', fallback: ['fetch_backup'] } }),
    tool('fetch_backup', 'backup', { fallbackFor: 'fetch' }),
    { id: 'use', kind: 'tool', action: 'transform_data', inputs: { data: '{fetch.results}' }, params: {}, dependsOn: ['fetch'] },
  ]);
  expect(r.status).toBe(orchestrator.RunStatus.RUN_STATUS_COMPLETED);
  const n = byId(r);
  expect(n.fetch!.status).toBe(orchestrator.NodeStatus.NODE_STATUS_FAILED);
  expect(n.fetch_backup!.status).toBe(orchestrator.NodeStatus.NODE_STATUS_COMPLETED);
  expect(JSON.parse(n.use!.outputJson)).toEqual({ data: [{ source: 'backup' }], count: 1 });
  expect(r.outputs!.fetch).toEqual({ results: [{ source: 'backup' }], count: 1 });
});

it('skips an unneeded fallback when the primary succeeds', async () => {
  const r = await run([
    tool('fetch', 'backup', { errorPolicy: { onError: 'fallback', fallback: ['fetch_backup'] } }),
    tool('fetch_backup', 'primary', { fallbackFor: 'fetch' }),
  ]);
  expect(r.status).toBe(orchestrator.RunStatus.RUN_STATUS_COMPLETED);
  expect(byId(r).fetch_backup).toMatchObject({ status: orchestrator.NodeStatus.NODE_STATUS_SKIPPED, skipReason: 'primary_succeeded' });
});

it('fails the run when the primary and all its fallbacks fail', async () => {
  const r = await run([
    tool('fetch', 'primary', { errorPolicy: { onError: 'fallback', fallback: ['fetch_backup'] } }),
    tool('fetch_backup', 'primary', { fallbackFor: 'fetch' }),
  ]);
  expect(r.status).toBe(orchestrator.RunStatus.RUN_STATUS_FAILED);
  expect(r.error).toContain('fetch and its fallbacks failed');
});

it('serves a repeated call with the same cache key from the cache', async () => {
  const before = api.count('GET', '/lookup');
  const nodes = [tool('look', 'lookup', { inputs: { q: '{term}' }, cache: { key: 'lookup:{term}', ttlSeconds: 60 } })];
  const first = await run(nodes, { term: 'alpha' });
  const second = await run(nodes, { term: 'alpha' });
  const third = await run(nodes, { term: 'beta' });
  expect([first, second, third].map((r) => r.status)).toEqual([3, 3, 3]);
  expect(api.count('GET', '/lookup') - before).toBe(2);
  expect(second.outputs!.look).toEqual(first.outputs!.look);
  const events = await stack.db.query<{ payload: Record<string, unknown> }>(
    `SELECT payload FROM orchestrator.run_events WHERE run_id = $1 AND type = 'node_complete'`,
    [second.id],
  );
  expect(events[0]!.payload.cached).toBe(true);
});
