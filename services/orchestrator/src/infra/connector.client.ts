import { call, createGrpcClient } from '@af/service-kit';
import { connector } from '@af/contracts';
import { AppError } from '@af/service-kit';
import type { NodeExecutor } from '../domain/node-executor.js';

/** `tool` nodes with `action: call_connector` → connector-runtime ExecuteEndpoint. */
export function callConnectorExecutor(address: string): NodeExecutor {
  const client = createGrpcClient<connector.ConnectorServiceClient>('connector', connector.CONNECTOR_SERVICE_NAME, address);
  return async (ctx) => {
    const connectorId = ctx.params.connector;
    const endpoint = ctx.params.endpoint;
    if (typeof connectorId !== 'string' || typeof endpoint !== 'string') {
      throw new AppError('INVALID_ARGUMENT', `node ${ctx.node.id}: params.connector and params.endpoint must be strings`, {
        retryable: false,
      });
    }
    const response = await call(
      client.executeEndpoint({
        principal: { userId: ctx.userId, teamIds: [] },
        connectorId,
        endpoint,
        inputs: ctx.inputs,
        idempotencyKey: ctx.idempotencyKey,
      }),
      ctx.timeoutMs,
    );
    return response.result ?? {};
  };
}
