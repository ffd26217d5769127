/**
 * grpc-js service definitions for `agentfactory.connector.v1`, loaded the way
 * every service of ours loads them (proto-loader with `grpcLoaderOptions`;
 * importing `@af/contracts` registers the Struct wrappers), so Struct fields
 * are plain JSON objects and messages match the generated ts-proto types.
 *
 * (ts-proto's own `encode` cannot be used for Struct fields with `nestJs=true`:
 * it wraps values twice and recurses without end.)
 */
import { connector, grpcLoaderOptions, protoFiles } from '@af/contracts';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

const definitions = loadSync(protoFiles('connector'), {
  ...grpcLoaderOptions,
  includeDirs: [...grpcLoaderOptions.includeDirs],
});

function service(name: string): ServiceDefinition {
  const found = definitions[`agentfactory.connector.v1.${name}`];
  if (!found || !('Invoke' in found || 'RegisterPlugin' in found))
    throw new Error(`agentfactory.connector.v1.${name} is missing from the contracts`);
  return found as unknown as ServiceDefinition;
}

/** Served by every plugin: `Invoke`. */
export const connectorPluginService = service('ConnectorPluginService');

/** Served by connector-runtime: `RegisterPlugin`, `HeartbeatPlugin`, `DeregisterPlugin`, `ListPlugins`, `GetPlugin`, `SetPluginEnabled`. */
export const pluginRegistryService = service('PluginRegistryService');

export type RegisterPluginRequest = connector.RegisterPluginRequest;
export type RegisterPluginResponse = connector.RegisterPluginResponse;
export type HeartbeatPluginResponse = connector.HeartbeatPluginResponse;
export type DeregisterPluginResponse = connector.DeregisterPluginResponse;
export type InvokeRequest = connector.InvokeRequest;
export type InvokeResponse = connector.InvokeResponse;
