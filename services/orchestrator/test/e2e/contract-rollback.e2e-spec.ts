/**
 * Issue 4 through the real services: the run's OutputContract checked on
 * completion (validation_error frame, goal_condition_results on complete),
 * and rollback — compensating actions of completed nodes in reverse
 * completion order, each once, durable across a crash.
 */
import { startFixtureServer, startStack, type FixtureServer, type Stack } from '@af/testing';
import { createConnector, frames, getRun, harness, RunStatus, shape, sleep, start, startError, status, until, type Harness } from './helpers.js';

let stack: Stack;
let api: FixtureServer;
let h: Harness;
/** Undo requests for these ids fail. */
const failUndo = new Set<string>();
/** Undo requests wait while this is set. */
let undoGate: { arrived: number; wait: Promise<void>; release: () => void } | undefined;

const CONNECTOR = (baseUrl: string) => `
id: effects-api
name: Effects
type: rest_api
version: "1.0"
connection:
  base_url: "${baseUrl}"
  timeout_seconds: 20
endpoints:
  create:
    method: GET
    path: /create
    parameters:
      - { name: id, type: string, required: true }
    response_mapping: { results_path: items }
  undo:
    method: GET
    path: /undo
    parameters:
      - { name: id, type: string, required: true }
    response_mapping: { results_path: items }
  broken:
    method: GET
    path: /broken
    response_mapping: { results_path: items }
`;

beforeAll(async () => {
  api = await startFixtureServer();
  api.route('GET', '/create', (req) => ({ json: { items: [{ id: `obj-${req.query.id}` }] } }));
  api.route('GET', '/undo', async (req) => {
    if (undoGate) {
      undoGate.arrived++;
      await undoGate.wait;
    }
    if (failUndo.has(String(req.query.id))) return { status: 409, json: { error: 'already gone' } };
    return { json: { items: [{ undone: req.query.id }] } };
  });
  api.route('GET', '/broken', { status: 503, json: { error: 'down' } });
  stack = await startStack({ env: { orchestrator: { RUN_LEASE_MS: '1500' } } });
  h = harness(stack, 'contract-user');
  await createConnector(h, CONNECTOR(api.url), 'c-effects');
}, 60_000);

afterAll(async () => {
  undoGate?.release();
  await stack?.stop();
  await api?.close();
});

const report = (id: string, data: unknown) => ({ id, kind: 'tool', action: 'transform_data', inputs: { data }, params: {} });
const CONTRACT = {
  mode: 'json_schema',
  schema: {
    type: 'object',
    required: ['summary'],
    properties: { summary: { type: 'object', required: ['data', 'count'], properties: { count: { type: 'integer', minimum: 2 } } } },
  },
};
const GOALS = [
  { facet: 'summary', path: '/data[0]', condition: { dsl: 'score >= 0.8' } },
  { facet: 'summary', path: '', condition: { jsonLogic: { '>=': [{ var: 'count' }, 3] } } },
];

