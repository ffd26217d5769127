/**
 * The caller's connectors and agent-profile bindings, from connector-runtime,
 * as the lookup the playbook compiler checks `call_connector` and
 * `detect_new_data` steps against. Only asked when a playbook names a
 * connector. When connector-runtime is not configured or does not answer,
 * the answer says why, and validation warns instead of failing.
 */
import { connector } from '@af/contracts';
import { connectorLookup, deriveConnectorContract, type ConnectorBinding, type ConnectorContractLookup } from '@af/plan';
import { AppError, call, createGrpcClient, type PrincipalSigner } from '@af/service-kit';

export type CatalogAnswer = { lookup: ConnectorContractLookup } | { unavailable: string };

export interface ConnectorCatalog {
  forCaller(principal: { userId: string; teamIds: readonly string[] }): Promise<CatalogAnswer>;
}

/** Without CONNECTOR_RUNTIME_URL. */
export const noConnectorCatalog: ConnectorCatalog = {
  forCaller: async () => ({ unavailable: 'connector-runtime is not configured for the planner (CONNECTOR_RUNTIME_URL)' }),
};

export function connectorCatalog(address: string, auth: PrincipalSigner, timeoutMs = 5_000): ConnectorCatalog {
  const client = createGrpcClient<connector.ConnectorServiceClient>('connector', connector.CONNECTOR_SERVICE_NAME, address, { auth });
  return {
    async forCaller(p) {
      const principal = { userId: p.userId, teamIds: [...p.teamIds] };
      try {
        const [{ connectors }, { bindings }] = await Promise.all([
          call(client.listConnectors({ principal }), timeoutMs),
          call(client.listBindings({ principal, agentProfileId: '' }), timeoutMs),
        ]);
        return { lookup: lookupOf(connectors, bindings) };
      } catch (err) {
        const reason = err instanceof AppError && !err.transport ? `${err.code}: ${err.message}` : err instanceof AppError ? err.code : 'no answer';
        return { unavailable: `connector-runtime did not answer (${reason})` };
      }
    },
  };
}

/** Definitions that do not derive (stored before a format change) are left out rather than failing the check. */
export function lookupOf(connectors: readonly connector.Connector[], bindings: readonly connector.Binding[]): ConnectorContractLookup {
  const definitions = connectors.flatMap((c) => {
    try {
      deriveConnectorContract(c.definition);
      return [c.definition];
    } catch {
      return [];
    }
  });
  const bound: ConnectorBinding[] = bindings.map((b) => ({ agentProfileId: b.agentProfileId, connectorId: b.connectorId, allowedEndpoints: b.allowedEndpoints, status: b.status }));
  return connectorLookup(definitions, bound);
}
