import { PlanGraphSchema, planToWire } from '@af/plan';
import { approval, type planner } from '@af/contracts';
import { approvalView, flexRequestView } from './approval.views.js';
import { planResultView } from './flex.views.js';

/** A flex plan as the planner answers it: a PlanGraph whose enums are protobuf numbers. */
function planned(): planner.PlanTaskResponse {
  const plan = PlanGraphSchema.parse({
    irVersion: 1,
    version: 1,
    id: 'flex-plan',
    name: 'Flex plan',
    provenance: { frontEnd: 'planner' },
    executionMode: 'deterministic',
    runContext: 'interactive',
    approvalPolicy: 'auto_approve',
    inputs: [],
    nodes: [
      { id: 'draft', kind: 'capability', capabilityId: 'Writer.v1', inputs: {}, errorPolicy: { onError: 'retry', retry: { maxRetries: 2 } } },
      { id: 'check', kind: 'route', dependsOn: ['draft'], routes: [{ condition: 'draft.ok == true', conditionDialect: 'dsl', to: ['done'] }] },
      { id: 'done', kind: 'transform', action: 'transform_data', dependsOn: ['check'], condition: 'true', conditionDialect: 'dsl' },
    ],
  });
  return {
    accepted: true,
    plan: JSON.parse(JSON.stringify(planToWire(plan))) as planner.PlanTaskResponse['plan'],
    planVersion: 1,
    events: [{ type: 'plan_generated', payload: { planVersion: 1 } }],
    diagnostics: { status: 'ok' },
    outputContract: undefined,
    goalCondition: [],
    policies: undefined,
  };
}

/** Every number found at a key, anywhere in `value`. */
function numbersAt(value: unknown, keys: string[]): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (keys.includes(k) && typeof x === 'number') out.push([k, x]);
      walk(x);
    }
  };
  walk(value);
  return out;
}

describe('POST /api/v1/flex/plan response', () => {
  it('the wire plan it starts from carries enums as numbers', () => {
    const wire = planned().plan as unknown as Record<string, any>;
    expect(typeof wire.runContext).toBe('number');
    expect(typeof wire.nodes[0].kind).toBe('number');
  });

  it('names every enum of the plan instead of its protobuf number', () => {
    const view = planResultView(planned());
    const plan = view.plan as Record<string, any>;
    expect(plan).toMatchObject({ executionMode: 'deterministic', runContext: 'interactive', approvalPolicy: 'auto_approve', provenance: { frontEnd: 'planner' } });
    expect(plan.nodes.map((n: { kind: string }) => n.kind)).toEqual(['capability', 'route', 'transform']);
    expect(plan.nodes[0].errorPolicy.onError).toBe('retry');
    expect(plan.nodes[1].routes[0].conditionDialect).toBe('dsl');
    expect(plan.nodes[2].conditionDialect).toBe('dsl');
    expect(numbersAt(view, ['kind', 'executionMode', 'runContext', 'approvalPolicy', 'frontEnd', 'onError', 'conditionDialect'])).toEqual([]);
  });

  it('keeps the rest of the answer and a refused plan as null', () => {
    const ok = planResultView(planned());
    expect(ok).toMatchObject({ accepted: true, planVersion: 1, events: [{ type: 'plan_generated', payload: { planVersion: 1 } }], diagnostics: { status: 'ok' } });
    expect(PlanGraphSchema.safeParse(ok.plan).success).toBe(true);
    const refused = planResultView({ ...planned(), accepted: false, plan: undefined, planVersion: 0, diagnostics: undefined });
    expect(refused).toEqual({ accepted: false, planVersion: 0, plan: null, events: [{ type: 'plan_generated', payload: { planVersion: 1 } }], diagnostics: {} });
  });
});

describe('/api/v1/flex tasks and HITL answers', () => {
  it('name the request kind and status, never their protobuf numbers', () => {
    const request = { ...approval.Request.fromJSON({}), id: 'req-1', kind: approval.RequestKind.REQUEST_KIND_HUMAN_TASK, status: approval.RequestStatus.REQUEST_STATUS_TIMED_OUT, runId: 'run-1', nodeId: 'review' };
    expect(flexRequestView(request)).toMatchObject({ requestId: 'req-1', taskId: 'req-1', kind: 'human_task', status: 'timed_out', pendingNodeId: 'review' });
    const gate = { ...approval.Request.fromJSON({}), id: 'req-2', kind: approval.RequestKind.REQUEST_KIND_APPROVAL_GATE, status: approval.RequestStatus.REQUEST_STATUS_PENDING };
    expect(flexRequestView(gate)).toMatchObject({ kind: 'approval_gate', status: 'pending' });
    expect(flexRequestView(gate)).not.toHaveProperty('taskId');
  });
});

describe('a rejection\'s reason in responses', () => {
  const rejected = (resolution: Partial<approval.Resolution>) => ({
    ...approval.Request.fromJSON({}),
    id: 'req-3',
    kind: approval.RequestKind.REQUEST_KIND_APPROVAL_GATE,
    status: approval.RequestStatus.REQUEST_STATUS_REJECTED,
    resolution: { ...approval.Resolution.fromJSON({}), decidedBy: 'u1', decidedAt: '2026-11-27T00:00:00.000Z', decision: 'reject', ...resolution },
  });

  it('flex answers it as resolution.reason', () => {
    expect(flexRequestView(rejected({ reason: 'numbers look wrong' })).resolution).toEqual({ decidedBy: 'u1', decidedAt: '2026-11-27T00:00:00.000Z', decision: 'reject', reason: 'numbers look wrong' });
    expect(flexRequestView(rejected({})).resolution).not.toHaveProperty('reason');
  });

  it('the approval queue answers it as reason; instructions repeats it only for a reject without instructions (deprecated)', () => {
    expect(approvalView(rejected({ reason: 'numbers look wrong' }))).toMatchObject({ status: 'rejected', reason: 'numbers look wrong', instructions: 'numbers look wrong' });
    expect(approvalView(rejected({ reason: 'numbers', instructions: 'redo it' }))).toMatchObject({ reason: 'numbers', instructions: 'redo it' });
    expect(approvalView(rejected({}))).toMatchObject({ reason: null, instructions: null });
    const approved = { ...rejected({ decision: 'approve', reason: 'stale' }), status: approval.RequestStatus.REQUEST_STATUS_APPROVED };
    expect(approvalView(approved)).toMatchObject({ instructions: null });
  });
});
