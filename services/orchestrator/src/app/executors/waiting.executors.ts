/**
 * Nodes that wait, durably. `approval` nodes open a request in the approval
 * service (idempotently, keyed `runId:nodeId:attempt`), emit a `hitl_request`
 * frame and wait until the request is resolved — the service publishes
 * `af.approval.<id>.decided`, which records the resolution on the node and
 * wakes the run (approval-events.consumer.ts). The service owns the timeout
 * (`timeout_minutes` / `timeout_seconds`); `approval_policy: auto_approve`
 * records an automatic approval there and passes at once. A tool HITL gate
 * of a run started with the `non_streaming` option is skipped
 * (`hitl_skipped_non_streaming`) without asking anyone. A `delay` waits for
 * its own timer.
 */
import { AppError } from '@af/service-kit';
import {
  approvalKind,
  audience,
  contractSummary,
  decisionOf,
  hitlRequestPayload,
  NON_STREAMING,
  timeoutSeconds,
  type RequestView,
} from '../../domain/human-request.js';
import type { NodeContext, NodeExecutor } from '../../domain/node-executor.js';
import { delayUntil, resolveWaiting, WaitFor } from '../../domain/waiting.js';
import type { ApprovalService, ApprovalWaits, OpenRequest } from '../approval-port.js';

const DEFAULT_PREVIEW_LIMIT = 10;

export interface HitlDeps {
  approvals: ApprovalService;
  waits: ApprovalWaits;
  /** Back-off before retry n of a call the approval service could not answer (default 500 ms · 2ⁿ). */
  retryDelayMs?: (n: number) => number;
}

const TRANSIENT = new Set(['UNAVAILABLE', 'DEADLINE_EXCEEDED']);
const OPEN_ATTEMPTS = 4;

/**
 * Opens a request, retrying while the approval service is unreachable (a
 * restart, a rolling update): CreateRequest is idempotent by key, so a retry
 * never opens a second request. Other errors, and the run stopping, end it.
 */
export async function openRequest(ctx: NodeContext, deps: HitlDeps, r: OpenRequest): Promise<RequestView> {
  for (let n = 1; ; n++) {
    try {
      return await deps.approvals.create(r);
    } catch (err) {
      if (!(err instanceof AppError) || !TRANSIENT.has(err.code) || n >= OPEN_ATTEMPTS || ctx.signal.aborted) throw err;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, (deps.retryDelayMs ?? ((k) => 500 * 2 ** (k - 1)))(n));
        ctx.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
      });
    }
  }
}

export function approvalExecutor(deps: HitlDeps): NodeExecutor {
  return async (ctx) => {
    const kind = approvalKind(ctx.node);
    if (kind === 'tool_hitl' && (await deps.waits.runOptions(ctx.runId)).non_streaming === true) {
      // Seed multi-agent-rag "Non-Streaming Endpoint Behavior": nobody can be asked, so the gated agent is skipped.
      const at = new Date().toISOString();
      await deps.waits.register(ctx.runId, ctx.instanceId, null, { instructions: '', decidedBy: 'policy:non_streaming', decidedAt: at, kind: 'non_streaming', status: 'skipped', reasonCode: NON_STREAMING });
      return new WaitFor(null, { type: 'log', payload: { event: NON_STREAMING, pendingNodeId: ctx.instanceId } });
    }
    const onReject = ctx.params.on_reject === 'skip' ? 'skip' : 'stop';
    const p = ctx.params;
    const toolNames = Array.isArray(p.tool_names) ? p.tool_names : [];
    const task = typeof ctx.inputs.task === 'string' ? ctx.inputs.task : '';
    const prompt =
      typeof ctx.inputs.prompt === 'string'
        ? ctx.inputs.prompt
        : kind === 'tool_hitl'
          ? `${String(p.agent_name ?? p.agent_id ?? ctx.node.id)} wants to use ${toolNames.join(', ') || 'tools that need approval'}. Approve?`
          : `Approve step ${ctx.instanceId}?`;
    const extra =
      kind === 'tool_hitl'
        ? { agentId: p.agent_id ?? null, agentName: p.agent_name ?? null, toolNames, taskDescription: task, onReject }
        : { preview: limitPreview(ctx.inputs.preview, p.preview_limit), onReject };
    const details =
      kind === 'tool_hitl'
        ? { agent_id: p.agent_id ?? null, agent_name: p.agent_name ?? null, tool_names: toolNames, task_description: task, on_reject: onReject }
        : { preview: extra.preview ?? null, preview_from: p.preview_from ?? null, preview_limit: p.preview_limit ?? DEFAULT_PREVIEW_LIMIT, on_reject: onReject };
    const request = await openRequest(ctx, deps, {
      ownerUserId: ctx.userId,
      kind,
      runId: ctx.runId,
      nodeId: ctx.instanceId,
      runContext: ctx.run.runContext,
      operatorPrompt: prompt,
      details,
      ...audience(p),
      timeoutSeconds: timeoutSeconds(p),
      autoApprove: ctx.run.approvalPolicy === 'auto_approve',
      idempotencyKey: ctx.idempotencyKey,
    });
    const frame = {
      type: 'hitl_request',
      payload: hitlRequestPayload({ request, nodeId: ctx.instanceId, operatorPrompt: prompt, contractSummary: contractSummary(ctx.node), runContext: ctx.run.runContext, extra }),
    };
    return waitOn(ctx, deps, request, frame);
  };
}

