/**
 * `route` nodes: the first route whose condition holds is taken (its `to`
 * nodes run), else `elseTo`; the engine skips every other target with reason
 * `route_not_taken`. Pure: decided from the run's scope, no side effects.
 */
import { compileNodeCondition } from '@af/plan';
import { AppError } from '@af/service-kit';
import type { NodeExecutor } from '../../domain/node-executor.js';

export const routeExecutor: NodeExecutor = async (ctx) => {
  const routes = ctx.node.routes ?? [];
  for (let i = 0; i < routes.length; i++) {
    const route = routes[i]!;
    let holds: boolean;
    try {
      holds = compileNodeCondition({ condition: route.condition, conditionDialect: route.conditionDialect })!(ctx.scope);
    } catch (err) {
      throw new AppError('INVALID_ARGUMENT', `node ${ctx.node.id}: routes[${i}].condition: ${(err as Error).message}`, {
        violations: [{ field: `routes[${i}].condition`, reason: (err as Error).message }],
        retryable: false,
      });
    }
    if (holds) return { route: i, taken: route.to };
  }
  return { route: 'else', taken: ctx.node.elseTo ?? [] };
};
