/**
 * The connectors bound to one agent profile, from connector-runtime (its
 * bindings are the caller's: a binding serves the runs of whoever made it).
 * When connector-runtime is not configured or does not answer, the answer
 * says why and the caller decides (attaching a playbook then warns that its
 * connectors were not checked). Deleting a profile removes the owner's
 * bindings to it.
 */
import { connector } from '@af/contracts';
import { AppError, call, createGrpcClient, type PrincipalSigner } from '@af/service-kit';
import type { ProfileBinding } from '../domain/profiles/connector-binding-rule.js';

export type BindingsAnswer = { bindings: ProfileBinding[] } | { unavailable: string };

export interface ProfileBindings {
  forProfile(principal: { userId: string; teamIds: readonly string[] }, profileId: string): Promise<BindingsAnswer>;
  /**
   * The research tools of the profile for the caller: `<connector>__<endpoint>`
   * for each endpoint of each active binding (only its allowed endpoints when
   * it names some).
   */
  researchTools(principal: { userId: string; teamIds: readonly string[] }, profileId: string): Promise<{ tools: string[] } | { unavailable: string }>;
  /** Removes the caller's bindings to a deleted profile; how many, or why not. */
  removeAll(principal: { userId: string; teamIds: readonly string[] }, profileId: string): Promise<{ removed: number } | { unavailable: string }>;
}

const NOT_CONFIGURED = 'connector-runtime is not configured for the planner (CONNECTOR_RUNTIME_URL)';

export const noProfileBindings: ProfileBindings = {
  forProfile: async () => ({ unavailable: NOT_CONFIGURED }),
  researchTools: async () => ({ unavailable: NOT_CONFIGURED }),
  removeAll: async () => ({ unavailable: NOT_CONFIGURED }),
};

export function profileBindings(address: string, auth: PrincipalSigner, timeoutMs = 5_000): ProfileBindings {
  const client = createGrpcClient<connector.ConnectorServiceClient>('connector', connector.CONNECTOR_SERVICE_NAME, address, { auth });
  return {
    async forProfile(p, profileId) {
      try {
        const { bindings } = await call(client.listBindings({ principal: { userId: p.userId, teamIds: [...p.teamIds] }, agentProfileId: profileId }), timeoutMs);
        return { bindings: bindings.filter((b) => b.agentProfileId === profileId).map((b) => ({ connectorId: b.connectorId, allowedEndpoints: b.allowedEndpoints, status: b.status })) };
      } catch (err) {
        return { unavailable: unavailable(err) };
      }
    },
    async researchTools(p, profileId) {
      const principal = { userId: p.userId, teamIds: [...p.teamIds] };
      try {
        const { bindings } = await call(client.listBindings({ principal, agentProfileId: profileId }), timeoutMs);
        const tools: string[] = [];
        for (const b of bindings.filter((x) => x.agentProfileId === profileId && x.status !== 'disabled')) {
          const { connector: c } = await call(client.getConnector({ principal, id: b.connectorId }), timeoutMs);
          const endpoints = Object.keys(((c?.definition ?? {}) as { endpoints?: Record<string, unknown> }).endpoints ?? {});
          const allowed = b.allowedEndpoints.length ? new Set(b.allowedEndpoints) : undefined;
          for (const e of endpoints) if (!allowed || allowed.has(e)) tools.push(`${b.connectorId}__${e}`);
        }
        return { tools };
      } catch (err) {
        return { unavailable: unavailable(err) };
      }
    },
    async removeAll(p, profileId) {
      const principal = { userId: p.userId, teamIds: [...p.teamIds] };
      try {
        const { bindings } = await call(client.listBindings({ principal, agentProfileId: profileId }), timeoutMs);
        let removed = 0;
        for (const b of bindings.filter((x) => x.agentProfileId === profileId)) {
          await call(
            client.bindConnector({ principal, agentProfileId: profileId, connectorId: b.connectorId, configOverrides: {}, allowedEndpoints: [], rateLimitPerMinute: 0, credentials: {}, disabled: false, unbind: true }),
            timeoutMs,
          );
          removed++;
        }
        return { removed };
      } catch (err) {
        return { unavailable: unavailable(err) };
      }
    },
  };
}

function unavailable(err: unknown): string {
  const reason = err instanceof AppError && !err.transport ? `${err.code}: ${err.message}` : err instanceof AppError ? err.code : 'no answer';
  return `connector-runtime did not answer (${reason})`;
}