describe('output contract', () => {
  it('a final output that satisfies the contract completes, with goal_condition_results on complete and on the run', async () => {
    const runId = await start(h, { nodes: [report('summary', [{ score: 0.9 }, { score: 0.5 }])] }, { outputContract: CONTRACT, goalCondition: GOALS });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    const fs = await frames(h, runId);
    expect(shape(fs)).toEqual(['start', 'node_start:summary', 'node_complete:summary', 'complete']);
    const results = [
      { facet: 'summary', path: '/data[0]', expression: 'score >= 0.8', satisfied: true },
      { facet: 'summary', path: '', expression: '{">=":[{"var":"count"},3]}', satisfied: false },
    ];
    expect(fs.at(-1)!.payload).toMatchObject({ status: 'completed', goal_condition_results: results, goals_met: false });
    expect(run.goalConditionResults).toEqual(results);
  });

  it('an output that violates the contract emits validation_error {scope, errors[]} and fails the run', async () => {
    const runId = await start(h, { nodes: [report('summary', [{ score: 0.9 }])] }, { outputContract: CONTRACT, goalCondition: GOALS });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    expect(run.error).toBe('the final output does not satisfy the output contract: /summary/count must be >= 2');
    const fs = await frames(h, runId);
    expect(shape(fs)).toEqual(['start', 'node_start:summary', 'node_complete:summary', 'validation_error', 'complete']);
    expect(fs[3]!.payload).toEqual({ scope: 'output_contract', errors: [{ path: '/summary/count', keyword: 'minimum', message: 'must be >= 2' }] });
    expect(fs[4]!.payload).toMatchObject({ status: 'failed', error: run.error });
    expect(fs[4]!.payload.goal_condition_results).toBeUndefined();
    // The node itself completed: only the run's output failed its contract.
    expect(status(run)).toEqual({ summary: 'completed' });
  });

  it('refuses a bad contract or goal condition at StartRun, naming the field', async () => {
    const plan = { nodes: [report('summary', [])] };
    const bad = await startError(h, plan, { outputContract: { schema: { type: 'nonsense' } } });
    expect(bad.code).toBe('INVALID_ARGUMENT');
    expect(bad.violations.map((v) => v.field)).toEqual(['output_contract.schema']);
    const noSchema = await startError(h, plan, { outputContract: { type: 'object' } });
    expect(noSchema.violations.map((v) => v.field)).toEqual(['output_contract.schema', 'output_contract.type']);
    const goals = await startError(h, plan, { goalCondition: [{ facet: 'summary', path: 'data', condition: { dsl: 'score >=' } }] });
    expect(goals.violations.map((v) => v.field)).toEqual(['goal_condition[0].path', 'goal_condition[0].condition.dsl']);
    expect((await stack.db.query(`SELECT count(*)::int AS n FROM orchestrator.runs WHERE user_id = 'contract-user' AND output_contract->'schema'->>'type' = 'nonsense'`))[0]).toEqual({ n: 0 });
  });
});

const effect = (id: string, n: string, dependsOn: string[] = [], extra: Record<string, unknown> = {}) => ({
  id,
  kind: 'tool',
  action: 'call_connector',
  params: { connector: 'effects-api', endpoint: 'create' },
  inputs: { id: n },
  dependsOn,
  errorPolicy: { rollback: { connector: 'effects-api', endpoint: 'undo', inputs: { id: `{${id}.results[0].id}` } } },
  ...extra,
});
const breaks = (dependsOn: string[]) => ({
  id: 'publish',
  kind: 'tool',
  action: 'call_connector',
  params: { connector: 'effects-api', endpoint: 'broken' },
  dependsOn,
  errorPolicy: { onError: 'stop', rollbackOnError: true },
});
const rollbackPlan = () => ({
  nodes: [
    effect('first', '1'),
    effect('second', '2', ['first']),
    { id: 'shape', kind: 'tool', action: 'transform_data', inputs: { data: '{second.results}' }, params: {}, dependsOn: ['second'] },
    breaks(['shape']),
  ],
});

