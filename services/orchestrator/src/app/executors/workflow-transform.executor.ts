/**
 * `transform` nodes compiled from workflow_steps: the seed's transform
 * operations (`map`, `filter`, `reduce`, `sort`, `group`) and `conditional`
 * steps (`evaluate_condition`, output `{result}`). In-process and pure; they
 * are registered `raw` because their config templates read `{{current}}` per
 * item, which only the executor can bind.
 */
import { ExprError } from '@af/expr';
import { AppError } from '@af/service-kit';
import type { NodeContext, NodeExecutor } from '../../domain/node-executor.js';
import { TransformError } from '../../domain/transform/transform-error.js';
import { evaluateCondition, runWorkflowTransform, WORKFLOW_TRANSFORM_OPERATIONS } from '../../domain/workflow-transform.js';

export const WORKFLOW_TRANSFORM_ACTIONS = [...WORKFLOW_TRANSFORM_OPERATIONS, 'evaluate_condition'] as const;

function wrap(ctx: NodeContext, fn: () => unknown): unknown {
  try {
    return fn();
  } catch (err) {
    if (err instanceof TransformError) {
      throw new AppError('INVALID_ARGUMENT', `node ${ctx.instanceId}: ${err.message}`, { violations: [{ field: err.field, reason: err.reason }], retryable: false });
    }
    if (err instanceof ExprError) {
      throw new AppError('FAILED_PRECONDITION', `node ${ctx.instanceId}: ${err.message}`, { retryable: false });
    }
    throw err;
  }
}

/** map / filter / reduce / sort / group over `inputs.input` with `inputs.config`. */
export const workflowTransformExecutor: NodeExecutor = async (ctx) =>
  wrap(ctx, () => {
    const inputs = ctx.node.inputs;
    const input = inputs.input === undefined ? undefined : ctx.resolve(inputs.input);
    return runWorkflowTransform(inputs.operation ?? ctx.node.action, input, inputs.config, ctx.scope);
  });

/** `conditional` steps: `{ result }` of `params.condition` (dialect `params.conditionDialect`). */
export const evaluateConditionExecutor: NodeExecutor = async (ctx) =>
  wrap(ctx, () => evaluateCondition(ctx.node.params.condition, ctx.node.params.conditionDialect, ctx.scope));
