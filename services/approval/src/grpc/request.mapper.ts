/** Wire ⇄ domain for the approval service: enums by name, JSON text for outputs, ISO times. */
import { approval } from '@af/contracts';
import { AppError } from '@af/service-kit';
import type { ApprovalRequest, RequestKind, RequestStatus } from '../domain/request.js';

const KIND_PREFIX = 'REQUEST_KIND_';
const STATUS_PREFIX = 'REQUEST_STATUS_';

export function kindToWire(kind: RequestKind): approval.RequestKind {
  return approval.requestKindFromJSON(`${KIND_PREFIX}${kind.toUpperCase()}`);
}

export function statusToWire(status: RequestStatus): approval.RequestStatus {
  return approval.requestStatusFromJSON(`${STATUS_PREFIX}${status.toUpperCase()}`);
}

/** A wire enum → its domain name; `field` names the request field for the error. */
export function kindName(kind: approval.RequestKind, field = 'kind'): string {
  // The enum's reverse mapping: undefined for a number the contract does not know.
  const name = (approval.RequestKind as unknown as Record<number, string | undefined>)[kind];
  if (!name || kind === approval.RequestKind.REQUEST_KIND_UNSPECIFIED) {
    throw AppError.invalid(field, 'must be one of approval_gate, tool_hitl, policy_hitl, human_task, clarify');
  }
  return name.slice(KIND_PREFIX.length).toLowerCase();
}

export function statusName(status: approval.RequestStatus, field = 'statuses'): string {
  const name = (approval.RequestStatus as unknown as Record<number, string | undefined>)[status];
  if (!name || status === approval.RequestStatus.REQUEST_STATUS_UNSPECIFIED) {
    throw AppError.invalid(field, 'must be a request status (pending, approved, rejected, timed_out, expired, declined, submitted, answered)');
  }
  return name.slice(STATUS_PREFIX.length).toLowerCase();
}

export function decisionName(d: approval.Decision): 'approve' | 'reject' | null {
  if (d === approval.Decision.DECISION_APPROVE) return 'approve';
  if (d === approval.Decision.DECISION_REJECT) return 'reject';
  return null;
}

export function toWireRequest(r: ApprovalRequest): approval.Request {
  const res = r.resolution;
  return {
    id: r.id,
    kind: kindToWire(r.kind),
    status: statusToWire(r.status),
    ownerUserId: r.ownerUserId,
    runId: r.runId ?? '',
    nodeId: r.nodeId ?? '',
    runContext: r.runContext,
    operatorPrompt: r.operatorPrompt,
    details: r.details,
    outputSchema: r.outputSchema ?? undefined,
    capabilityId: r.capabilityId ?? '',
    teamIds: r.teamIds,
    allowTeamDecisions: r.allowTeamDecisions,
    assigneeUserIds: r.assigneeUserIds,
    timeoutAt: r.timeoutAt?.toISOString() ?? '',
    notify: r.notify,
    resolution:
      r.status === 'pending'
        ? undefined
        : {
            decidedBy: r.decidedBy ?? '',
            decidedAt: r.decidedAt?.toISOString() ?? '',
            decision: res?.decision ?? '',
            instructions: res?.instructions ?? '',
            intent: res?.intent ?? '',
            effectiveTask: res?.effectiveTask ?? '',
            outputJson: res && 'output' in res ? JSON.stringify(res.output ?? null) : '',
            answer: res?.answer ?? '',
            reasonCode: res?.reasonCode ?? '',
            reason: res?.reason ?? '',
            automatic: res?.automatic ?? false,
          },
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}
