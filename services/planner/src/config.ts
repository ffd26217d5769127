import { actionServicesEnvShape, baseEnvSchema, grpcAddress } from '@af/service-kit';
import { llmEnvShape } from '@af/llm';
import { CAPABILITY_EGRESS, parseEgressAllowList } from '@af/egress';
import { z } from 'zod';

/** Planner configuration (env names are the keys). */
export const plannerEnvSchema = baseEnvSchema.extend({
  GRPC_PORT: z.coerce.number().int().min(1).max(65535).default(50051),
  /**
   * gRPC address of connector-runtime: validation checks the connectors,
   * endpoints and bindings a playbook names against the caller's. Unset: a
   * playbook that names a connector validates with a warning that they were
   * not checked.
   */
  CONNECTOR_RUNTIME_URL: grpcAddress().optional(),
  /**
   * gRPC address of the orchestrator: when an agent run ends (its `complete`
   * frame, read by a durable consumer), the planner reads the run there and
   * writes its journal entry, whoever started the run; and, since the
   * orchestrator owns schedules, deleting an agent profile that a schedule
   * targets is refused (asked at each delete; the orchestrator unreachable
   * refuses the delete). Unset: only runs whose starter hands the finished run
   * over (FinishAgentRun) are journaled, and schedules are not checked.
   */
  ORCHESTRATOR_URL: grpcAddress().optional(),
  /**
   * How often the planner looks for agent runs still open in its log that
   * have ended (their `complete` frame was missed, e.g. one the in-process
   * bus of the embedded mode lost when the process stopped) and journals them;
   * only runs started at least this long ago are asked about. Needs
   * ORCHESTRATOR_URL.
   */
  AGENT_JOURNAL_SWEEP_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
  /** How long an Idempotency-Key of POST /query and /query/stream answers the first request (then the key may be used anew). */
  QUERY_IDEMPOTENCY_TTL_SECONDS: z.coerce.number().int().min(1).max(30 * 24 * 3600).default(24 * 3600),
  /** How long a replica serves the capability registry and facet catalog from memory before reloading (events refresh it sooner). */
  FLEX_CAPABILITY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  /** How often stale instances (no heartbeat within their timeout) are marked inactive and announced. */
  FLEX_CAPABILITY_SWEEP_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
  /** Planner attempts per PlanTask when the request does not say (each rejected draft is fed back). */
  FLEX_PLANNER_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  /** `auto`: the LLM planner when LLM_PROVIDER is set, else deterministic; `deterministic` / `llm` force one. */
  FLEX_PLANNER_RUNTIME: z.enum(['auto', 'deterministic', 'llm']).default('auto'),
  /**
   * Non-public addresses capability registrations may name as `endpoint` (same
   * syntax as the orchestrator's, which checks again on every call). A
   * registration whose endpoint is a `unix:` socket or another non-TCP
   * target, or an IP address this list does not allow for the registering
   * user's capability, is refused with INVALID_ARGUMENT naming `endpoint`.
   * Empty: public addresses only. See docs/security/egress.md.
   */
  CAPABILITY_EGRESS_ALLOW: z
    .string()
    .default('')
    .superRefine((value, ctx) => {
      const parsed = parseEgressAllowList(value, CAPABILITY_EGRESS);
      if (!parsed.ok) for (const message of parsed.errors) ctx.addIssue({ code: 'custom', message });
    }),
  ...llmEnvShape,
  /**
   * Embedding model for `semantic` playbook triggers: `none` (default; semantic
   * triggers match as keywords and the answer says so), `openai` (any
   * OpenAI-compatible `/v1/embeddings`; needs TRIGGER_EMBEDDING_API_KEY) or
   * `ollama`. TRIGGER_EMBEDDING_MODEL defaults to `text-embedding-3-small` /
   * `nomic-embed-text`; TRIGGER_EMBEDDING_BASE_URL is the OpenAI base URL
   * (e.g. `http://host/v1`) or the Ollama server.
   */
  TRIGGER_EMBEDDER: z.enum(['none', 'openai', 'ollama']).default('none'),
  TRIGGER_EMBEDDING_MODEL: z.string().min(1).optional(),
  TRIGGER_EMBEDDING_API_KEY: z.string().min(1).optional(),
  TRIGGER_EMBEDDING_BASE_URL: z.url().optional(),
  /** Cosine similarity between the message and a semantic trigger's pattern at which the trigger matches (0–1). */
  TRIGGER_SEMANTIC_THRESHOLD: z.coerce.number().min(0).max(1).default(0.8),
  /** How long one embedding call may take; past it semantic triggers match as keywords for that message, said in the answer. */
  TRIGGER_EMBEDDING_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /**
   * ACTION_SERVICES, ACTION_REFRESH_MS: the same services the orchestrator
   * runs actions on. CompilePlaybook refuses a step whose action none of them
   * serves (`action_unavailable`), and ListActions marks each action available.
   */
  ...actionServicesEnvShape,
  /** Most nodes a plan may have — playbook steps (parallel_steps included), map bodies and inline subflows count; larger documents are refused before validation. */
  PLAN_MAX_NODES: z.coerce.number().int().min(1).max(100_000).default(1_000),
  /** Steps one condition evaluation may take (quantifier elements, array scans); past it the evaluation fails with condition_budget_exceeded. */
  CONDITION_MAX_STEPS: z.coerce.number().int().min(1).default(100_000),
  /** How deep some()/all()/none() may nest inside one another's predicate; deeper conditions are refused at validation. */
  CONDITION_MAX_QUANTIFIER_DEPTH: z.coerce.number().int().min(0).max(10).default(3),
});
export type PlannerConfig = z.infer<typeof plannerEnvSchema>;
