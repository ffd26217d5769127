import { PlanNodeSchema, type PlanGraph, type PlanNode } from '@af/plan';
import { AppError } from '@af/service-kit';
import type { NodeContext } from '../../domain/node-executor.js';
import type { Run } from '../../domain/run-state.js';
import { WaitFor } from '../../domain/waiting.js';
import { subflowExecutor, type SubflowDeps } from './subflow.executor.js';

const child = { nodes: [{ id: 'c1', kind: 'tool', action: 'transform_data', inputs: { data: '{rows}' } }], inputs: [{ name: 'rows', required: true }] };
const now = new Date('2026-01-01T00:00:00Z');

function setup(params: Record<string, unknown>, over: Partial<NodeContext> = {}, deps: Partial<SubflowDeps> = {}) {
  const created: Array<Parameters<SubflowDeps['createChild']>[0]> = [];
  const node: PlanNode = PlanNodeSchema.parse({ id: 'sub', kind: 'subflow', params, inputs: { rows: '{src.results}' } });
  const exec = subflowExecutor({
    createChild: async (input) => {
      created.push(input);
      return { id: 'child-1' } as Run;
    },
    loadPlaybook: async (_user, id) => {
      if (id === 'stored') return child;
      throw AppError.notFound('playbook', id);
    },
    maxDepth: 2,
    now: () => now,
    ...deps,
  });
  const ctx: NodeContext = {
    runId: 'run-1',
    userId: 'u1',
    node,
    instanceId: 'sub[2]',
    inputs: { rows: [1, 2] },
    params: Object.fromEntries(Object.entries(params).filter(([k]) => k !== 'plan')),
    attempt: 1,
    idempotencyKey: 'run-1:sub[2]:1',
    timeoutMs: 1000,
    signal: new AbortController().signal,
    scope: { vars: {} },
    run: { approvalPolicy: 'require', runContext: 'background', depth: 0, dryRun: false },
    resolve: (v) => v,
    ...over,
  };
  return { run: () => exec(ctx), created };
}

async function error(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

describe('subflow executor', () => {
  it("the child run keeps the parent's owner and teams (its capability lookups see what the parent's do)", async () => {
    const { run, created } = setup({ plan: child }, { teamIds: ['red'] });
    await run();
    expect(created[0]).toMatchObject({ userId: 'u1', teamIds: ['red'] });
  });

  it('starts the child under the node key and waits for it, with a subflow_started frame', async () => {
    const { run, created } = setup({ plan: child, timeout_seconds: 30 });
    const out = await run();
    expect(out).toBeInstanceOf(WaitFor);
    const wait = out as WaitFor;
    expect(wait.childRunId).toBe('child-1');
    expect(wait.until).toEqual(new Date('2026-01-01T00:00:30Z'));
    expect(wait.frame).toEqual({ type: 'subflow_started', payload: { childRunId: 'child-1', inline: true, timeoutAt: '2026-01-01T00:00:30.000Z' } });
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({
      userId: 'u1',
      inputs: { rows: [1, 2] },
      runContext: 'background',
      idempotencyKey: 'subflow:run-1:sub[2]:1',
      parent: { runId: 'run-1', nodeId: 'sub[2]', depth: 1 },
    });
    expect((created[0]!.plan as PlanGraph).nodes[0]!.inputs).toEqual({ data: '{rows}' });
  });

  it('compiles a stored playbook by id (workflow_slug as the seed names it), default timeout 300 s', async () => {
    const { run, created } = setup({ workflow_slug: 'stored' });
    const wait = (await run()) as WaitFor;
    expect(wait.until).toEqual(new Date('2026-01-01T00:05:00Z'));
    expect(wait.frame!.payload).toMatchObject({ playbookId: 'stored' });
    expect(created[0]!.plan.nodes.map((n) => n.id)).toEqual(['c1']);
  });

  it('refuses bad params with the field', async () => {
    expect((await error(setup({}).run())).violations[0]!.field).toBe('params');
    expect((await error(setup({ plan: child, playbook_id: 'stored' }).run())).violations[0]!.field).toBe('params');
    expect((await error(setup({ playbook_id: '' }).run())).violations[0]!.field).toBe('params.playbook_id');
    for (const t of [0, -1, 'soon', 90_000]) expect((await error(setup({ plan: child, timeout_seconds: t }).run())).violations[0]!.field).toBe('params.timeout_seconds');
  });

  it('refuses an invalid child plan, naming the field inside params.plan', async () => {
    const e = await error(setup({ plan: { nodes: [{ id: 'c1', kind: 'tool', dependsOn: ['ghost'] }] } }).run());
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.violations[0]!.field).toBe('params.plan.nodes[0].dependsOn[0]');
  });

  it('refuses when the child would miss required inputs', async () => {
    const e = await error(setup({ plan: child }, { inputs: {} }).run());
    expect(e.message).toBe('node sub: the child plan needs input(s) rows');
    expect(e.violations[0]!.field).toBe('inputs.rows');
  });

  it('passes a planner error through (unknown playbook)', async () => {
    expect((await error(setup({ playbook_id: 'nope' }).run())).code).toBe('NOT_FOUND');
  });

  it('refuses to nest deeper than the limit', async () => {
    const { run, created } = setup({ plan: child }, { run: { approvalPolicy: 'require', runContext: 'background', depth: 2, dryRun: false } });
    const e = await error(run());
    expect(e.code).toBe('FAILED_PRECONDITION');
    expect(e.message).toBe('node sub: subflows nest at most 2 deep and this run is at depth 2');
    expect(created).toHaveLength(0);
  });
});
