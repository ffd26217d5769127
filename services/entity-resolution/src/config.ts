import { baseEnvSchema } from '@af/service-kit';
import { z } from 'zod';

/** Entity-resolution service configuration (env names are the keys). */
export const entityResolutionEnvSchema = baseEnvSchema.extend({
  GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50056),
  /** Probability at or above which a record merges without review (never below 0.7). */
  ER_AUTO_THRESHOLD: z.coerce.number().min(0.7).max(1).default(0.9),
  /** Probability at or above which (below the auto threshold) a pair goes to the review queue. */
  ER_REVIEW_THRESHOLD: z.coerce.number().min(0).max(1).default(0.5),
  /** Largest `max_nodes` analyze_graph and graph queries accept. */
  ER_MAX_ANALYZE_NODES: z.coerce.number().int().min(10).max(1_000_000).default(10_000),
});
export type EntityResolutionConfig = z.infer<typeof entityResolutionEnvSchema>;
