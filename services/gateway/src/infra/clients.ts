import { approval, connector, orchestrator, planner } from '@af/contracts';
import { createGrpcClient } from '@af/service-kit';
import type { GatewayConfig } from '../config.js';

/** gRPC clients of the services the gateway fronts. */
export interface Clients {
  planner: planner.PlannerServiceClient;
  orchestrator: orchestrator.OrchestratorServiceClient;
  connectors: connector.ConnectorServiceClient;
  plugins: connector.PluginRegistryServiceClient;
  approvals: approval.ApprovalServiceClient;
}

export function createClients(config: GatewayConfig): Clients {
  return {
    planner: createGrpcClient('planner', planner.PLANNER_SERVICE_NAME, config.PLANNER_URL),
    orchestrator: createGrpcClient('orchestrator', orchestrator.ORCHESTRATOR_SERVICE_NAME, config.ORCHESTRATOR_URL),
    connectors: createGrpcClient('connector', connector.CONNECTOR_SERVICE_NAME, config.CONNECTOR_RUNTIME_URL),
    plugins: createGrpcClient('connector', connector.PLUGIN_REGISTRY_SERVICE_NAME, config.CONNECTOR_RUNTIME_URL),
    approvals: createGrpcClient('approval', approval.APPROVAL_SERVICE_NAME, config.APPROVAL_URL),
  };
}
