/** The approval service over gRPC, as the orchestrator's ApprovalService port. */
import { approval } from '@af/contracts';
import { AppError, call, createGrpcClient, type PrincipalSigner } from '@af/service-kit';
import type { ApprovalService, OpenRequest } from '../app/approval-port.js';
import type { RequestKind, RequestView } from '../domain/human-request.js';

const KIND: Record<RequestKind, approval.RequestKind> = {
  approval_gate: approval.RequestKind.REQUEST_KIND_APPROVAL_GATE,
  tool_hitl: approval.RequestKind.REQUEST_KIND_TOOL_HITL,
  policy_hitl: approval.RequestKind.REQUEST_KIND_POLICY_HITL,
  human_task: approval.RequestKind.REQUEST_KIND_HUMAN_TASK,
  clarify: approval.RequestKind.REQUEST_KIND_CLARIFY,
};

/** A wire request → the orchestrator's view; the output travels as JSON text. */
export function requestView(r: approval.Request): RequestView {
  const kind = (Object.keys(KIND) as RequestKind[]).find((k) => KIND[k] === r.kind);
  if (!kind) throw new AppError('INTERNAL', `the approval service answered with an unknown request kind ${r.kind}`);
  const status = (approval.RequestStatus[r.status] ?? 'REQUEST_STATUS_UNSPECIFIED').replace('REQUEST_STATUS_', '').toLowerCase();
  const res = r.resolution;
  return {
    id: r.id,
    kind,
    status,
    ownerUserId: r.ownerUserId,
    runId: r.runId,
    nodeId: r.nodeId,
    timeoutAt: r.timeoutAt || null,
    resolution: res
      ? {
          decidedBy: res.decidedBy,
          decidedAt: res.decidedAt,
          ...(res.decision === 'approve' || res.decision === 'reject' ? { decision: res.decision } : {}),
          ...(res.instructions ? { instructions: res.instructions } : {}),
          ...(res.intent === 'enhance' || res.intent === 'override' ? { intent: res.intent } : {}),
          ...(res.effectiveTask ? { effectiveTask: res.effectiveTask } : {}),
          ...(res.outputJson ? { output: JSON.parse(res.outputJson) as unknown } : {}),
          ...(res.answer ? { answer: res.answer } : {}),
          ...(res.reasonCode ? { reasonCode: res.reasonCode } : {}),
          ...(res.reason ? { reason: res.reason } : {}),
          ...(res.automatic ? { automatic: true } : {}),
        }
      : null,
  };
}

export function approvalClient(address: string, auth: PrincipalSigner): ApprovalService {
  const client = createGrpcClient<approval.ApprovalServiceClient>('approval', approval.APPROVAL_SERVICE_NAME, address, { auth });
  const principal = (userId: string) => ({ userId, teamIds: [] });
  return {
    async create(r: OpenRequest) {
      const { request } = await call(
        client.createRequest({
          principal: principal(r.ownerUserId),
          kind: KIND[r.kind],
          runId: r.runId,
          nodeId: r.nodeId,
          runContext: r.runContext,
          operatorPrompt: r.operatorPrompt,
          details: r.details,
          outputSchema: r.outputSchema,
          capabilityId: r.capabilityId ?? '',
          teamIds: r.teamIds,
          allowTeamDecisions: r.allowTeamDecisions,
          assigneeUserIds: r.assigneeUserIds,
          timeoutSeconds: r.timeoutSeconds,
          autoApprove: r.autoApprove,
          idempotencyKey: r.idempotencyKey,
        }),
      );
      return requestView(request!);
    },
    async get(userId, requestId) {
      return requestView((await call(client.getRequest({ principal: principal(userId), requestId }))).request!);
    },
    async decide(userId, requestId, decision, instructions, idempotencyKey) {
      const { request } = await call(
        client.decide({
          principal: principal(userId),
          requestId,
          decision: decision === 'approve' ? approval.Decision.DECISION_APPROVE : approval.Decision.DECISION_REJECT,
          instructions,
          reason: '',
          idempotencyKey,
        }),
      );
      return requestView(request!);
    },
  };
}

/** Without APPROVAL_URL: nodes that need a person fail clearly instead of waiting forever. */
export const noApprovalService: ApprovalService = {
  create: async (r) => {
    throw new AppError('FAILED_PRECONDITION', `node ${r.nodeId} waits for a person, and no approval service is configured (set APPROVAL_URL)`, { retryable: false });
  },
  get: async () => {
    throw new AppError('FAILED_PRECONDITION', 'no approval service is configured (set APPROVAL_URL)', { retryable: false });
  },
  decide: async () => {
    throw new AppError('FAILED_PRECONDITION', 'no approval service is configured (set APPROVAL_URL)', { retryable: false });
  },
};