describe('rollback', () => {
  it('golden run: a node with rollbackOnError fails, completed nodes are undone latest first, each once, then the run fails', async () => {
    const before = api.requestsTo('GET', '/undo').length;
    const runId = await start(h, rollbackPlan());
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    expect(run.error).toMatch(/^node publish failed: .* \(rolled back 2 of 2 node\(s\)\)$/);
    const fs = await frames(h, runId);
    expect(shape(fs)).toEqual([
      'start',
      'node_start:first',
      'node_complete:first',
      'node_start:second',
      'node_complete:second',
      'node_start:shape',
      'node_complete:shape',
      'node_start:publish',
      'node_error:publish',
      'rollback_started',
      'node_rolled_back:second',
      'node_rolled_back:first',
      'rollback_complete',
      'complete',
    ]);
    expect(fs[8]!.payload).toMatchObject({ code: 'UNAVAILABLE', continues: false, rollback: true });
    expect(fs[9]!.payload).toMatchObject({ failedNodeId: 'publish', nodes: ['second', 'first'] });
    expect(fs[10]!.payload).toMatchObject({ ok: true, action: 'call_connector' });
    expect(fs[12]!.payload).toEqual({ failedNodeId: 'publish', rolledBack: ['second', 'first'], failed: [] });
    expect(fs[13]!.payload).toMatchObject({ status: 'failed' });
    // The compensations read each node's own output, latest completion first.
    expect(api.requestsTo('GET', '/undo').slice(before).map((r) => r.query.id)).toEqual(['obj-2', 'obj-1']);
    expect(status(run)).toEqual({ first: 'completed', second: 'completed', shape: 'completed', publish: 'failed' });
  });

  it('a compensation that fails is recorded, the others still run', async () => {
    failUndo.add('obj-2');
    try {
      const runId = await start(h, rollbackPlan());
      const run = await until(h, runId);
      expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
      expect(run.error).toMatch(/\(rolled back 1 of 2 node\(s\); rollback failed for second\)$/);
      const fs = await frames(h, runId);
      expect(fs.filter((f) => f.type === 'node_rolled_back').map((f) => [f.nodeId, f.payload.ok, f.payload.code ?? null])).toEqual([
        ['second', false, 'FAILED_PRECONDITION'],
        ['first', true, null],
      ]);
      expect(fs.find((f) => f.type === 'rollback_complete')!.payload).toEqual({ failedNodeId: 'publish', rolledBack: ['first'], failed: ['second'] });
    } finally {
      failUndo.clear();
    }
  });

  it('a fallback that takes over means no rollback; nodes without rollbackOnError fail without one', async () => {
    const fallback = await start(h, {
      nodes: [
        effect('first', '1'),
        { ...breaks(['first']), errorPolicy: { onError: 'fallback', fallback: ['publish_fb'], rollbackOnError: true } },
        { id: 'publish_fb', kind: 'tool', action: 'transform_data', inputs: { data: [] }, params: {}, fallbackFor: 'publish' },
      ],
    });
    const r1 = await until(h, fallback);
    expect(r1.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(shape(await frames(h, fallback))).not.toContain('rollback_started');

    const plain = await start(h, { nodes: [effect('first', '1'), { ...breaks(['first']), errorPolicy: { onError: 'stop' } }] });
    const r2 = await until(h, plain);
    expect(r2.status).toBe(RunStatus.RUN_STATUS_FAILED);
    expect(shape(await frames(h, plain))).not.toContain('rollback_started');
  });

  it('rolls back map iterations too, each with its own item', async () => {
    const before = api.requestsTo('GET', '/undo').length;
    const runId = await start(
      h,
      {
        inputs: [{ name: 'ids' }],
        nodes: [
          { id: 'each', kind: 'map', body: { itemsFrom: '{ids}', nodes: [effect('make', '{current}')] } },
          breaks(['each']),
        ],
      },
      { inputs: { ids: ['7', '8'] } },
    );
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    expect((await frames(h, runId)).find((f) => f.type === 'rollback_started')!.payload.nodes).toEqual(['make[1]', 'make[0]']);
    expect(api.requestsTo('GET', '/undo').slice(before).map((r) => r.query.id)).toEqual(['obj-8', 'obj-7']);
  });

  it('a crash in the middle of a rollback resumes it: each compensation still runs exactly once', async () => {
    let release!: () => void;
    undoGate = { arrived: 0, wait: new Promise<void>((r) => (release = r)), release: () => release() };
    const before = api.requestsTo('GET', '/undo').length;
    const runId = await start(h, rollbackPlan());
    while (undoGate.arrived < 1) await sleep(20);
    // The first compensation (second's) is in flight at the API.
    await stack.services.orchestrator.kill();
    await stack.services.orchestrator.start();
    undoGate.release();
    const run = await until(h, runId);
    undoGate = undefined;
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    expect(api.requestsTo('GET', '/undo').slice(before).map((r) => r.query.id)).toEqual(['obj-2', 'obj-1']);
    const s = shape(await frames(h, runId));
    expect(s.slice(-5)).toEqual(['rollback_started', 'node_rolled_back:second', 'node_rolled_back:first', 'rollback_complete', 'complete']);
    expect(s.filter((t) => t === 'rollback_started')).toHaveLength(1);
    expect((await getRun(h, runId)).error).toMatch(/\(rolled back 2 of 2 node\(s\)\)$/);
  });

  it('refuses a malformed rollback action at StartRun', async () => {
    const err = await startError(h, { nodes: [{ ...effect('first', '1'), errorPolicy: { rollback: { inputs: {} } } }] });
    expect(err.violations).toEqual([expect.objectContaining({ field: 'plan.nodes[0].errorPolicy.rollback', reason: 'first: rollback action needs an action (or connector and endpoint)' })]);
  });
});
