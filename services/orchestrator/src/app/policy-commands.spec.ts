import { PlanGraphSchema } from '@af/plan';
import type { NodeState, Run } from '../domain/run-state.js';
import type { FlexReplanner } from '../infra/planner.client.js';
import { flexEnvelope, flexPlanSource, playbookPlanSource } from './policy-commands.js';
import { lockedNodeIds } from './run-policies.js';

const envelope = { objective: 'Write a post', outputContract: { schema: { type: 'object' } } };
const node = (id: string, dependsOn: string[] = []) => ({ id, kind: 'tool', action: 'transform_data', inputs: { data: [1] }, dependsOn });

function run(metadata: Record<string, unknown>, over: Partial<Run> = {}): Run {
  return {
    id: 'r1',
    userId: 'u1',
    status: 'running',
    runContext: 'background',
    plan: PlanGraphSchema.parse({ version: 1, metadata, nodes: [node('a'), node('b', ['a']), node('c', ['b'])] }),
    planVersion: 3,
    inputs: {},
    error: null,
    createdAt: new Date(),
    updatedAt: new Date(),
    ...over,
  };
}

describe('flexEnvelope', () => {
  it('is the envelope a planner-made plan carries in metadata.flex', () => {
    expect(flexEnvelope(run({ flex: { planVersion: 1, envelope } }).plan)).toEqual(envelope);
  });
  it('is absent for other plans (or a malformed entry)', () => {
    expect(flexEnvelope(run({}).plan)).toBeUndefined();
    expect(flexEnvelope(run({ flex: 'yes' }).plan)).toBeUndefined();
    expect(flexEnvelope(run({ flex: { envelope: ['x'] } }).plan)).toBeUndefined();
    expect(flexEnvelope(run({ flex: { planVersion: 1 } }).plan)).toBeUndefined();
  });
});

describe('flexPlanSource', () => {
  const ctx = { completedNodeIds: ['a'], trigger: { source: 'policy', policyId: 'low_quality', rationale: 'QA score too low' } };

  it("asks the planner as the run's owner (with the teams it started with), with the envelope, the current plan version and its locked nodes", async () => {
    const asked: Array<[Parameters<FlexReplanner>[0], Parameters<FlexReplanner>[1]]> = [];
    const planner: FlexReplanner = async (principal, r) => (asked.push([principal, r]), { nodes: [] });
    const source = flexPlanSource(planner, async () => {
      throw new Error('not a playbook run');
    });
    const r = run({ flex: { envelope } }, { teamIds: ['t1'] });
    await expect(source(r, ctx)).resolves.toEqual({ nodes: [] });
    expect(asked).toHaveLength(1);
    const [principal, req] = asked[0]!;
    expect(principal).toEqual({ userId: 'u1', teamIds: ['t1'] });
    expect(req.envelope).toEqual(envelope);
    expect(req.completedNodeIds).toEqual(['a']);
    expect(req.trigger).toEqual(ctx.trigger);
    // The plan being revised is the run's current version.
    expect(req.previousPlan.version).toBe(3);
    expect(req.previousPlan.nodes.map((n) => n.id)).toEqual(['a', 'b', 'c']);
  });

  it('other runs go to the next source (a stored playbook compiled again)', async () => {
    const loaded: string[] = [];
    const source = flexPlanSource(
      async () => {
        throw new Error('not a flex run');
      },
      playbookPlanSource(async (_u, id) => (loaded.push(id), { nodes: [] })),
    );
    await expect(source(run({}, { plan: { ...run({}).plan, provenance: { frontEnd: 'playbook', sourceId: 'pb-1' } } as Run['plan'] }), ctx)).resolves.toEqual({ nodes: [] });
    expect(loaded).toEqual(['pb-1']);
    await expect(source(run({}), ctx)).rejects.toMatchObject({ code: 'FAILED_PRECONDITION', violations: [{ field: 'plan' }] });
  });

  it("the planner's refusal reaches the caller", async () => {
    const source = flexPlanSource(
      async () => {
        throw new Error('planner down');
      },
      async () => ({}),
    );
    await expect(source(run({ flex: { envelope } }), ctx)).rejects.toThrow('planner down');
  });
});

describe('lockedNodeIds', () => {
  const st = (status: NodeState['status']) => ({ status });
  it('top-level nodes that completed, and failed primaries whose fallback output stands in', () => {
    const r = run({});
    const states = new Map([
      ['a', st('completed')],
      ['b', st('failed')],
      ['c', st('running')],
      ['m[0]', st('completed')],
    ]);
    expect(lockedNodeIds(r, states, new Set())).toEqual(['a']);
    expect(lockedNodeIds(r, states, new Set(['b']))).toEqual(['a', 'b']);
    expect(lockedNodeIds(r, new Map(), new Map())).toEqual([]);
  });
});
