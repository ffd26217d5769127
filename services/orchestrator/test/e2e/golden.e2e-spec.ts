/**
 * Issue 4 golden runs of the seed examples not covered elsewhere, through the
 * real services (orchestrator, connector-runtime and a fixture API as
 * separate processes, PostgreSQL, NATS): sequential, parallel fan-out/fan-in,
 * diamond (nodes start when their own dependencies are done, not level by
 * level), the workflow_steps loop and conditional steps, and a node
 * `condition` — each asserting outputs, node statuses and the exact frame
 * order (concurrent branches as interleavings of their own ordered frames).
 */
import { compileWorkflowSteps } from '@af/plan';
import { startFixtureServer, startStack, type FixtureServer, type Stack } from '@af/testing';
import { createConnector, expectOrder, frames, harness, output, RunStatus, shape, sleep, start, status, until, type Harness } from './helpers.js';

let stack: Stack;
let api: FixtureServer;
let h: Harness;

const CONNECTOR = (baseUrl: string) => `
id: golden-api
name: golden-api
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
      - { name: ms, type: string }
    response_mapping: { results_path: items }
`;

beforeAll(async () => {
  api = await startFixtureServer();
  api.route('GET', '/work', async (req) => {
    await sleep(Number(req.query.ms ?? 0));
    return { json: { items: [{ id: req.query.id, done: true }] } };
  });
  stack = await startStack({ env: { orchestrator: { RUN_LEASE_MS: '1500', RUN_CONCURRENCY: '8' } } });
  h = harness(stack, 'golden-user');
  await createConnector(h, CONNECTOR(api.url), 'c-golden');
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await api?.close();
});

const work = (id: string, ms: number, dependsOn: string[] = []) => ({
  id,
  kind: 'tool',
  action: 'call_connector',
  params: { connector: 'golden-api', endpoint: 'work' },
  inputs: { id, ms: String(ms) },
  dependsOn,
});
const transform = (id: string, data: unknown, operations: unknown[], dependsOn: string[] = [], extra: Record<string, unknown> = {}) => ({
  id,
  kind: 'tool',
  action: 'transform_data',
  inputs: { data },
  params: { operations },
  dependsOn,
  ...extra,
});
const calls = (runStart: number) => api.requestsTo('GET', '/work').slice(runStart).map((r) => r.query.id);

