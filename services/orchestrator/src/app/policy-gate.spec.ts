import { AppError } from '@af/service-kit';
import type { RequestView } from '../domain/human-request.js';
import type { Decision } from '../domain/run-state.js';
import type { ApprovalService, ApprovalWaits, OpenRequest } from './approval-port.js';
import { decidePolicyGate, gateOutcome, openPolicyGate, policyGateFor, policyGateRequest, registerPolicyGate, type GateHitl } from './policy-gate.js';

const run = { id: '11111111-1111-4111-8111-111111111111', userId: 'u1' };
const gate = 'policy:review@a';
const input = { policyId: 'review', trigger: 'onNodeComplete', action: { type: 'hitl' as const, rationale: 'Check batch a', approveAction: { type: 'emit' as const, event: 'reviewed' } }, runContext: 'background', subject: 'a' };

function fakeHitl(answers: Array<(r: OpenRequest) => Partial<RequestView> | Error> = []) {
  const created: OpenRequest[] = [];
  const registered: Array<[string, string, string | null, Decision | null]> = [];
  const approvals: ApprovalService = {
    create: async (r) => {
      created.push(r);
      const a = answers[created.length - 1]?.(r) ?? {};
      if (a instanceof Error) throw a;
      return { id: 'req-1', kind: r.kind, status: 'pending', ownerUserId: r.ownerUserId, runId: r.runId, nodeId: r.nodeId, timeoutAt: null, resolution: null, ...a };
    },
    get: async () => {
      throw new Error('not used');
    },
    decide: async () => {
      throw new Error('not used');
    },
  };
  const waits = { register: async (runId: string, nodeId: string, requestId: string | null, d: Decision | null) => void registered.push([runId, nodeId, requestId, d]) } as unknown as ApprovalWaits;
  const hitl: GateHitl = { approvals, waits, retryDelayMs: () => 1 };
  return { hitl, created, registered };
}

