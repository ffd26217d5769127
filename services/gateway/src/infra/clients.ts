import { approval, connector, orchestrator, planner, profiles, query } from '@af/contracts';
import { createGrpcClient, type PrincipalSigner } from '@af/service-kit';
import type { GatewayConfig } from '../config.js';

/** gRPC clients of the services the gateway fronts. */
export interface Clients {
  planner: planner.PlannerServiceClient;
  registry: planner.CapabilityRegistryServiceClient;
  profiles: profiles.AgentProfileServiceClient;
  query: query.QueryServiceClient;
  orchestrator: orchestrator.OrchestratorServiceClient;
  connectors: connector.ConnectorServiceClient;
  plugins: connector.PluginRegistryServiceClient;
  approvals: approval.ApprovalServiceClient;
}

/**
 * Every call carries a principal token minted from the request's principal
 * (the authenticated user); `auth` refuses system principals, so no user
 * ever acts as a service or the operator through the gateway.
 */
export function createClients(config: GatewayConfig, auth: PrincipalSigner): Clients {
  const o = { auth, readyWaitMs: config.UPSTREAM_WAIT_MS };
  return {
    planner: createGrpcClient('planner', planner.PLANNER_SERVICE_NAME, config.PLANNER_URL, o),
    registry: createGrpcClient('planner', planner.CAPABILITY_REGISTRY_SERVICE_NAME, config.PLANNER_URL, o),
    profiles: createGrpcClient('planner', profiles.AGENT_PROFILE_SERVICE_NAME, config.PLANNER_URL, o),
    query: createGrpcClient('planner', query.QUERY_SERVICE_NAME, config.PLANNER_URL, o),
    orchestrator: createGrpcClient('orchestrator', orchestrator.ORCHESTRATOR_SERVICE_NAME, config.ORCHESTRATOR_URL, o),
    connectors: createGrpcClient('connector', connector.CONNECTOR_SERVICE_NAME, config.CONNECTOR_RUNTIME_URL, o),
    plugins: createGrpcClient('connector', connector.PLUGIN_REGISTRY_SERVICE_NAME, config.CONNECTOR_RUNTIME_URL, o),
    approvals: createGrpcClient('approval', approval.APPROVAL_SERVICE_NAME, config.APPROVAL_URL, o),
  };
}
