import { PlanGraphSchema } from '@af/plan';
import { AppError, type Logger } from '@af/service-kit';
import type { RequestView } from '../domain/human-request.js';
import type { Decision, NodeState, PolicyFiring, Run } from '../domain/run-state.js';
import type { ApprovalService, ApprovalWaits, OpenRequest } from './approval-port.js';
import { RunPolicies } from './run-policies.js';

const run: Run = {
  id: '11111111-1111-4111-8111-111111111111',
  userId: 'u1',
  status: 'running',
  runContext: 'background',
  plan: PlanGraphSchema.parse({ nodes: [{ id: 'a', kind: 'tool', action: 'transform_data' }] }),
  planVersion: 1,
  inputs: {},
  error: null,
  createdAt: new Date(),
  updatedAt: new Date(),
  policies: [{ id: 'review', enabled: true, trigger: { kind: 'onNodeComplete' }, action: { type: 'hitl', rationale: 'Check it' } }],
};
const firing: PolicyFiring = { key: 'review@a', policyId: 'review', trigger: { kind: 'onNodeComplete' }, action: { type: 'hitl', rationale: 'Check it' }, status: 'applied', createdAt: new Date() };
const waitingGate = (decision: Decision | null = null): NodeState => ({ nodeId: 'policy:review@a', status: 'waiting', attempt: 1, error: null, startedAt: new Date(), finishedAt: null, decision });

/** RunPolicies.load with its stores in memory: the gate's registered request, and what the approval service answers. */
function setup(opts: { requestId?: string | null; create?: () => Partial<RequestView> | Error } = {}) {
  const created: OpenRequest[] = [];
  const registered: Array<[string, string | null, Decision | null]> = [];
  const warnings: unknown[] = [];
  const approvals = {
    create: async (r: OpenRequest) => {
      created.push(r);
      const a = opts.create?.() ?? {};
      if (a instanceof Error) throw a;
      return { id: 'req-9', kind: r.kind, status: 'pending', ownerUserId: r.ownerUserId, runId: r.runId, nodeId: r.nodeId, timeoutAt: null, resolution: null, ...a };
    },
  } as unknown as ApprovalService;
  const waits = {
    requestOf: async () => opts.requestId ?? null,
    register: async (_run: string, node: string, req: string | null, d: Decision | null) => void registered.push([node, req, d]),
  } as unknown as ApprovalWaits;
  const log = { warn: (...a: unknown[]) => void warnings.push(a), info: () => undefined } as unknown as Logger;
  const policyStore = { firings: async () => [firing] };
  const policies = new RunPolicies({} as never, policyStore as never, {} as never, async () => ({}), 'owner-1', log, { approvals, waits, retryDelayMs: () => 1 });
  return { policies, created, registered, warnings };
}

describe('RunPolicies.load: gates and the approval service', () => {
  it('a waiting gate with no request (the process stopped before registering it) is registered on its request, opened again with the same key', async () => {
    const s = setup();
    const runtime = await s.policies.load(run, new Map([['policy:review@a', waitingGate()]]));
    expect([...runtime.gates]).toEqual(['policy:review@a']);
    expect(s.created).toEqual([expect.objectContaining({ kind: 'policy_hitl', nodeId: 'policy:review@a', operatorPrompt: 'Check it', idempotencyKey: `${run.id}:policy:review@a` })]);
    expect(s.registered).toEqual([['policy:review@a', 'req-9', null]]);
  });

  it('a request decided meanwhile is recorded on the gate at once', async () => {
    const s = setup({ create: () => ({ status: 'rejected', resolution: { decidedBy: 'u1', decidedAt: 't', decision: 'reject' } }) });
    await s.policies.load(run, new Map([['policy:review@a', waitingGate()]]));
    expect(s.registered[0]![2]).toMatchObject({ decision: 'reject', status: 'rejected', requestId: 'req-9' });
  });

  it('leaves gates alone that wait for a request already, or were decided', async () => {
    const registeredGate = setup({ requestId: 'req-1' });
    await registeredGate.policies.load(run, new Map([['policy:review@a', waitingGate()]]));
    const decided = setup();
    await decided.policies.load(run, new Map([['policy:review@a', waitingGate({ decision: 'approve', instructions: '', decidedBy: 'u1', decidedAt: 't' })]]));
    for (const s of [registeredGate, decided]) {
      expect(s.created).toEqual([]);
      expect(s.registered).toEqual([]);
    }
  });

  it('an approval service that refuses (or cannot be reached) leaves the gate waiting — ResumeRun still decides it — and says so', async () => {
    const s = setup({ create: () => new AppError('INVALID_ARGUMENT', 'no') });
    const runtime = await s.policies.load(run, new Map([['policy:review@a', waitingGate()]]));
    expect([...runtime.gates]).toEqual(['policy:review@a']);
    expect(s.registered).toEqual([]);
    expect(s.warnings).toHaveLength(1);
  });
});

