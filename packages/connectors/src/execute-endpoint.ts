/**
 * Runs one endpoint of any connector type: looks the type's module up and
 * calls it. The one entry point the app layer, the CLI and tests use.
 */
import type { ConnectorDefinition } from './connector-definition.schema.js';
import type { ExecutionContext } from './connector-type.js';
import type { EndpointResult } from './response-mapping.js';
import type { ConnectorCredentials } from './types/rest-api/rest-request.js';
import { connectorTypeModule } from './types/index.js';

export function executeEndpoint(
  def: ConnectorDefinition,
  endpointName: string,
  inputs: Readonly<Record<string, unknown>> | undefined,
  credentials: ConnectorCredentials,
  ctx: ExecutionContext,
): Promise<EndpointResult> {
  return connectorTypeModule(def.type).execute(def, endpointName, inputs ?? {}, credentials, ctx);
}

/** How long one call of this connector may take (ms). */
export function connectorTimeoutMs(def: ConnectorDefinition): number {
  return connectorTypeModule(def.type).timeoutMs(def);
}

/** Credential names the definition needs stored. */
export function requiredCredentials(def: ConnectorDefinition): string[] {
  return connectorTypeModule(def.type).requiredCredentials(def);
}
