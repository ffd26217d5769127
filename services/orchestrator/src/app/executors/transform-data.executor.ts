import { AppError } from '@af/service-kit';
import type { NodeExecutor } from '../../domain/node-executor.js';
import { TransformError } from '../../domain/transform/transform-error.js';
import { transformData } from '../../domain/transform/transform-data.js';

/** `tool` nodes with `action: transform_data`, run in-process (no side effects, nothing to de-duplicate). */
export const transformDataExecutor: NodeExecutor = async (ctx) => {
  try {
    return transformData(ctx.inputs, ctx.params);
  } catch (err) {
    if (err instanceof TransformError) {
      throw new AppError('INVALID_ARGUMENT', `node ${ctx.node.id}: ${err.message}`, {
        violations: [{ field: err.field, reason: err.reason }],
        retryable: false,
      });
    }
    throw err;
  }
};
