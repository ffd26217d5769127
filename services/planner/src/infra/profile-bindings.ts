/**
 * The connectors bound to one agent profile, from connector-runtime (its
 * bindings are the caller's: a binding serves the runs of whoever made it).
 * When connector-runtime is not configured or does not answer, the answer
 * says why and the caller decides (attaching a playbook then warns that its
 * connectors were not checked).
 */
import { connector } from '@af/contracts';
import { AppError, call, createGrpcClient, type PrincipalSigner } from '@af/service-kit';
import type { ProfileBinding } from '../domain/profiles/connector-binding-rule.js';

export type BindingsAnswer = { bindings: ProfileBinding[] } | { unavailable: string };

export interface ProfileBindings {
  forProfile(principal: { userId: string; teamIds: readonly string[] }, profileId: string): Promise<BindingsAnswer>;
}

export const noProfileBindings: ProfileBindings = {
  forProfile: async () => ({ unavailable: 'connector-runtime is not configured for the planner (CONNECTOR_RUNTIME_URL)' }),
};

export function profileBindings(address: string, auth: PrincipalSigner, timeoutMs = 5_000): ProfileBindings {
  const client = createGrpcClient<connector.ConnectorServiceClient>('connector', connector.CONNECTOR_SERVICE_NAME, address, { auth });
  return {
    async forProfile(p, profileId) {
      try {
        const { bindings } = await call(client.listBindings({ principal: { userId: p.userId, teamIds: [...p.teamIds] }, agentProfileId: profileId }), timeoutMs);
        return { bindings: bindings.filter((b) => b.agentProfileId === profileId).map((b) => ({ connectorId: b.connectorId, allowedEndpoints: b.allowedEndpoints, status: b.status })) };
      } catch (err) {
        const reason = err instanceof AppError && !err.transport ? `${err.code}: ${err.message}` : err instanceof AppError ? err.code : 'no answer';
        return { unavailable: `connector-runtime did not answer (${reason})` };
      }
    },
  };
}
