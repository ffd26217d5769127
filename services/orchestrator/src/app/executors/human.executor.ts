/**
 * `human` nodes (flex spec §15: a capability with `agentType: "human"`): the
 * node contract is the task. It becomes a `human_task` request in the
 * approval service — instruction, input/output facets and schemas, the
 * resolved inputs — routed to the run's owner, `params.assignees` (holders
 * of the capability) and, with `allow_team_decisions`, `params.team_ids`.
 * The node waits until the task is submitted (the service validates the
 * output against `outputSchema` first; the output becomes the node's), then
 * completes; a decline fails the run (`params.on_decline: skip` skips the
 * node instead); a missed SLA (`timeout_seconds`, default
 * FLEX_HUMAN_ASSIGNMENT_TIMEOUT_SECONDS of the approval service) fails it.
 * Per §15.3 no HITL frame is emitted: a `log` frame `awaiting_human` carries
 * the contract for operator UIs.
 */
import { AppError } from '@af/service-kit';
import { audience, contractSummary, timeoutSeconds } from '../../domain/human-request.js';
import type { NodeExecutor } from '../../domain/node-executor.js';
import { openRequest, waitOn, type HitlDeps } from './waiting.executors.js';

const MAX_TASK_INPUT_BYTES = 128 * 1024;

export function humanExecutor(deps: HitlDeps): NodeExecutor {
  return async (ctx) => {
    const node = ctx.node;
    if (!node.outputSchema) {
      throw new AppError('INVALID_ARGUMENT', `node ${node.id}: a human node needs an outputSchema (the JSON Schema the submitted output must satisfy)`, {
        violations: [{ field: 'outputSchema', reason: 'is required for human nodes' }],
        retryable: false,
      });
    }
    const instruction = typeof ctx.params.instruction === 'string' && ctx.params.instruction ? ctx.params.instruction : (node.description ?? `Complete the task of node ${node.id}`);
    // The task shows its inputs unless they are too large to keep with the request.
    const inputBytes = Buffer.byteLength(JSON.stringify(ctx.inputs));
    const inputs = inputBytes > MAX_TASK_INPUT_BYTES ? { truncated: true, bytes: inputBytes } : ctx.inputs;
    const summary = contractSummary(node, { instruction, inputs });
    const capabilityId = node.capabilityId ?? (typeof ctx.params.capability_id === 'string' ? ctx.params.capability_id : undefined);
    const request = await openRequest(ctx, deps, {
      ownerUserId: ctx.userId,
      kind: 'human_task',
      runId: ctx.runId,
      nodeId: ctx.instanceId,
      runContext: ctx.run.runContext,
      operatorPrompt: instruction,
      details: { contract_summary: summary, executor_type: 'human', on_decline: ctx.params.on_decline === 'skip' ? 'skip' : 'fail_run' },
      outputSchema: node.outputSchema,
      ...(capabilityId ? { capabilityId } : {}),
      ...audience(ctx.params),
      timeoutSeconds: timeoutSeconds(ctx.params),
      autoApprove: false,
      idempotencyKey: ctx.idempotencyKey,
    });
    const frame = {
      type: 'log',
      payload: {
        event: 'awaiting_human',
        executorType: 'human',
        taskId: request.id,
        pendingNodeId: ctx.instanceId,
        ...(capabilityId ? { capabilityId } : {}),
        operatorPrompt: instruction,
        contractSummary: summary,
        ...(request.timeoutAt ? { dueAt: request.timeoutAt } : {}),
      },
    };
    return waitOn(ctx, deps, request, frame);
  };
}
