/**
 * Issue 4 `map` nodes through the real services (orchestrator, connector-runtime
 * and a fixture API as separate processes, PostgreSQL, NATS): golden runs with
 * the exact frame order, truncation, concurrency, continueOnError, a crash in
 * the middle of a map, approvals inside an iteration, the workflow_steps
 * `transform` / `conditional` / `loop` steps, bad input — and per-connector
 * concurrency limits, which the map's parallel calls exercise.
 */
import { compileWorkflowSteps } from '@af/plan';
import { startFixtureServer, startStack, type FixtureServer, type Stack } from '@af/testing';
import {
  concurrencyMeter,
  createConnector,
  frames,
  harness,
  NodeStatus,
  output,
  resume,
  RunStatus,
  shape,
  sleep,
  start,
  startError,
  status,
  until,
  type Harness,
} from './helpers.js';

let stack: Stack;
let api: FixtureServer;
let h: Harness;

const ITEMS = [
  { id: 'a', score: 3 },
  { id: 'b', score: 1 },
  { id: 'c', score: 2 },
  { id: 'd', score: 5 },
  { id: 'e', score: 4 },
];
const visits = concurrencyMeter();
const slowMeter = concurrencyMeter();
const fastMeter = concurrencyMeter();
/** Requests to /held wait while this is set. */
let held: { arrived: number; release: () => void; wait: Promise<void> } | undefined;

const CONNECTOR = (name: string, baseUrl: string) => `
id: ${name}
name: ${name}
type: rest_api
version: "1.0"
connection:
  base_url: "${baseUrl}"
  timeout_seconds: 20
endpoints:
  list:
    method: GET
    path: /items
    response_mapping: { results_path: items }
  visit:
    method: GET
    path: /visit
    parameters:
      - { name: id, type: string, required: true }
      - { name: n, type: string }
    response_mapping: { results_path: items }
  held:
    method: GET
    path: /held
    parameters:
      - { name: id, type: string, required: true }
    response_mapping: { results_path: items }
  slow:
    method: GET
    path: /slow
    parameters:
      - { name: id, type: string, required: true }
    response_mapping: { results_path: items }
  fast:
    method: GET
    path: /fast
    parameters:
      - { name: id, type: string, required: true }
    response_mapping: { results_path: items }
`;

beforeAll(async () => {
  api = await startFixtureServer();
  api.route('GET', '/items', { json: { items: ITEMS } });
  api.route('GET', '/visit', async (req) => {
    visits.enter();
    await sleep(40);
    visits.leave();
    if (req.query.id === 'b' || req.query.id === 'broken') return { status: 503, json: { error: 'down' } };
    return { json: { items: [{ id: req.query.id, visited: true, n: req.query.n ?? null }] } };
  });
  api.route('GET', '/held', async (req) => {
    if (held && req.query.id === 'b') {
      held.arrived++;
      await held.wait;
    }
    return { json: { items: [{ id: req.query.id }] } };
  });
  for (const [path, meter] of [
    ['/slow', slowMeter],
    ['/fast', fastMeter],
  ] as const) {
    api.route('GET', path, async (req) => {
      meter.enter();
      await sleep(150);
      meter.leave();
      return { json: { items: [{ id: req.query.id }] } };
    });
  }
  stack = await startStack({
    env: { orchestrator: { RUN_LEASE_MS: '1500', RUN_CONCURRENCY: '16', CONNECTOR_CONCURRENCY: '3', CONNECTOR_CONCURRENCY_OVERRIDES: 'slow-api=1' } },
  });
  h = harness(stack, 'map-user');
  await createConnector(h, CONNECTOR('map-api', api.url), 'c-map');
  await createConnector(h, CONNECTOR('slow-api', api.url), 'c-slow');
  await createConnector(h, CONNECTOR('fast-api', api.url), 'c-fast');
}, 60_000);

afterAll(async () => {
  held?.release();
  await stack?.stop();
  await api?.close();
});

