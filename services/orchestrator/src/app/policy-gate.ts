/**
 * hitl gates of runtime policies. A gate is a waiting `node_states` entry
 * (`policy:<firing key>`, never a plan node) announced by a `hitl_request`
 * frame. With an approval service (APPROVAL_URL) the gate is a `policy_hitl`
 * request there, like every other wait for a person: it shows in the
 * approval queue, is decided through the approval routes (or ResumeRun with a
 * decision, which decides the request), and its resolution reaches the gate
 * through the `decided` event or the reconciliation sweep
 * (approval-events.consumer.ts); a request that times out or expires closes
 * the gate as a rejection. Without one, the gate waits inside the
 * orchestrator and ResumeRun records the decision directly.
 */
import { AppError } from '@af/service-kit';
import { decisionOf, type RequestView } from '../domain/human-request.js';
import { isGateId } from '../domain/policy-evaluation.js';
import type { Decision } from '../domain/run-state.js';
import type { PolicyAction } from '../domain/runtime-policy.js';
import type { Frame } from '../infra/run-execution.store.js';
import type { RunRepository } from '../infra/run.repository.js';
import type { ApprovalDecisions } from './approval-decisions.js';
import type { ApprovalService, ApprovalWaits } from './approval-port.js';

type HitlAction = Extract<PolicyAction, { type: 'hitl' }>;

/** The approval service and the waits on it, when one is configured. */
export interface GateHitl {
  approvals: ApprovalService;
  waits: ApprovalWaits;
  /** Back-off before retry n of a create the approval service could not answer (default 500 ms · 2ⁿ⁻¹). */
  retryDelayMs?: (n: number) => number;
}

export interface GateInput {
  policyId: string;
  trigger: string;
  action: HitlAction;
  runContext: string;
  subject?: string;
}

const TRANSIENT = new Set(['UNAVAILABLE', 'DEADLINE_EXCEEDED']);
const OPEN_ATTEMPTS = 4;

const promptOf = (input: GateInput) => input.action.rationale ?? `Runtime policy ${input.policyId} asks for a review before the run goes on`;

/** The `hitl_request` frame that opens gate `gate` (seed §10.0.1 payload: pendingNodeId, operatorPrompt, …; requestId when the approval service holds it). */
export function policyGateRequest(gate: string, input: GateInput, request?: Pick<RequestView, 'id' | 'timeoutAt'>): Frame {
  return {
    type: 'hitl_request',
    payload: {
      pendingNodeId: gate,
      ...(request ? { requestId: request.id } : {}),
      kind: 'policy_gate',
      policyId: input.policyId,
      trigger: input.trigger,
      operatorPrompt: promptOf(input),
      onApprove: input.action.approveAction?.type ?? 'resume',
      onReject: input.action.rejectAction?.type ?? 'fail',
      runContext: input.runContext,
      ...(input.subject ? { subject: input.subject } : {}),
      ...(request?.timeoutAt ? { timeoutAt: request.timeoutAt } : {}),
    },
  };
}

/**
 * Opens (idempotently, keyed `runId:gate`) the `policy_hitl` request behind
 * gate `gate`, retrying while the approval service is unreachable; other
 * errors are thrown. The gate is registered on it once its waiting entry
 * exists (registerPolicyGate).
 */
export async function openPolicyGate(hitl: GateHitl, run: { id: string; userId: string }, gate: string, input: GateInput): Promise<RequestView> {
  const request = {
    ownerUserId: run.userId,
    kind: 'policy_hitl' as const,
    runId: run.id,
    nodeId: gate,
    runContext: input.runContext,
    operatorPrompt: promptOf(input),
    details: {
      policyId: input.policyId,
      trigger: input.trigger,
      ...(input.subject ? { subject: input.subject } : {}),
      // What approving and rejecting do (seed §5.3: approve defaults to resume, reject to fail).
      approveAction: input.action.approveAction ?? { type: 'resume' },
      rejectAction: input.action.rejectAction ?? { type: 'fail' },
    },
    teamIds: [],
    allowTeamDecisions: false,
    assigneeUserIds: [],
    timeoutSeconds: 0,
    autoApprove: false,
    idempotencyKey: `${run.id}:${gate}`,
  };
  for (let n = 1; ; n++) {
    try {
      return await hitl.approvals.create(request);
    } catch (err) {
      if (!(err instanceof AppError) || !TRANSIENT.has(err.code) || n >= OPEN_ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, (hitl.retryDelayMs ?? ((k) => 500 * 2 ** (k - 1)))(n)));
    }
  }
}

