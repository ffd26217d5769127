/**
 * The planner's capability registry as capability nodes read it
 * (GetCapability), asked as the run's owner with the teams the run started
 * with: the answer is the capability that owner resolves by that id (its
 * own, its teams', the shared catalog's), never another user's. NOT_FOUND is
 * "nothing the owner may use by that id".
 */
import { planner } from '@af/contracts';
import { AppError, call, createGrpcClient, type PrincipalSigner } from '@af/service-kit';
import type { CapabilityDirectory } from '../app/executors/capability.executor.js';
import type { CapabilitySnapshot } from '../domain/capability-dispatch.js';

export function capabilityRegistryClient(address: string, auth: PrincipalSigner): planner.CapabilityRegistryServiceClient {
  return createGrpcClient<planner.CapabilityRegistryServiceClient>('planner', planner.CAPABILITY_REGISTRY_SERVICE_NAME, address, { auth });
}

export function capabilityDirectory(client: planner.CapabilityRegistryServiceClient): CapabilityDirectory {
  return {
    async get(capabilityId, timeoutMs, principal) {
      try {
        const { capability } = await call(client.getCapability({ principal: { userId: principal.userId, teamIds: [...principal.teamIds] }, capabilityId }), timeoutMs);
        return capability ? toSnapshot(capability) : undefined;
      } catch (err) {
        if (err instanceof AppError && err.code === 'NOT_FOUND') return undefined;
        if (err instanceof AppError) throw new AppError(err.code, `the capability registry (planner) could not resolve '${capabilityId}': ${err.message}`, { retryable: err.retryable, cause: err });
        throw err;
      }
    },
  };
}

export function toSnapshot(c: planner.Capability): CapabilitySnapshot {
  return {
    capabilityId: c.capabilityId,
    agentType: c.agentType,
    instances: c.instances.map((i) => ({ instanceId: i.instanceId, scopes: i.scopes, endpoint: i.endpoint, status: i.status, lastSeenAt: i.lastSeenAt })),
    ...(c.inputSchema ? { inputSchema: c.inputSchema as Record<string, unknown> } : {}),
    ...(c.outputSchema ? { outputSchema: c.outputSchema as Record<string, unknown> } : {}),
  };
}