describe('golden runs', () => {
  it('sequential: each node starts after the previous one completed, wired through {…} references', async () => {
    const runId = await start(
      h,
      {
        inputs: [{ name: 'scores', type: 'array' }],
        nodes: [
          transform('sorted', '{scores}', [{ type: 'sort', direction: 'desc' }]),
          transform('top', '{sorted.data}', [{ type: 'limit', n: 2 }], ['sorted']),
          transform('ordered', '{top.data}', [{ type: 'sort', direction: 'asc' }], ['top']),
        ],
      },
      { inputs: { scores: [3, 9, 1, 7] } },
    );
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(shape(await frames(h, runId))).toEqual([
      'start',
      'node_start:sorted',
      'node_complete:sorted',
      'node_start:top',
      'node_complete:top',
      'node_start:ordered',
      'node_complete:ordered',
      'complete',
    ]);
    expect(status(run)).toEqual({ sorted: 'completed', top: 'completed', ordered: 'completed' });
    expect(output(run, 'sorted')).toEqual({ data: [9, 7, 3, 1], count: 4 });
    expect(output(run, 'top')).toEqual({ data: [9, 7], count: 2 });
    expect(output(run, 'ordered')).toEqual({ data: [7, 9], count: 2 });
    expect(run.outputs).toEqual({ sorted: output(run, 'sorted'), top: output(run, 'top'), ordered: output(run, 'ordered') });
  });

  it('parallel fan-out / fan-in: the branches run at the same time, the join waits for all of them', async () => {
    const before = api.requestsTo('GET', '/work').length;
    const runId = await start(h, {
      nodes: [
        work('root', 0),
        work('b1', 300, ['root']),
        work('b2', 300, ['root']),
        work('b3', 300, ['root']),
        transform('join', ['{b1.results[0].id}', '{b2.results[0].id}', '{b3.results[0].id}'], [{ type: 'sort', direction: 'asc' }], ['b1', 'b2', 'b3']),
      ],
    });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    const got = shape(await frames(h, runId));
    expectOrder(got, [
      'start',
      'node_start:root',
      'node_complete:root',
      { parallel: [['node_start:b1', 'node_complete:b1'], ['node_start:b2', 'node_complete:b2'], ['node_start:b3', 'node_complete:b3']] },
      'node_start:join',
      'node_complete:join',
      'complete',
    ]);
    // Truly parallel: every branch started before the first one completed.
    const firstDone = got.findIndex((f) => /^node_complete:b\d$/.test(f));
    expect(got.slice(0, firstDone).filter((f) => /^node_start:b\d$/.test(f))).toHaveLength(3);
    expect(status(run)).toEqual({ root: 'completed', b1: 'completed', b2: 'completed', b3: 'completed', join: 'completed' });
    expect(output(run, 'join')).toEqual({ data: ['b1', 'b2', 'b3'], count: 3 });
    expect(calls(before).sort()).toEqual(['b1', 'b2', 'b3', 'root']);
  });

  it('diamond: a node starts as soon as its own dependencies are done, not when its level is', async () => {
    const runId = await start(h, {
      nodes: [
        work('top', 0),
        work('left', 700, ['top']),
        work('right', 0, ['top']),
        work('right_after', 0, ['right']),
        transform('bottom', ['{left.results[0].id}', '{right_after.results[0].id}'], [], ['left', 'right_after']),
      ],
    });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    const got = shape(await frames(h, runId));
    expectOrder(got, [
      'start',
      'node_start:top',
      'node_complete:top',
      { parallel: [['node_start:left', 'node_complete:left'], ['node_start:right', 'node_complete:right', 'node_start:right_after', 'node_complete:right_after']] },
      'node_start:bottom',
      'node_complete:bottom',
      'complete',
    ]);
    // right_after ran while left (its level-mate's sibling) was still working.
    expect(got.indexOf('node_complete:right_after')).toBeLessThan(got.indexOf('node_complete:left'));
    expect(got.indexOf('node_start:right_after')).toBeGreaterThan(got.indexOf('node_start:left'));
    expect(status(run)).toEqual({ top: 'completed', left: 'completed', right: 'completed', right_after: 'completed', bottom: 'completed' });
    expect(output(run, 'bottom')).toEqual({ data: ['left', 'right_after'], count: 2 });
  });

  it('loop (workflow_steps seed): iterateOver an array, loopSteps per item in order, maxIterations caps the items', async () => {
    const compiled = compileWorkflowSteps([
      {
        id: 'step1',
        type: 'loop',
        iterateOver: 'input.batches',
        maxIterations: 2,
        loopSteps: [
          { id: 'total', type: 'transform', params: { operation: 'reduce', input: '{{current.scores}}', config: { reducer: 'sum' } } },
          { id: 'label', type: 'transform', params: { operation: 'map', input: '{{current.tags}}', config: { mapping: { tag: '{{current}}', n: '{{index}}' } } } },
        ],
      },
      { id: 'step2', type: 'transform', params: { operation: 'reduce', input: '{{step1.data}}', config: { reducer: 'concat' } }, dependencies: ['step1'] },
    ]);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.errors));
    const runId = await start(h, JSON.parse(JSON.stringify(compiled.plan)), {
      inputs: { batches: [{ scores: [1, 2], tags: ['x'] }, { scores: [10], tags: [] }, { scores: [100], tags: ['never'] }] },
    });
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    const fs = await frames(h, runId);
    expect(shape(fs)).toEqual([
      'start',
      'node_start:step1',
      'log:step1',
      'node_start:total[0]',
      'node_complete:total[0]',
      'node_start:label[0]',
      'node_complete:label[0]',
      'node_start:total[1]',
      'node_complete:total[1]',
      'node_start:label[1]',
      'node_complete:label[1]',
      'node_complete:step1',
      'node_start:step2',
      'node_complete:step2',
      'complete',
    ]);
    expect(fs.find((f) => f.type === 'log')!.payload).toMatchObject({ event: 'map_truncated', total: 3, maxIterations: 2, dropped: 1 });
    expect(status(run)).toEqual({
      step1: 'completed',
      step2: 'completed',
      'total[0]': 'completed',
      'label[0]': 'completed',
      'total[1]': 'completed',
      'label[1]': 'completed',
    });
    expect(output(run, 'total[0]')).toBe(3);
    expect(output(run, 'total[1]')).toBe(10);
    expect(output(run, 'label[0]')).toEqual([{ tag: 'x', n: 0 }]);
    expect(output(run, 'step1')).toEqual([[{ tag: 'x', n: 0 }], []]);
    expect(output(run, 'step2')).toEqual([{ tag: 'x', n: 0 }]);
  });

  it('conditional (workflow_steps seed): a conditional step, executeIf on its result, the untaken step skipped with its reason', async () => {
    const compiled = compileWorkflowSteps([
      { id: 'step1', type: 'transform', params: { operation: 'filter', input: '{{input.emails}}', config: { condition: { field: 'current.priority', operator: '==', value: 'high' } } } },
      { id: 'step2', type: 'conditional', condition: { field: 'step1.length', operator: '>', value: 0 } },
      { id: 'step3', type: 'transform', params: { operation: 'map', input: '{{step1.data}}', config: { mapping: { urgent: '{{current.from}}' } } }, dependencies: ['step2'], executeIf: 'step2.result == true' },
      { id: 'step4', type: 'transform', params: { operation: 'map', input: '{{input.emails}}', config: { mapping: { digest: '{{current.from}}' } } }, dependencies: ['step2'], executeIf: 'step2.result == false' },
    ]);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.errors));
    const plan = JSON.parse(JSON.stringify(compiled.plan)) as Record<string, unknown>;
    const runWith = async (emails: unknown[]) => {
      const runId = await start(h, plan, { inputs: { emails } });
      return { runId, run: await until(h, runId) };
    };

    const urgent = await runWith([
      { from: 'vip@x', priority: 'high' },
      { from: 'bob@x', priority: 'low' },
    ]);
    expect(urgent.run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    const fs = await frames(h, urgent.runId);
    expectOrder(shape(fs), [
      'start',
      'node_start:step1',
      'node_complete:step1',
      'node_start:step2',
      'node_complete:step2',
      { parallel: [['node_start:step3', 'node_complete:step3'], ['node_complete:step4']] },
      'complete',
    ]);
    expect(fs.find((f) => f.type === 'node_complete' && f.nodeId === 'step4')!.payload).toEqual({ skipped: true, reason: 'condition_false' });
    expect(status(urgent.run)).toEqual({ step1: 'completed', step2: 'completed', step3: 'completed', step4: 'skipped' });
    expect(urgent.run.nodes.find((n) => n.nodeId === 'step4')!.skipReason).toBe('condition_false');
    expect(output(urgent.run, 'step2')).toEqual({ result: true });
    expect(output(urgent.run, 'step3')).toEqual([{ urgent: 'vip@x' }]);
    expect(output(urgent.run, 'step4')).toBeUndefined();

    const calm = await runWith([{ from: 'bob@x', priority: 'low' }]);
    expect(status(calm.run)).toEqual({ step1: 'completed', step2: 'completed', step3: 'skipped', step4: 'completed' });
    expect(output(calm.run, 'step2')).toEqual({ result: false });
    expect(output(calm.run, 'step4')).toEqual([{ digest: 'bob@x' }]);
  });

  it('a node condition (playbook syntax) skips the node with condition_false; a dependent still runs', async () => {
    const runId = await start(
      h,
      {
        inputs: [{ name: 'amount', type: 'number' }],
        nodes: [
          transform('check', [1], [], [], { condition: '{amount} > 100' }),
          transform('always', [2], [], ['check']),
        ],
      },
      { inputs: { amount: 5 } },
    );
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(shape(await frames(h, runId))).toEqual(['start', 'node_complete:check', 'node_start:always', 'node_complete:always', 'complete']);
    expect(run.nodes.map((n) => [n.nodeId, n.skipReason])).toEqual([
      ['check', 'condition_false'],
      ['always', ''],
    ]);
    expect(status(run)).toEqual({ check: 'skipped', always: 'completed' });
  });
});
