import { baseEnvSchema, grpcAddress } from '@af/service-kit';
import { z } from 'zod';

/** Gateway configuration (env names are the keys). */
export const gatewayEnvSchema = baseEnvSchema.extend({
  HTTP_HOST: z.string().default('0.0.0.0'),
  /** HTTP port of the REST/SSE API; 0 picks a free one. */
  HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** gRPC port serving only grpc.health.v1 (for Kubernetes probes). */
  GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50050),
  /** HS256 signing key for access tokens. */
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters'),
  JWT_TTL_SECONDS: z.coerce.number().int().min(60).max(30 * 24 * 3600).default(3600),
  PLANNER_URL: grpcAddress(),
  ORCHESTRATOR_URL: grpcAddress(),
  CONNECTOR_RUNTIME_URL: grpcAddress(),
  /** gRPC address of the approval service (approvals, human tasks, clarifications). */
  APPROVAL_URL: grpcAddress(),
  /** Largest accepted request body. */
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(2 * 1024 * 1024),
  /** Largest run `inputs` accepted (bytes of JSON); larger is 413 naming `inputs`. Keep equal to the orchestrator's. */
  RUN_INPUT_MAX_BYTES: z.coerce.number().int().min(1024).default(256 * 1024),
  /** Deepest nesting of objects/arrays accepted in a JSON request body; deeper is 400. */
  JSON_MAX_DEPTH: z.coerce.number().int().min(8).max(1_000).default(64),
});
export type GatewayConfig = z.infer<typeof gatewayEnvSchema>;
