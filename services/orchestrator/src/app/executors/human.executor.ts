/**
 * `human` nodes (flex spec §15: a capability with `agentType: "human"`): the
 * node contract is the task. It becomes a `human_task` request in the
 * approval service — instruction, input/output facets and schemas, the
 * resolved inputs — routed to the run's owner, the capability's holders
 * and, with `allow_team_decisions`, `params.team_ids`. The holders are
 * `params.assignees` together with the user ids the capability's
 * registration names in `assignmentDefaults.assignees` (flex spec §15.10),
 * read from the planner's registry when the task opens: a capability that
 * was never registered has no registered holders; a registry that cannot
 * answer fails the node UNAVAILABLE (retryable: its retry policy applies),
 * never a task with fewer holders than registered.
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
import type { NodeContext, NodeExecutor } from '../../domain/node-executor.js';
import { openRequest, waitOn, type HitlDeps } from './waiting.executors.js';

const MAX_TASK_INPUT_BYTES = 128 * 1024;
const DEFAULT_REGISTRY_TIMEOUT_MS = 10_000;

/** Who holds a human capability, as its registration in the planner's registry says. */
export interface CapabilityHolders {
  /**
   * User ids of `assignmentDefaults.assignees`; `[]` when the capability is
   * not registered or names none. Throws an AppError when the registry cannot
   * answer, or the registration's list is malformed.
   */
  of(capabilityId: string, timeoutMs: number, principal: { userId: string; teamIds: readonly string[] }): Promise<string[]>;
}

export interface HumanExecutorDeps extends HitlDeps {
  /** The planner's registry; undefined without PLANNER_URL: tasks then go to `params.assignees` only. */
  holders?: CapabilityHolders | undefined;
  /** Longest wait for the registry (default 10 s; never past the node timeout). */
  registryTimeoutMs?: number;
}

export function humanExecutor(deps: HumanExecutorDeps): NodeExecutor {
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
    const who = audience(ctx.params);
    const holders = capabilityId && deps.holders ? await registeredHolders(deps, deps.holders, ctx, capabilityId) : [];
    const request = await openRequest(ctx, deps, {
      ownerUserId: ctx.userId,
      kind: 'human_task',
      runId: ctx.runId,
      nodeId: ctx.instanceId,
      runContext: ctx.run.runContext,
      operatorPrompt: instruction,
      details: {
        contract_summary: summary,
        executor_type: 'human',
        on_decline: ctx.params.on_decline === 'skip' ? 'skip' : 'fail_run',
        ...(holders.length ? { registered_holders: holders } : {}),
      },
      outputSchema: node.outputSchema,
      ...(capabilityId ? { capabilityId } : {}),
      ...who,
      assigneeUserIds: [...new Set([...who.assigneeUserIds, ...holders])],
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

/** The registry's holders of `capabilityId`; a lookup that fails is a clear error (never "nobody holds it"). */
async function registeredHolders(deps: HumanExecutorDeps, holders: CapabilityHolders, ctx: NodeContext, capabilityId: string): Promise<string[]> {
  const nodeId = ctx.instanceId;
  try {
    // As the run's owner: only a capability the owner may use names who gets the owner's tasks.
    return await holders.of(capabilityId, Math.max(1, Math.min(deps.registryTimeoutMs ?? DEFAULT_REGISTRY_TIMEOUT_MS, ctx.timeoutMs)), { userId: ctx.userId, teamIds: ctx.teamIds ?? [] });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    // A malformed registration stays malformed until it is registered again; anything else may pass.
    if (err instanceof AppError && !err.retryable && err.code !== 'INTERNAL') {
      throw new AppError(err.code, `node ${nodeId}: the holders of human capability '${capabilityId}' cannot be read: ${why}`, { violations: err.violations, retryable: false, cause: err });
    }
    throw new AppError('UNAVAILABLE', `node ${nodeId}: the holders of human capability '${capabilityId}' could not be read from the capability registry (planner): ${why}`, { retryable: true, cause: err });
  }
}
