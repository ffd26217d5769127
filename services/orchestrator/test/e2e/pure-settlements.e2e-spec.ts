/**
 * Pure nodes between side effects are committed together (PURE_NODE_BATCH,
 * on by default): their settlements ride on the run's next write — the next
 * side-effecting node's start, or the finish — in the order they happened,
 * through the real services. With PURE_NODE_BATCH=0 every node commits on
 * its own. Either way the frames, outputs and statuses are the same.
 */
import { startFixtureServer, startStack, type FixtureServer, type Stack } from '@af/testing';
import { createConnector, frames, harness, output, RunStatus, shape, start, status, until, type Harness } from './helpers.js';

const CONNECTOR = (baseUrl: string) => `
id: pure-api
name: pure-api
type: rest_api
version: "1.0"
connection:
  base_url: "${baseUrl}"
  timeout_seconds: 20
endpoints:
  work:
    method: GET
    path: /work
    parameters:
      - { name: id, type: string, required: true }
    response_mapping: { results_path: items }
`;

const transform = (id: string, data: unknown, dependsOn: string[] = []) => ({
  id,
  kind: 'tool',
  action: 'transform_data',
  inputs: { data },
  params: { operations: [{ type: 'limit', n: 5 }] },
  dependsOn,
});

/** t1 → t2 (pure) → call (side effect) → t3 (pure). */
const PLAN = {
  nodes: [
    transform('t1', [1, 2, 3]),
    transform('t2', '{t1.data}', ['t1']),
    { id: 'call', kind: 'tool', action: 'call_connector', params: { connector: 'pure-api', endpoint: 'work' }, inputs: { id: '{t2.count}' }, dependsOn: ['t2'] },
    transform('t3', '{call.results}', ['call']),
  ],
};

const EXPECTED_FRAMES = [
  'start',
  'node_start:t1',
  'node_complete:t1',
  'node_start:t2',
  'node_complete:t2',
  'node_start:call',
  'node_complete:call',
  'node_start:t3',
  'node_complete:t3',
  'complete',
];

let api: FixtureServer;
const stacks: Stack[] = [];

beforeAll(async () => {
  api = await startFixtureServer();
  api.route('GET', '/work', (req) => ({ json: { items: [{ id: req.query.id }] } }));
}, 60_000);

afterAll(async () => {
  for (const s of stacks) await s.stop();
  await api?.close();
});

async function setup(env: Record<string, string>): Promise<{ stack: Stack; h: Harness }> {
  const stack = await startStack({ env: { orchestrator: env } });
  stacks.push(stack);
  const h = harness(stack, 'pure-user');
  await createConnector(h, CONNECTOR(api.url), `c-pure-${stacks.length}`);
  return { stack, h };
}

/** started_at of each node (PostgreSQL now() of the statement that committed its start) and the run's finish. */
async function commitTimes(stack: Stack, runId: string): Promise<Record<string, string>> {
  const rows = await stack.db.query<{ node_id: string; t: string }>(
    `SELECT node_id, started_at::text AS t FROM orchestrator.node_states WHERE run_id = $1
     UNION ALL SELECT 'complete', updated_at::text FROM orchestrator.runs WHERE id = $1`,
    [runId],
  );
  return Object.fromEntries(rows.map((r) => [r.node_id, r.t]));
}

it('by default, pure nodes ride on the next side-effecting start and on the finish, in order, with the same results', async () => {
  const { stack, h } = await setup({});
  const runId = await start(h, PLAN);
  const run = await until(h, runId);
  expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
  expect(shape(await frames(h, runId))).toEqual(EXPECTED_FRAMES);
  expect((await frames(h, runId)).map((f) => f.seq)).toEqual(EXPECTED_FRAMES.map((_, i) => i + 1));
  expect(status(run)).toEqual({ t1: 'completed', t2: 'completed', call: 'completed', t3: 'completed' });
  expect(output(run, 't3')).toMatchObject({ data: [{ id: '3' }], count: 1 });

  const t = await commitTimes(stack, runId);
  // One statement carried t1, t2 and call's start; another t3 and the finish.
  expect(t.t1).toBe(t.call);
  expect(t.t2).toBe(t.call);
  expect(t.t3).toBe(t.complete);
  expect(t.call).not.toBe(t.t3);
});

it('with PURE_NODE_BATCH=0 every node commits on its own before the next starts; frames and results are the same', async () => {
  const { stack, h } = await setup({ PURE_NODE_BATCH: '0' });
  const runId = await start(h, PLAN);
  const run = await until(h, runId);
  expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
  expect(shape(await frames(h, runId))).toEqual(EXPECTED_FRAMES);
  expect(output(run, 't3')).toMatchObject({ data: [{ id: '3' }], count: 1 });
  const t = await commitTimes(stack, runId);
  expect(new Set([t.t1, t.t2, t.call, t.t3, t.complete]).size).toBe(5);
});
