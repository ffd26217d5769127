/**
 * Approval requests as the SPA sees them: snake_case with the seed's queue
 * names (`step_name`, `prompt`, `preview_data`, `responded_at`) on the
 * agent-factory routes; camelCase (the flex spec's names) on /api/v1/flex.
 */
import { approval } from '@af/contracts';
import type { z } from 'zod';
import type * as R from './responses/index.js';

const name = (e: Record<number, string | undefined>, v: number, prefix: string) => (e[v] ?? `${prefix}UNSPECIFIED`).replace(prefix, '').toLowerCase();

export const kindOf = (r: approval.Request) => name(approval.RequestKind as never, r.kind, 'REQUEST_KIND_') as z.infer<typeof R.Approval>['kind'];
export const statusOf = (r: approval.Request) => name(approval.RequestStatus as never, r.status, 'REQUEST_STATUS_') as z.infer<typeof R.Approval>['status'];

function resolutionFields(r: approval.Request) {
  const res = r.resolution;
  return {
    decided_by: res?.decidedBy || null,
    decided_at: res?.decidedAt || null,
    decision: res?.decision || null,
    // Deprecated for a reject: `instructions` also repeats the reject's reason (read `reason`).
    instructions: res?.instructions || (res?.decision === 'reject' ? res.reason : '') || null,
    intent: res?.intent || null,
    effective_task: res?.effectiveTask || null,
    output: res?.outputJson ? (JSON.parse(res.outputJson) as unknown) : null,
    answer: res?.answer || null,
    reason_code: res?.reasonCode || null,
    reason: res?.reason || null,
    automatic: res?.automatic ?? false,
  };
}

export function approvalView(r: approval.Request): z.infer<typeof R.Approval> {
  const details = r.details ?? {};
  const res = resolutionFields(r);
  return {
    id: r.id,
    kind: kindOf(r),
    status: statusOf(r),
    run_id: r.runId || null,
    execution_id: r.runId || null,
    node_id: r.nodeId || null,
    step_name: r.nodeId || null,
    run_context: r.runContext,
    prompt: r.operatorPrompt,
    preview_data: details.preview ?? null,
    details,
    capability_id: r.capabilityId || null,
    output_schema: r.outputSchema ?? null,
    timeout_at: r.timeoutAt || null,
    notify: r.notify,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    responded_at: res.decided_at,
    ...res,
  };
}

export function flexRequestView(r: approval.Request): z.infer<typeof R.FlexRequest> {
  const details = r.details ?? {};
  const res = r.resolution;
  return {
    requestId: r.id,
    ...(kindOf(r) === 'human_task' ? { taskId: r.id } : {}),
    kind: kindOf(r),
    status: statusOf(r),
    runId: r.runId || null,
    pendingNodeId: r.nodeId || null,
    capabilityId: r.capabilityId || null,
    operatorPrompt: r.operatorPrompt,
    contractSummary: details.contract_summary ?? null,
    outputSchema: r.outputSchema ?? null,
    dueAt: r.timeoutAt || null,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    resolution: res
      ? {
          decidedBy: res.decidedBy,
          decidedAt: res.decidedAt,
          ...(res.decision ? { decision: res.decision } : {}),
          ...(res.instructions ? { instructions: res.instructions } : {}),
          ...(res.outputJson ? { output: JSON.parse(res.outputJson) as unknown } : {}),
          ...(res.answer ? { answer: res.answer } : {}),
          ...(res.reasonCode ? { reasonCode: res.reasonCode } : {}),
          ...(res.reason ? { reason: res.reason } : {}),
        }
      : null,
  };
}