const call_ = (id: string, endpoint: string, inputs: Record<string, unknown> = {}, extra: Record<string, unknown> = {}, connector = 'map-api') => ({
  id,
  kind: 'tool',
  action: 'call_connector',
  params: { connector, endpoint },
  inputs,
  ...extra,
});
const shapeRows = (id: string, dependsOn: string[]) => ({
  id,
  kind: 'tool',
  action: 'transform_data',
  inputs: { data: '{visit.results}' },
  params: { operations: [{ type: 'map', mapping: { id: 'id', n: 'n' } }] },
  dependsOn,
});

describe('map: golden runs', () => {
  it('golden run: exact frames, statuses and outputs; one call per item in item order with {current} and {index}', async () => {
    const before = api.requestsTo('GET', '/visit').length;
    const runId = await start(
      h,
      {
        inputs: [{ name: 'ids' }],
        nodes: [
          {
            id: 'each',
            kind: 'map',
            body: { itemsFrom: '{ids}', nodes: [call_('visit', 'visit', { id: '{current}', n: 'n{index}' }), shapeRows('shape', ['visit'])] },
          },
          { id: 'after', kind: 'tool', action: 'transform_data', inputs: { data: '{each}' }, params: {}, dependsOn: ['each'] },
        ],
      },
      { inputs: { ids: ['a', 'c', 'd'] } },
    );
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(shape(await frames(h, runId))).toEqual([
      'start',
      'node_start:each',
      'node_start:visit[0]',
      'node_complete:visit[0]',
      'node_start:shape[0]',
      'node_complete:shape[0]',
      'node_start:visit[1]',
      'node_complete:visit[1]',
      'node_start:shape[1]',
      'node_complete:shape[1]',
      'node_start:visit[2]',
      'node_complete:visit[2]',
      'node_start:shape[2]',
      'node_complete:shape[2]',
      'node_complete:each',
      'node_start:after',
      'node_complete:after',
      'complete',
    ]);
    const expected = ['a', 'c', 'd'].map((id, i) => ({ data: [{ id, n: `n${i}` }], count: 1 }));
    expect(run.outputs!.each).toEqual(expected);
    expect(output(run, 'after')).toEqual({ data: expected, count: 3 });
    expect(status(run)).toEqual({
      each: 'completed',
      after: 'completed',
      'visit[0]': 'completed',
      'shape[0]': 'completed',
      'visit[1]': 'completed',
      'shape[1]': 'completed',
      'visit[2]': 'completed',
      'shape[2]': 'completed',
    });
    expect(run.iterations.map((n) => n.nodeId)).toEqual(['visit[0]', 'shape[0]', 'visit[1]', 'shape[1]', 'visit[2]', 'shape[2]']);
    expect(output(run, 'visit[2]')).toEqual({ results: [{ id: 'd', visited: true, n: 'n2' }], count: 1 });
    expect(api.requestsTo('GET', '/visit').slice(before).map((r) => [r.query.id, r.query.n])).toEqual([
      ['a', 'n0'],
      ['c', 'n1'],
      ['d', 'n2'],
    ]);
    const fs = await frames(h, runId);
    expect(fs.find((f) => f.type === 'node_start' && f.nodeId === 'visit[1]')!.payload).toMatchObject({ map: 'each', index: 1, attempt: 1 });
    const done = fs.find((f) => f.type === 'node_complete' && f.nodeId === 'each')!.payload;
    expect(done).toMatchObject({ iterations: 3, summary: { type: 'array', length: 3 } });
    expect(done.failedIterations).toBeUndefined();
  });

  it('maxIterations drops the extra items with a map_truncated frame; concurrency bounds the iterations in flight; continueOnError gives null for a failed one', async () => {
    visits.reset();
    const runId = await start(h, {
      nodes: [
        call_('list', 'list'),
        {
          id: 'each',
          kind: 'map',
          dependsOn: ['list'],
          body: { itemsFrom: 'list.results', maxIterations: 4, concurrency: 2, continueOnError: true, nodes: [call_('visit', 'visit', { id: '{current.id}' })] },
        },
      ],
    });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    // Items a..d (e dropped); b's call fails.
    expect(run.outputs!.each).toEqual([
      { results: [{ id: 'a', visited: true, n: null }], count: 1 },
      null,
      { results: [{ id: 'c', visited: true, n: null }], count: 1 },
      { results: [{ id: 'd', visited: true, n: null }], count: 1 },
    ]);
    expect(status(run)).toMatchObject({ each: 'completed', 'visit[0]': 'completed', 'visit[1]': 'failed', 'visit[2]': 'completed', 'visit[3]': 'completed' });
    expect(run.iterations).toHaveLength(4);
    expect(visits.peak).toBe(2);
    const fs = await frames(h, runId);
    expect(shape(fs).slice(0, 5)).toEqual(['start', 'node_start:list', 'node_complete:list', 'node_start:each', 'log:each']);
    expect(fs[4]!.payload).toEqual({ event: 'map_truncated', nodeId: 'each', total: 5, maxIterations: 4, dropped: 1 });
    expect(shape(fs).slice(-2)).toEqual(['node_complete:each', 'complete']);
    expect(fs.at(-2)!.payload).toMatchObject({ iterations: 4, total: 5, failedIterations: [1] });
    expect(fs.find((f) => f.type === 'node_error' && f.nodeId === 'visit[1]')!.payload).toMatchObject({ code: 'UNAVAILABLE', continues: false });
  });

  it('without continueOnError a failed iteration fails the map; later items never start', async () => {
    const before = api.requestsTo('GET', '/visit').length;
    const runId = await start(h, {
      nodes: [call_('list', 'list'), { id: 'each', kind: 'map', dependsOn: ['list'], body: { itemsFrom: '{list.results}', nodes: [call_('visit', 'visit', { id: '{current.id}' })] } }],
    });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    expect(run.error).toMatch(/^node each failed: map each: iteration 1 failed: node visit\[1\] failed: /);
    expect(shape(await frames(h, runId))).toEqual([
      'start',
      'node_start:list',
      'node_complete:list',
      'node_start:each',
      'node_start:visit[0]',
      'node_complete:visit[0]',
      'node_start:visit[1]',
      'node_error:visit[1]',
      'node_error:each',
      'complete',
    ]);
    expect(status(run)).toEqual({ list: 'completed', each: 'failed', 'visit[0]': 'completed', 'visit[1]': 'failed', 'visit[2]': 'cancelled', 'visit[3]': 'cancelled', 'visit[4]': 'cancelled' });
    // Items 2–4 were never requested. Item 1's 5xx is retried once inside connector-runtime (seed §10 failure table).
    expect([...new Set(api.requestsTo('GET', '/visit').slice(before).map((r) => r.query.id))]).toEqual([ITEMS[0]!.id, ITEMS[1]!.id]);
  });

  it('an empty array completes the map with [] and no iterations', async () => {
    const runId = await start(h, { inputs: [{ name: 'ids' }], nodes: [{ id: 'each', kind: 'map', body: { itemsFrom: '{ids}', nodes: [call_('visit', 'visit', { id: '{current}' })] } }] }, { inputs: { ids: [] } });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(run.outputs!.each).toEqual([]);
    expect(shape(await frames(h, runId))).toEqual(['start', 'node_start:each', 'node_complete:each', 'complete']);
  });
});