describe('openPolicyGate', () => {
  it('opens a policy_hitl request keyed by run and gate, with the prompt and the follow-up actions', async () => {
    const f = fakeHitl();
    const request = await openPolicyGate(f.hitl, run, gate, input);
    expect(request).toMatchObject({ id: 'req-1', status: 'pending' });
    expect(f.created).toEqual([
      {
        ownerUserId: 'u1',
        kind: 'policy_hitl',
        runId: run.id,
        nodeId: gate,
        runContext: 'background',
        operatorPrompt: 'Check batch a',
        details: { policyId: 'review', trigger: 'onNodeComplete', subject: 'a', approveAction: { type: 'emit', event: 'reviewed' }, rejectAction: { type: 'fail' } },
        teamIds: [],
        allowTeamDecisions: false,
        assigneeUserIds: [],
        timeoutSeconds: 0,
        autoApprove: false,
        idempotencyKey: `${run.id}:${gate}`,
      },
    ]);
  });

  it('without a rationale the prompt names the policy; approving defaults to resume', async () => {
    const f = fakeHitl();
    await openPolicyGate(f.hitl, run, gate, { ...input, action: { type: 'hitl' }, subject: undefined as never });
    expect(f.created[0]).toMatchObject({ operatorPrompt: 'Runtime policy review asks for a review before the run goes on', details: { approveAction: { type: 'resume' }, rejectAction: { type: 'fail' } } });
    expect(f.created[0]!.details).not.toHaveProperty('subject');
  });

  it('retries while the approval service is unreachable (same key), and gives up after four tries', async () => {
    const down = () => new AppError('UNAVAILABLE', 'connect ECONNREFUSED');
    const f = fakeHitl([down, down]);
    await expect(openPolicyGate(f.hitl, run, gate, input)).resolves.toMatchObject({ id: 'req-1' });
    expect(f.created.map((r) => r.idempotencyKey)).toEqual([`${run.id}:${gate}`, `${run.id}:${gate}`, `${run.id}:${gate}`]);
    const g = fakeHitl([down, down, down, down, down]);
    await expect(openPolicyGate(g.hitl, run, gate, input)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(g.created).toHaveLength(4);
  });

  it('does not retry a refusal', async () => {
    const f = fakeHitl([() => AppError.invalid('node_id', 'is longer than 500 characters')]);
    await expect(openPolicyGate(f.hitl, run, gate, input)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(f.created).toHaveLength(1);
  });
});

describe('policyGateRequest', () => {
  it('names the request (and its timeout) in the hitl_request frame', () => {
    expect(policyGateRequest(gate, input, { id: 'req-1', timeoutAt: '2026-01-01T00:00:00.000Z' })).toEqual({
      type: 'hitl_request',
      payload: {
        pendingNodeId: gate,
        requestId: 'req-1',
        kind: 'policy_gate',
        policyId: 'review',
        trigger: 'onNodeComplete',
        operatorPrompt: 'Check batch a',
        onApprove: 'emit',
        onReject: 'fail',
        runContext: 'background',
        subject: 'a',
        timeoutAt: '2026-01-01T00:00:00.000Z',
      },
    });
  });

  it('without an approval service the frame has no request', () => {
    expect(policyGateRequest(gate, input).payload).not.toHaveProperty('requestId');
  });
});

describe('registerPolicyGate', () => {
  it('a pending request: the gate waits for it', async () => {
    const f = fakeHitl();
    await registerPolicyGate(f.hitl, run.id, gate, { id: 'req-1', kind: 'policy_hitl', status: 'pending', ownerUserId: 'u1', runId: run.id, nodeId: gate, timeoutAt: null, resolution: null });
    expect(f.registered).toEqual([[run.id, gate, 'req-1', null]]);
  });

  it('a request already resolved (decided before the gate was recorded): its decision is recorded at once', async () => {
    const f = fakeHitl();
    await registerPolicyGate(f.hitl, run.id, gate, {
      id: 'req-1',
      kind: 'policy_hitl',
      status: 'approved',
      ownerUserId: 'u1',
      runId: run.id,
      nodeId: gate,
      timeoutAt: null,
      resolution: { decidedBy: 'u1', decidedAt: '2026-01-01T00:00:00.000Z', decision: 'approve' },
    });
    expect(f.registered[0]![3]).toMatchObject({ decision: 'approve', decidedBy: 'u1', requestId: 'req-1', kind: 'policy_hitl', status: 'approved' });
  });
});

describe('gateOutcome', () => {
  const d = (over: Partial<Decision>): Decision => ({ instructions: '', decidedBy: 'u1', decidedAt: 't', ...over });
  it('approve and reject', () => {
    expect(gateOutcome(gate, d({ decision: 'approve', status: 'approved' }))).toEqual({ approved: true, decidedBy: 'u1', reason: '' });
    expect(gateOutcome(gate, d({ decision: 'reject', status: 'rejected' }))).toEqual({ approved: false, decidedBy: 'u1', reason: 'the operator (u1) rejected gate policy:review@a' });
    // Recorded by ResumeRun without the approval service: a decision and no status.
    expect(gateOutcome(gate, d({ decision: 'reject' })).reason).toBe('the operator (u1) rejected gate policy:review@a');
  });

  it('a request that timed out or expired has no decision: the gate is rejected, saying why', () => {
    expect(gateOutcome(gate, d({ status: 'timed_out', decidedBy: 'system:timeout' }))).toEqual({ approved: false, decidedBy: 'system:timeout', reason: 'gate policy:review@a timed out with no decision' });
    expect(gateOutcome(gate, d({ status: 'expired', decidedBy: '' }))).toEqual({ approved: false, decidedBy: 'system', reason: 'gate policy:review@a was closed (expired) with no decision' });
  });
});

describe('policyGateFor', () => {
  const repo = (ids: string[]) => ({ waitingStates: async () => new Map(ids.map((id) => [id, {}])) }) as never;
  it('a named gate, the only waiting gate, or none', async () => {
    expect(await policyGateFor(repo([]), run.id, gate)).toBe(gate);
    expect(await policyGateFor(repo([]), run.id, 'approve_step')).toBeNull();
    expect(await policyGateFor(repo([gate]), run.id, '')).toBe(gate);
    expect(await policyGateFor(repo([gate, 'other']), run.id, '')).toBeNull();
    expect(await policyGateFor(repo(['approve_step']), run.id, '')).toBeNull();
  });
});

describe('decidePolicyGate', () => {
  const decision = { decision: 'approve' as const, instructions: 'go', decidedBy: 'u1' };
  function setup(requestId: string | null, problem: 'not_resumable' | 'node_not_waiting' | null = null) {
    const resumed: unknown[] = [];
    const decided: unknown[] = [];
    const repo = { resume: async (_id: string, d: unknown) => (resumed.push(d), problem) };
    const approvals = { requestOf: async () => requestId, decide: async (i: unknown) => void decided.push(i) };
    return { repo, approvals, resumed, decided };
  }

  it('a gate held by the approval service is decided there', async () => {
    const s = setup('req-1');
    await decidePolicyGate(s.repo, run.id, 'waiting', gate, decision, s.approvals);
    expect(s.decided).toEqual([{ userId: 'u1', requestId: 'req-1', decision: 'approve', instructions: 'go', idempotencyKey: '' }]);
    expect(s.resumed).toEqual([]);
  });

  it('a late decision (the request is no longer pending) is refused by the service', async () => {
    const s = setup('req-1');
    s.approvals.decide = async () => {
      throw new AppError('FAILED_PRECONDITION', 'request req-1 is timed_out');
    };
    await expect(decidePolicyGate(s.repo, run.id, 'waiting', gate, decision, s.approvals)).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
  });

  it('a gate without a request (no approval service, or an old gate) is decided on the run', async () => {
    for (const approvals of [undefined, setup(null).approvals]) {
      const s = setup(null);
      await decidePolicyGate(s.repo, run.id, 'waiting', gate, decision, approvals);
      expect(s.resumed).toEqual([{ nodeId: gate, decision: { ...decision, decidedAt: expect.any(String) } }]);
    }
  });

  it('refuses long instructions, finished runs and gates that do not wait', async () => {
    const s = setup('req-1');
    await expect(decidePolicyGate(s.repo, run.id, 'waiting', gate, { ...decision, instructions: 'x'.repeat(10_001) }, s.approvals)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      violations: [{ field: 'instructions' }],
    });
    expect(s.decided).toEqual([]);
    await expect(decidePolicyGate(setup(null, 'not_resumable').repo, run.id, 'completed', gate, decision)).rejects.toThrow(`run ${run.id} is completed and takes no decisions`);
    await expect(decidePolicyGate(setup(null, 'node_not_waiting').repo, run.id, 'waiting', gate, decision)).rejects.toThrow('policy gate policy:review@a is not waiting for a decision');
  });
});
