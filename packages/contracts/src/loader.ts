import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Directory holding the `.proto` files the gRPC runtime loads. `pnpm gen`
 * copies them next to the package so a deployed package is self-contained.
 */
export const protoRoot: string = (() => {
  const here = dirname(fileURLToPath(import.meta.url));
  // src/ or dist/ → package root
  const candidate = join(here, '..', 'proto');
  return existsSync(candidate) ? candidate : join(here, '..', '..', '..', 'protos');
})();

export type ProtoPackage = 'common' | 'planner' | 'orchestrator' | 'connector' | 'approval' | 'agent' | 'action' | 'output' | 'entity';

const files: Record<ProtoPackage, string[]> = {
  common: ['agentfactory/common/v1/common.proto'],
  planner: ['agentfactory/planner/v1/planner.proto', 'agentfactory/planner/v1/profiles.proto', 'agentfactory/planner/v1/query.proto'],
  orchestrator: ['agentfactory/orchestrator/v1/orchestrator.proto', 'agentfactory/orchestrator/v1/events.proto', 'agentfactory/orchestrator/v1/schedules.proto'],
  connector: ['agentfactory/connector/v1/connector.proto'],
  approval: ['agentfactory/approval/v1/approval.proto', 'agentfactory/approval/v1/events.proto'],
  // Served by AI agents (capability nodes), not by a service of ours.
  agent: ['agentfactory/agent/v1/agent.proto'],
  // Served by every service that owns built-in playbook actions.
  action: ['agentfactory/action/v1/action.proto'],
  // The user's workspace (output-router).
  output: ['agentfactory/output/v1/output.proto'],
  // The knowledge graph, review queue, resolution log and discoveries (entity-resolution).
  entity: ['agentfactory/entity/v1/entity.proto'],
};

/** Absolute paths of the proto files of one package. */
export function protoFiles(pkg: ProtoPackage): string[] {
  return files[pkg].map((f) => join(protoRoot, f));
}

/**
 * `@grpc/proto-loader` options matching the ts-proto flags in buf.gen.yaml:
 * camelCase fields, int64 as strings (forceLong=string), enums as numbers,
 * defaults populated (ts-proto interfaces have every field), Struct wrappers
 * registered by importing the generated struct module.
 */
export const grpcLoaderOptions = {
  keepCase: false,
  longs: String,
  enums: Number,
  defaults: true,
  arrays: true,
  objects: true,
  oneofs: true,
  includeDirs: [protoRoot],
} as const;