describe('map: durability', () => {
  it('a crash in the middle of a map resumes without re-running finished iterations or repeating the call in flight', async () => {
    let release!: () => void;
    held = { arrived: 0, release: () => release(), wait: new Promise<void>((r) => (release = r)) };
    const before = api.requestsTo('GET', '/held').length;
    const runId = await start(
      h,
      { inputs: [{ name: 'ids' }], nodes: [{ id: 'each', kind: 'map', body: { itemsFrom: '{ids}', nodes: [call_('hold', 'held', { id: '{current}' })] } }] },
      { inputs: { ids: ['a', 'b', 'c'] } },
    );
    // Item a is done, item b's call is in flight at the API.
    while (held.arrived < 1) await sleep(20);
    await stack.services.orchestrator.kill();
    await stack.services.orchestrator.start();
    held.release();
    const run = await until(h, runId);
    held = undefined;
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(run.outputs!.each).toEqual(['a', 'b', 'c'].map((id) => ({ results: [{ id }], count: 1 })));
    // One call per item: a was not re-run, b's call was answered from the idempotency record.
    expect(api.requestsTo('GET', '/held').slice(before).map((r) => r.query.id)).toEqual(['a', 'b', 'c']);
    // Each frame once: the replayed node emits no second node_start.
    expect(shape(await frames(h, runId))).toEqual([
      'start',
      'node_start:each',
      'node_start:hold[0]',
      'node_complete:hold[0]',
      'node_start:hold[1]',
      'node_complete:hold[1]',
      'node_start:hold[2]',
      'node_complete:hold[2]',
      'node_complete:each',
      'complete',
    ]);
    expect(run.iterations.map((n) => n.attempt)).toEqual([1, 1, 1]);
  });

  it('an approval inside an iteration parks the run; deciding it by instance id moves that iteration on', async () => {
    const runId = await start(
      h,
      {
        inputs: [{ name: 'ids' }],
        nodes: [
          {
            id: 'each',
            kind: 'map',
            body: {
              itemsFrom: '{ids}',
              nodes: [
                { id: 'gate', kind: 'approval', inputs: { prompt: 'Visit {current}?' } },
                call_('visit', 'visit', { id: '{current}' }, { dependsOn: ['gate'] }),
              ],
            },
          },
        ],
      },
      { inputs: { ids: ['a', 'c'] } },
    );
    let run = await until(h, runId, (r) => r.status === RunStatus.RUN_STATUS_WAITING);
    expect(status(run)).toMatchObject({ each: 'waiting', 'gate[0]': 'waiting', 'visit[0]': 'pending', 'gate[1]': 'pending' });
    // A body node is named with its iteration.
    const bare = await resume(h, runId, 'gate', 'approve').catch((e) => e);
    expect(bare.code).toBe('INVALID_ARGUMENT');
    expect(bare.message).toBe('node_id: run has no node gate');
    expect((await resume(h, runId, 'gate[7]', 'approve').catch((e) => e)).message).toBe('node gate[7] is not waiting for a decision');
    await resume(h, runId, '', 'approve'); // the only waiting approval
    run = await until(h, runId, (r) => status(r)['gate[1]'] === 'waiting' && r.status === RunStatus.RUN_STATUS_WAITING);
    expect(status(run)).toMatchObject({ 'gate[0]': 'completed', 'visit[0]': 'completed', 'gate[1]': 'waiting' });
    await resume(h, runId, 'gate[1]', 'approve');
    run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(run.outputs!.each).toEqual(['a', 'c'].map((id) => ({ results: [{ id, visited: true, n: null }], count: 1 })));
    expect(shape(await frames(h, runId))).toEqual([
      'start',
      'node_start:each',
      'node_start:gate[0]',
      'hitl_request:gate[0]',
      'log:gate[0]',
      'node_complete:gate[0]',
      'node_start:visit[0]',
      'node_complete:visit[0]',
      'node_start:gate[1]',
      'hitl_request:gate[1]',
      'log:gate[1]',
      'node_complete:gate[1]',
      'node_start:visit[1]',
      'node_complete:visit[1]',
      'node_complete:each',
      'complete',
    ]);
  });
});