/**
 * The waiting gate waits for `request`; a request already resolved (decided
 * before the gate was recorded, or a replay) is recorded on it at once, so
 * the engine closes the gate at its next safe point.
 */
export async function registerPolicyGate(hitl: GateHitl, runId: string, gate: string, request: RequestView): Promise<void> {
  await hitl.waits.register(runId, gate, request.id, request.status === 'pending' ? null : decisionOf(request));
}

/** How a gate's decision closes it: approved, or rejected with the reason a failing follow-up reports. */
export function gateOutcome(gate: string, decision: Decision): { approved: boolean; decidedBy: string; reason: string } {
  if (decision.decision === 'approve') return { approved: true, decidedBy: decision.decidedBy, reason: '' };
  // A request that timed out or expired carries no decision: nobody approved, so the gate is rejected.
  if (!decision.decision && decision.status && decision.status !== 'rejected') {
    const by = decision.decidedBy || 'system';
    return { approved: false, decidedBy: by, reason: `gate ${gate} ${decision.status === 'timed_out' ? 'timed out' : `was closed (${decision.status})`} with no decision` };
  }
  return { approved: false, decidedBy: decision.decidedBy, reason: `the operator (${decision.decidedBy}) rejected gate ${gate}` };
}

/**
 * The policy gate a ResumeRun decision is for: `nodeId` when it names one,
 * or — with no node id — the gate when it is the only thing waiting. Null
 * when the decision is for an approval node.
 */
export async function policyGateFor(repo: Pick<RunRepository, 'waitingStates'>, runId: string, nodeId: string): Promise<string | null> {
  if (nodeId) return isGateId(nodeId) ? nodeId : null;
  const waiting = [...(await repo.waitingStates(runId)).keys()];
  return waiting.length === 1 && isGateId(waiting[0]!) ? waiting[0]! : null;
}

/**
 * Records a decision on a waiting gate. A gate held by the approval service
 * is decided there (FAILED_PRECONDITION when its request is no longer
 * pending, e.g. it timed out) and the resolution applied at once; otherwise
 * the decision is recorded on the gate (the run is queued again when it was
 * parked or paused).
 */
export async function decidePolicyGate(
  repo: Pick<RunRepository, 'resume'>,
  runId: string,
  runStatus: string,
  gate: string,
  decision: { decision: 'approve' | 'reject'; instructions: string; decidedBy: string },
  approvals?: Pick<ApprovalDecisions, 'requestOf' | 'decide'>,
): Promise<void> {
  if (decision.instructions.length > 10_000) throw AppError.invalid('instructions', 'is longer than 10000 characters');
  const requestId = approvals ? await approvals.requestOf(runId, gate) : null;
  if (requestId) {
    await approvals!.decide({ userId: decision.decidedBy, requestId, decision: decision.decision, instructions: decision.instructions, idempotencyKey: '' });
    return;
  }
  const problem = await repo.resume(runId, { nodeId: gate, decision: { ...decision, decidedAt: new Date().toISOString() } });
  if (problem === 'not_resumable') throw new AppError('FAILED_PRECONDITION', `run ${runId} is ${runStatus} and takes no decisions`);
  if (problem === 'node_not_waiting') throw new AppError('FAILED_PRECONDITION', `policy gate ${gate} is not waiting for a decision`);
}
