import { baseEnvSchema, grpcAddress } from '@af/service-kit';
import { llmEnvShape } from '@af/llm';
import { z } from 'zod';

/** Orchestrator configuration (env names are the keys). */
export const orchestratorEnvSchema = baseEnvSchema.extend({
  GRPC_PORT: z.coerce.number().int().min(1).max(65535).default(50052),
  /** gRPC address of connector-runtime. */
  CONNECTOR_RUNTIME_URL: grpcAddress(),
  /** How long a replica owns a run without renewing; a dead replica's runs are taken over after this. */
  RUN_LEASE_MS: z.coerce.number().int().min(500).max(600_000).default(15_000),
  /** Nodes of one run executing at once. */
  RUN_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  /** Runs one replica executes at once. */
  RUNS_IN_FLIGHT: z.coerce.number().int().min(1).max(10_000).default(64),
  /** How long node outputs of finished runs are kept (the event log keeps metadata only). */
  NODE_OUTPUT_RETENTION_HOURS: z.coerce.number().min(0).max(24 * 365 * 10).default(24 * 7),
  ...llmEnvShape,
  /** Deadline of one connector call when the node sets none. */
  NODE_TIMEOUT_MS: z.coerce.number().int().min(100).default(60_000),
});
export type OrchestratorConfig = z.infer<typeof orchestratorEnvSchema>;
