/**
 * `tool` nodes whose action no in-process executor handles: the built-in
 * actions served by the service that owns their data (ActionService.Execute),
 * routed by action name. The call carries the key `runId:nodeId:attempt`, so
 * a node replayed after a crash gets the service's stored first answer.
 */
import { AppError, servedActionName, type ActionPort } from '@af/service-kit';
import type { NodeExecutor } from '../../domain/node-executor.js';

export type { ActionCall, ActionPort } from '@af/service-kit';

export function actionExecutor(actions: ActionPort): NodeExecutor {
  return async (ctx) => {
    if (!ctx.node.action) throw new AppError('INVALID_ARGUMENT', `node ${ctx.node.id}: a tool node needs an action`, { retryable: false });
    // A node naming a plugin runs `plugin:<plugin>.<action>` (the routing rule in @af/service-kit's action table).
    const action = servedActionName({ action: ctx.node.action, params: ctx.node.params });
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