describe('workflow_steps transform, conditional and loop steps', () => {
  it('runs the compiled seed steps: transform map, a conditional, and a loop whose body reduces each item', async () => {
    const compiled = compileWorkflowSteps([
      { id: 'step1', type: 'transform', params: { operation: 'map', input: '{{input.emails}}', config: { mapping: { email: '{{current.from}}', n: '{{index}}' } } } },
      { id: 'step2', type: 'conditional', condition: { field: 'step1.length', operator: '>', value: 1 } },
      {
        id: 'step3',
        type: 'loop',
        iterateOver: 'input.batches',
        dependencies: ['step2'],
        executeIf: { field: 'step2.result', operator: '==', value: true },
        loopSteps: [{ id: 'total', type: 'transform', params: { operation: 'reduce', input: '{{current.scores}}', config: { reducer: 'sum' } } }],
      },
      { id: 'step4', type: 'transform', params: { operation: 'sort', input: '{{step3.data}}', config: { order: 'desc' } }, dependencies: ['step3'] },
    ]);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.errors));
    const plan = JSON.parse(JSON.stringify(compiled.plan)) as Record<string, unknown>;
    const runId = await start(h, plan, {
      inputs: { emails: [{ from: 'x@y' }, { from: 'z@y' }], batches: [{ scores: [1, 2] }, { scores: [10] }, { scores: [] }] },
    });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(output(run, 'step1')).toEqual([
      { email: 'x@y', n: 0 },
      { email: 'z@y', n: 1 },
    ]);
    expect(output(run, 'step2')).toEqual({ result: true });
    expect(output(run, 'step3')).toEqual([3, 10, 0]);
    expect(output(run, 'step4')).toEqual([10, 3, 0]);
    expect(status(run)).toMatchObject({ step1: 'completed', step2: 'completed', step3: 'completed', 'total[2]': 'completed' });
  });

  it('a bad transform config fails its node with the field at fault', async () => {
    const compiled = compileWorkflowSteps([{ id: 's', type: 'transform', params: { operation: 'reduce', input: '{{input.xs}}', config: { reducer: 'median' } } }]);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.errors));
    const runId = await start(h, JSON.parse(JSON.stringify(compiled.plan)), { inputs: { xs: [1] } });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    const err = (await frames(h, runId)).find((f) => f.type === 'node_error')!.payload;
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'inputs.config.reducer', reason: "must be one of sum, count, min, max, avg, concat, got 'median'" }] });
  });
});

