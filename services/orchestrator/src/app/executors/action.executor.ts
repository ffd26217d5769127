/**
 * `tool` nodes whose action no in-process executor handles: the built-in
 * actions served by the service that owns their data (ActionService.Execute),
 * routed by action name. The call carries the key `runId:nodeId:attempt`, so
 * a node replayed after a crash gets the service's stored first answer.
 */
import { AppError } from '@af/service-kit';
import type { NodeExecutor } from '../../domain/node-executor.js';
import type { ServedAction } from '../../domain/action-table.js';

export interface ActionCall {
  action: string;
  inputs: Record<string, unknown>;
  params: Record<string, unknown>;
  userId: string;
  idempotencyKey: string;
  runId: string;
  nodeId: string;
  attempt: number;
  timeoutMs: number;
}

export interface ActionPort {
  /** The service serving `action`, asking the services again (rate-limited) when the table does not know it. */
  servedBy(action: string): Promise<ServedAction | undefined>;
  execute(served: ServedAction, call: ActionCall, signal: AbortSignal): Promise<{ outputs: Record<string, unknown>; replayed: boolean }>;
}

export function actionExecutor(actions: ActionPort): NodeExecutor {
  return async (ctx) => {
    const action = ctx.node.action;
    if (!action) throw new AppError('INVALID_ARGUMENT', `node ${ctx.node.id}: a tool node needs an action`, { retryable: false });
    const served = await actions.servedBy(action);
    if (!served) {
      throw new AppError('FAILED_PRECONDITION', `action_unavailable: no service of this deployment serves action '${action}' (node ${ctx.node.id})`, {
        retryable: false,
        violations: [{ field: `nodes.${ctx.node.id}.action`, reason: `no service of this deployment serves '${action}'`, code: 'action_unavailable' }],
      });
    }
    const { outputs } = await actions.execute(
      served,
      {
        action,
        inputs: ctx.inputs,
        params: ctx.params,
        userId: ctx.userId,
        idempotencyKey: ctx.idempotencyKey,
        runId: ctx.runId,
        nodeId: ctx.instanceId,
        attempt: ctx.attempt,
        timeoutMs: ctx.timeoutMs,
      },
      ctx.signal,
    );
    return outputs;
  };
}
