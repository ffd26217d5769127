/**
 * `approval` and `delay` nodes: both wait, durably. An approval emits a
 * `hitl_request` frame (seed frame) and waits for ResumeRun with a decision,
 * or auto-skips after its timeout; `approval_policy: auto_approve` passes it
 * at once with a recorded automatic decision. A delay waits for its timer.
 */
import { AppError } from '@af/service-kit';
import type { NodeExecutor } from '../../domain/node-executor.js';
import { approvalTimeoutMs, delayUntil, WaitFor } from '../../domain/waiting.js';

const DEFAULT_PREVIEW_LIMIT = 10;

export const approvalExecutor: NodeExecutor = async (ctx) => {
  if (ctx.run.approvalPolicy === 'auto_approve') {
    return { approved: true, decision: 'approve', instructions: '', decided_by: 'policy:auto_approve', decided_at: new Date().toISOString() };
  }
  const timeoutMs = approvalTimeoutMs(ctx.params);
  const until = timeoutMs === null ? null : new Date(Date.now() + timeoutMs);
  return new WaitFor(until, {
    type: 'hitl_request',
    payload: {
      pendingNodeId: ctx.node.id,
      kind: 'approval_gate',
      operatorPrompt: typeof ctx.inputs.prompt === 'string' ? ctx.inputs.prompt : `Approve step ${ctx.node.id}?`,
      preview: limitPreview(ctx.inputs.preview, ctx.params.preview_limit),
      onReject: ctx.params.on_reject === 'skip' ? 'skip' : 'stop',
      runContext: ctx.run.runContext,
      ...(until ? { timeoutAt: until.toISOString() } : {}),
    },
  });
};

export const delayExecutor: NodeExecutor = async (ctx) => {
  const until = delayUntil(ctx.params, new Date());
  if (typeof until === 'string') {
    throw new AppError('INVALID_ARGUMENT', `node ${ctx.node.id}: ${until}`, { violations: [{ field: 'params', reason: until }], retryable: false });
  }
  return new WaitFor(until);
};

/** At most `limit` items of the preview (record sets are cut by their `results`). */
function limitPreview(preview: unknown, limitParam: unknown): unknown {
  const limit = typeof limitParam === 'number' && limitParam >= 0 ? limitParam : DEFAULT_PREVIEW_LIMIT;
  if (Array.isArray(preview)) return preview.slice(0, limit);
  if (preview && typeof preview === 'object') {
    const p = preview as Record<string, unknown>;
    for (const key of ['results', 'data']) {
      if (Array.isArray(p[key])) return { ...p, [key]: (p[key] as unknown[]).slice(0, limit) };
    }
  }
  return preview ?? null;
}
