/**
 * The connector endpoints the mail agent may use: the endpoints of the
 * caller's connectors that act as the user through the user's own OAuth
 * connection (`auth: oauth2, grant_type: authorization_code`), as
 * `<connector>__<endpoint>` tools. Without connector-runtime there are none
 * and the mail agent is not offered.
 */
import { connector } from '@af/contracts';
import { call, createGrpcClient, type Logger, type PrincipalSigner } from '@af/service-kit';
import type { ConnectorTool } from '../domain/query/query-agents.js';

export type ConnectorToolSource = (principal: { userId: string; teamIds: readonly string[] }) => Promise<ConnectorTool[]>;

export const noConnectorTools: ConnectorToolSource = async () => [];

const TOOL_PART = /^[A-Za-z0-9_-]+$/;

/** The user-OAuth connectors' endpoints from a listConnectors answer. */
export function toolsOf(connectors: readonly connector.Connector[]): ConnectorTool[] {
  const tools: ConnectorTool[] = [];
  for (const c of connectors) {
    const def = (c.definition ?? {}) as { connection?: { auth?: { type?: string; grant_type?: string } }; endpoints?: Record<string, { method?: string; description?: string }> };
    const auth = def.connection?.auth;
    if (auth?.type !== 'oauth2' || auth.grant_type !== 'authorization_code') continue;
    for (const [name, ep] of Object.entries(def.endpoints ?? {})) {
      if (!TOOL_PART.test(name)) continue;
      tools.push({ name: `${c.id}__${name}`, method: (ep.method ?? 'GET').toUpperCase(), description: ep.description ?? `${name} of ${c.name || c.id}` });
    }
  }
  return tools;
}

export function connectorToolSource(address: string, auth: PrincipalSigner, log: Logger, timeoutMs = 5_000): ConnectorToolSource {
  const client = createGrpcClient<connector.ConnectorServiceClient>('connector', connector.CONNECTOR_SERVICE_NAME, address, { auth });
  return async (p) => {
    try {
      const { connectors } = await call(client.listConnectors({ principal: { userId: p.userId, teamIds: [...p.teamIds] } }), timeoutMs);
      return toolsOf(connectors);
    } catch (err) {
      log.warn({ err }, 'query: connector-runtime did not list the connectors; the mail agent is not offered');
      return [];
    }
  };
}
