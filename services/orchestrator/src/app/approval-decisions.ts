/**
 * ResumeRun with a decision on an approval node that waits on the approval
 * service: the decision is recorded there (who and when, FAILED_PRECONDITION
 * if the request is no longer pending — e.g. it timed out), then applied to
 * the node at once, so the response already shows it (the `decided` event
 * that follows finds it applied).
 */
import type { ApprovalService, ApprovalWaits } from './approval-port.js';

export class ApprovalDecisions {
  constructor(
    private readonly approvals: ApprovalService,
    private readonly waits: ApprovalWaits,
  ) {}

  /** The request the waiting node waits for; null for waits recorded before the approval service. */
  requestOf(runId: string, nodeId: string): Promise<string | null> {
    return this.waits.requestOf(runId, nodeId);
  }

  async decide(input: { userId: string; requestId: string; decision: 'approve' | 'reject'; instructions: string; idempotencyKey: string }): Promise<void> {
    const request = await this.approvals.decide(input.userId, input.requestId, input.decision, input.instructions, input.idempotencyKey);
    await this.waits.apply(request);
  }
}
