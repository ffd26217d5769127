import { baseEnvSchema, grpcAddress } from '@af/service-kit';
import { llmEnvShape } from '@af/llm';
import { z } from 'zod';

/**
 * Approval service configuration (env names are the keys). The LLM_*
 * variables choose the model that classifies tool HITL instructions as
 * enhance / override; with none (the default) every instruction enhances.
 */
export const approvalEnvSchema = baseEnvSchema.extend({
  GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50054),
  /**
   * gRPC address of the orchestrator, asked whether the runs of old pending
   * requests still exist (expiry of requests of crashed or finished runs).
   * Unset: only the runs' `complete` events expire them.
   */
  ORCHESTRATOR_URL: grpcAddress().optional(),
  /** How often the leader (one replica, by PostgreSQL advisory lock) times out due requests. */
  APPROVAL_SWEEP_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(1000),
  /** Pending requests older than this have their run checked with the orchestrator, at most this often each. */
  APPROVAL_STALE_CHECK_MS: z.coerce.number().int().min(1000).max(24 * 3600_000).default(60_000),
  /** Default timeout of tool HITL requests (seed multi-agent-rag HITL_TIMEOUT_SECONDS); 0 = none. */
  HITL_TIMEOUT_SECONDS: z.coerce.number().int().min(0).max(30 * 24 * 3600).default(120),
  /** Default SLA of human tasks (flex spec FLEX_HUMAN_ASSIGNMENT_TIMEOUT_SECONDS, 15 minutes); 0 = none. */
  FLEX_HUMAN_ASSIGNMENT_TIMEOUT_SECONDS: z.coerce.number().int().min(0).max(30 * 24 * 3600).default(900),
  /** Longest wait for the instruction classifier before falling back to enhance. */
  HITL_CLASSIFIER_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  ...llmEnvShape,
});
export type ApprovalConfig = z.infer<typeof approvalEnvSchema>;
