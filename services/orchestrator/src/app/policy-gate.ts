/**
 * hitl gates of runtime policies. A gate uses the orchestrator's own waiting
 * mechanism for approvals: a waiting `node_states` entry (`policy:<firing
 * key>`, never a plan node) announced by a `hitl_request` frame, decided by
 * ResumeRun with a decision, which parks and wakes the run like an approval
 * node. These functions are the one place to redirect when approvals move to
 * the approval service.
 */
import { AppError } from '@af/service-kit';
import { isGateId } from '../domain/policy-evaluation.js';
import type { Decision } from '../domain/run-state.js';
import type { PolicyAction } from '../domain/runtime-policy.js';
import type { Frame } from '../infra/run-execution.store.js';
import type { RunRepository } from '../infra/run.repository.js';

/** The `hitl_request` frame that opens gate `gate` (seed §10.0.1 payload: pendingNodeId, operatorPrompt, …). */
export function policyGateRequest(
  gate: string,
  input: { policyId: string; trigger: string; action: Extract<PolicyAction, { type: 'hitl' }>; runContext: string; subject?: string },
): Frame {
  return {
    type: 'hitl_request',
    payload: {
      pendingNodeId: gate,
      kind: 'policy_gate',
      policyId: input.policyId,
      trigger: input.trigger,
      operatorPrompt: input.action.rationale ?? `Runtime policy ${input.policyId} asks for a review before the run goes on`,
      onApprove: input.action.approveAction?.type ?? 'resume',
      onReject: input.action.rejectAction?.type ?? 'fail',
      runContext: input.runContext,
      ...(input.subject ? { subject: input.subject } : {}),
    },
  };
}

/**
 * The policy gate a ResumeRun decision is for: `nodeId` when it names one,
 * or — with no node id — the gate when it is the only thing waiting. Null
 * when the decision is for an approval node.
 */
export async function policyGateFor(repo: RunRepository, runId: string, nodeId: string): Promise<string | null> {
  if (nodeId) return isGateId(nodeId) ? nodeId : null;
  const waiting = [...(await repo.waitingStates(runId)).keys()];
  return waiting.length === 1 && isGateId(waiting[0]!) ? waiting[0]! : null;
}

/** Records a decision on a waiting gate (the run is queued again when it was parked or paused). */
export async function decidePolicyGate(
  repo: RunRepository,
  runId: string,
  runStatus: string,
  gate: string,
  decision: { decision: Decision['decision']; instructions: string; decidedBy: string },
): Promise<void> {
  if (decision.instructions.length > 10_000) throw AppError.invalid('instructions', 'is longer than 10000 characters');
  const problem = await repo.resume(runId, { nodeId: gate, decision: { ...decision, decidedAt: new Date().toISOString() } });
  if (problem === 'not_resumable') throw new AppError('FAILED_PRECONDITION', `run ${runId} is ${runStatus} and takes no decisions`);
  if (problem === 'node_not_waiting') throw new AppError('FAILED_PRECONDITION', `policy gate ${gate} is not waiting for a decision`);
}
