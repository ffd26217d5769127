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
  /** Most nodes a plan may have — playbook steps (parallel_steps included), map bodies and inline subflows count; larger documents are refused before validation. */
  PLAN_MAX_NODES: z.coerce.number().int().min(1).max(100_000).default(1_000),
  /** Steps one condition evaluation may take (quantifier elements, array scans); past it the evaluation fails with condition_budget_exceeded. */
  CONDITION_MAX_STEPS: z.coerce.number().int().min(1).default(100_000),
  /** How deep some()/all()/none() may nest inside one another's predicate; deeper conditions are refused at validation. */
  CONDITION_MAX_QUANTIFIER_DEPTH: z.coerce.number().int().min(0).max(10).default(3),
});
export type PlannerConfig = z.infer<typeof plannerEnvSchema>;