/**
 * Wait for `request`: pending → the node waits (with its frame); already
 * resolved (an automatic approval, or a replay after a decision) → an
 * approval completes at once, anything else is recorded on the node and
 * settled by the engine at its next look.
 */
export async function waitOn(ctx: NodeContext, deps: HitlDeps, request: RequestView, frame: { type: string; payload: Record<string, unknown> } | null): Promise<unknown> {
  if (request.status === 'pending') {
    await deps.waits.register(ctx.runId, ctx.instanceId, request.id, null);
    return new WaitFor(null, frame);
  }
  const decision = decisionOf(request);
  const now = new Date();
  const outcome = resolveWaiting(ctx.node, { nodeId: ctx.instanceId, status: 'waiting', attempt: ctx.attempt, error: null, startedAt: now, finishedAt: null, decision }, now);
  if (outcome?.kind === 'complete') return outcome.output;
  await deps.waits.register(ctx.runId, ctx.instanceId, request.id, decision);
  return new WaitFor(null, null);
}

export const delayExecutor: NodeExecutor = async (ctx) => {
  const until = delayUntil(ctx.params, new Date());
  if (typeof until === 'string') {
    throw new AppError('INVALID_ARGUMENT', `node ${ctx.node.id}: ${until}`, { violations: [{ field: 'params', reason: until }], retryable: false });
  }
  return new WaitFor(until);
};

/** A preview larger than this (as JSON) is replaced by a note: the request must stay small enough to store and send. */
export const MAX_PREVIEW_BYTES = 64 * 1024;

/** At most `limit` items of the preview (record sets are cut by their `results` / `data`), and at most MAX_PREVIEW_BYTES. */
export function limitPreview(preview: unknown, limitParam: unknown): unknown {
  const limit = typeof limitParam === 'number' && limitParam >= 0 ? limitParam : DEFAULT_PREVIEW_LIMIT;
  let cut: unknown = preview ?? null;
  if (Array.isArray(preview)) cut = preview.slice(0, limit);
  else if (preview && typeof preview === 'object') {
    const p = preview as Record<string, unknown>;
    const key = ['results', 'data'].find((k) => Array.isArray(p[k]));
    if (key) cut = { ...p, [key]: (p[key] as unknown[]).slice(0, limit) };
  }
  const bytes = Buffer.byteLength(JSON.stringify(cut) ?? 'null');
  return bytes > MAX_PREVIEW_BYTES ? { truncated: true, bytes, note: `the preview is larger than ${MAX_PREVIEW_BYTES} bytes; see the step's output` } : cut;
}
