import { baseEnvSchema } from '@af/service-kit';
import { llmEnvShape } from '@af/llm';
import { z } from 'zod';

/** Planner configuration (env names are the keys). */
export const plannerEnvSchema = baseEnvSchema.extend({
  GRPC_PORT: z.coerce.number().int().min(1).max(65535).default(50051),
  /** How long a replica serves the capability registry and facet catalog from memory before reloading (events refresh it sooner). */
  FLEX_CAPABILITY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  /** How often stale instances (no heartbeat within their timeout) are marked inactive and announced. */
  FLEX_CAPABILITY_SWEEP_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
  /** Planner attempts per PlanTask when the request does not say (each rejected draft is fed back). */
  FLEX_PLANNER_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  /** `auto`: the LLM planner when LLM_PROVIDER is set, else deterministic; `deterministic` / `llm` force one. */
  FLEX_PLANNER_RUNTIME: z.enum(['auto', 'deterministic', 'llm']).default('auto'),
  ...llmEnvShape,
});
export type PlannerConfig = z.infer<typeof plannerEnvSchema>;