describe('map: bad input', () => {
  it('refuses a map without a body at StartRun, naming the field', async () => {
    const err = await startError(h, { nodes: [{ id: 'each', kind: 'map' }] });
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations.map((v) => v.field)).toEqual(['plan.nodes[0].body']);
  });

  it('fails the map node when itemsFrom is not an array, saying what it got', async () => {
    const runId = await start(h, { nodes: [call_('list', 'list'), { id: 'each', kind: 'map', dependsOn: ['list'], body: { itemsFrom: '{list.count}', nodes: [call_('visit', 'visit', { id: '{current}' })] } }] });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    expect(byNode(run, 'each').status).toBe(NodeStatus.NODE_STATUS_FAILED);
    const err = (await frames(h, runId)).find((f) => f.type === 'node_error' && f.nodeId === 'each')!.payload;
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'body.itemsFrom', reason: 'must resolve to an array, got a number' }] });
  });
});

describe('per-connector concurrency', () => {
  const wide = (connector: string, n: number, prefix = '') => Array.from({ length: n }, (_, i) => call_(`${prefix}n${i}`, connector === 'slow-api' ? 'slow' : 'fast', { id: `${prefix}${i}` }, {}, connector));

  it('holds each connector to its limit within a run (override 1, default 3) while the run allows 16 nodes', async () => {
    slowMeter.reset();
    fastMeter.reset();
    const runId = await start(h, { nodes: [...wide('slow-api', 3, 's'), ...wide('fast-api', 6, 'f')] });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(slowMeter.peak).toBe(1);
    expect(fastMeter.peak).toBe(3);
  });

  it('and across runs on one replica; map iterations count too', async () => {
    slowMeter.reset();
    const ids = ['a', 'b', 'c', 'd'];
    const runs = await Promise.all([
      start(h, { nodes: wide('slow-api', 2, 'x') }),
      start(
        h,
        { inputs: [{ name: 'ids' }], nodes: [{ id: 'each', kind: 'map', body: { itemsFrom: '{ids}', concurrency: 4, nodes: [call_('v', 'slow', { id: '{current}' }, {}, 'slow-api')] } }] },
        { inputs: { ids } },
      ),
    ]);
    for (const id of runs) expect((await until(h, id)).status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(slowMeter.peak).toBe(1);
  });
});

const byNode = (run: Awaited<ReturnType<typeof until>>, id: string) => run.nodes.find((n) => n.nodeId === id)!;

