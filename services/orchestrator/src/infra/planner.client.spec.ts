import type { planner } from '@af/contracts';
import { PlanGraphSchema, planToWire } from '@af/plan';
import { of, throwError } from 'rxjs';
import { flexReplanner, noFlexReplanner } from './planner.client.js';

const previous = PlanGraphSchema.parse({ version: 2, nodes: [{ id: 'a', kind: 'tool', action: 'transform_data' }] });
const next = PlanGraphSchema.parse({ version: 3, nodes: [{ id: 'a', kind: 'tool', action: 'transform_data' }, { id: 'b', kind: 'tool', action: 'transform_data', dependsOn: ['a'] }] });
const request = { envelope: { objective: 'x' }, previousPlan: previous, completedNodeIds: ['a'], trigger: { source: 'policy', policyId: 'p' } };

function client(answer: () => ReturnType<planner.PlannerServiceClient['planTask']>) {
  const asked: planner.PlanTaskRequest[] = [];
  const c = { planTask: (r: planner.PlanTaskRequest) => (asked.push(r), answer()) } as unknown as planner.PlannerServiceClient;
  return { c, asked };
}

const response = (over: Partial<planner.PlanTaskResponse>): planner.PlanTaskResponse => ({
  accepted: true,
  plan: planToWire(next),
  planVersion: 3,
  events: [],
  diagnostics: { status: 'accepted', failures: [] },
  outputContract: undefined,
  goalCondition: [],
  policies: undefined,
  ...over,
});

const u1 = { userId: 'u1', teamIds: ['t1'] };

describe('flexReplanner', () => {
  it('sends PlanTask as the run owner with the previous plan, its locked nodes and the trigger; returns the new plan', async () => {
    const { c, asked } = client(() => of(response({})));
    const plan = (await flexReplanner(c)(u1, request)) as { nodes: Array<{ id: string }> };
    expect(plan.nodes.map((n) => n.id)).toEqual(['a', 'b']);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ principal: { userId: 'u1', teamIds: ['t1'] }, envelope: { objective: 'x' }, completedNodeIds: ['a'], replanTrigger: { source: 'policy', policyId: 'p' }, maxAttempts: 0, planner: '' });
    expect(asked[0]!.previousPlan).toEqual(planToWire(previous));
  });

  it('a plan the planner does not accept: FAILED_PRECONDITION with its failures as violations', async () => {
    const failures = [
      { constraintId: 'capability.writer.Copy', cause: 'missing_producer', suggestion: 'register a writer' },
      { nodeId: 'b', cause: 'locked_node' },
      {},
    ];
    const { c } = client(() => of(response({ accepted: false, plan: undefined, diagnostics: { status: 'rejected', failures } })));
    await expect(flexReplanner(c)(u1, request)).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: 'the planner did not accept a new plan: capability.writer.Copy: missing_producer: register a writer; b: locked_node; plan: unsatisfied',
      violations: [
        { field: 'capability.writer.Copy', reason: 'missing_producer: register a writer', code: 'plan_rejected' },
        { field: 'b', reason: 'locked_node', code: 'plan_rejected' },
        { field: 'plan', reason: 'unsatisfied', code: 'plan_rejected' },
      ],
    });
    const bare = client(() => of(response({ accepted: false, plan: undefined, diagnostics: undefined })));
    await expect(flexReplanner(bare.c)(u1, request)).rejects.toMatchObject({ code: 'FAILED_PRECONDITION', violations: [{ field: 'plan', reason: 'the planner did not accept a new plan' }] });
  });

  it('the planner unreachable or refusing the request: its error', async () => {
    const { c } = client(() => throwError(() => Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: 14, details: 'No connection established' })));
    await expect(flexReplanner(c)(u1, request)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('without PLANNER_URL the replan fails clearly', async () => {
    await expect(noFlexReplanner(u1, request)).rejects.toMatchObject({ code: 'FAILED_PRECONDITION', message: expect.stringContaining('PLANNER_URL') });
  });
});