describe('RunPolicies.replan: a new plan the deployment cannot run', () => {
  /** RunPolicies with a plan source answering `plan`, its frames and applied firings recorded. */
  function replanSetup(plan: unknown, checks: ConstructorParameters<typeof RunPolicies>[7]) {
    const frames: Array<{ type: string; payload: Record<string, unknown> }> = [];
    const applied: Array<{ key: string; frames: Array<{ type: string; payload: Record<string, unknown> }>; opts: unknown }> = [];
    const store = {
      frames: async (_run: string, _owner: string, f: typeof frames) => void frames.push(...f),
      policyApplied: async (_run: string, _owner: string, key: string, f: typeof frames, opts: unknown) => void applied.push({ key, frames: f, opts }),
    };
    const replanned: unknown[] = [];
    const policyStore = { replan: async (...a: unknown[]) => (replanned.push(a), { kind: 'replanned', change: { cancelChildren: [] } }) };
    const log = { warn: () => undefined, info: () => undefined } as unknown as Logger;
    const policies = new RunPolicies(store as never, policyStore as never, {} as never, async () => plan, 'owner-1', log, undefined, checks);
    return { policies, frames, applied, replanned };
  }
  const replanFiring: PolicyFiring = { key: 'adapt@a', policyId: 'adapt', trigger: { kind: 'onNodeComplete' }, action: { type: 'replan', rationale: 'Adapt' }, status: 'pending', createdAt: new Date() };
  const execution = () => ({ run, states: new Map<string, NodeState>(), outputs: new Map<string, unknown>(), policy: {} as never, started: Date.now() });
  const unavailable = { nodes: [{ id: 'a', kind: 'tool', action: 'transform_data' }, { id: 'graph', kind: 'tool', action: 'analyze_graph', dependsOn: ['a'] }] };

  it('rejects it (plan_rejected naming the node and the action) and pauses the run awaiting a plan; no plan version is written', async () => {
    const violation = { field: 'plan.nodes.graph.action', code: 'action_unavailable', reason: "action 'analyze_graph' is not available in this deployment" };
    const s = replanSetup(unavailable, { checkActions: async () => [violation] });
    expect(await s.policies.replan(execution(), replanFiring)).toBe('paused');
    expect(s.frames.map((f) => f.type)).toEqual(['plan_requested']);
    expect(s.applied).toEqual([
      {
        key: 'adapt@a',
        frames: [
          { type: 'plan_rejected', payload: { policyId: 'adapt', message: expect.stringContaining('analyze_graph'), diagnostics: [violation] } },
          { type: 'log', payload: { event: 'paused', by: 'policy:adapt', reason: 'awaiting_plan' } },
        ],
        opts: { pause: true, status: 'awaiting_plan' },
      },
    ]);
    expect(s.replanned).toEqual([]);
  });

  it('applies a new plan every action of which is served', async () => {
    const s = replanSetup(unavailable, { checkActions: async () => [] });
    expect(await s.policies.replan(execution(), replanFiring)).toBe('replanned');
    expect(s.applied).toEqual([]);
    expect(s.replanned).toHaveLength(1);
  });
});
