/**
 * The Plan IR (DESIGN §1): every workflow front-end — playbook YAML,
 * workflow_steps JSON, planner answers, master-agent plans — compiles to one
 * PlanGraph. The orchestrator only ever executes a graph that parsed here.
 *
 * Names follow the seeds on the wire (camelCase in TS for the same concept).
 */
import { z } from 'zod';

export const NODE_KINDS = [
  'tool',
  'llm',
  'approval',
  'human',
  'capability',
  'map',
  'route',
  'subflow',
  'delay',
  'transform',
] as const;
export type NodeKind = (typeof NODE_KINDS)[number];

/** Free-form JSON value (inputs, params, outputs travel as JSON). */
export const JsonValue: z.ZodType<unknown> = z.unknown();

export const RetryPolicySchema = z.object({
  /** Retries after the first attempt. */
  maxRetries: z.number().int().min(0).max(100).default(0),
  backoffMs: z.number().int().min(0).default(1000),
  multiplier: z.number().min(1).default(2),
  maxBackoffMs: z.number().int().min(0).default(60_000),
  /** Error codes that may be retried (TIMEOUT, RATE_LIMIT, UNAVAILABLE, …); empty = transient defaults. */
  retryableCodes: z.array(z.string()).default([]),
});
export type RetryPolicy = z.infer<typeof RetryPolicySchema>;

export const ErrorPolicySchema = z.object({
  /** skip: record and continue; stop: fail the run; retry: retry per `retry`; fallback: run `fallback` nodes. */
  onError: z.enum(['skip', 'stop', 'retry', 'fallback']).default('stop'),
  retry: RetryPolicySchema.optional(),
  /** Node ids run instead of this node when it fails with onError=fallback. */
  fallback: z.array(z.string()).default([]),
  /** Compensating action run (in reverse completion order) when a later node fails with rollbackOnError. */
  rollback: z.record(z.string(), z.unknown()).optional(),
  rollbackOnError: z.boolean().default(false),
  timeoutMs: z.number().int().positive().optional(),
});
export type ErrorPolicy = z.infer<typeof ErrorPolicySchema>;

export const CachePolicySchema = z.object({
  key: z.string().min(1),
  ttlSeconds: z.number().int().positive(),
});

export const RouteSchema = z.object({
  condition: z.string(),
  /** As `PlanNode.conditionDialect`. */
  conditionDialect: z.enum(['playbook', 'object', 'jsonlogic', 'dsl']).optional(),
  /** Node ids that run when this route is taken. */
  to: z.array(z.string()),
});

export const PlanNodeSchema = z.object({
  id: z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, 'must start with a letter or _ and contain only letters, digits, _ . -'),
  kind: z.enum(NODE_KINDS),
  /** What the node does: for tool nodes the action (`call_connector`, `transform_data`, …); llm: `llm_analyze`, … */
  action: z.string().optional(),
  description: z.string().optional(),
  /** Wired values; strings may hold `{step.field}` references resolved at run time. */
  inputs: z.record(z.string(), z.unknown()).default({}),
  /** Static configuration. */
  params: z.record(z.string(), z.unknown()).default({}),
  /** Skip the node when this evaluates false (playbook condition syntax or DSL). */
  condition: z.string().optional(),
  /**
   * Dialect of `condition` for `compileCondition` of @af/expr (added by packages/plan):
   * absent/`playbook` = `{step.count} > 0 AND …`; `object` / `jsonlogic` = the JSON text
   * of a condition object / JSON-Logic rule; `dsl` = the Condition DSL.
   */
  conditionDialect: z.enum(['playbook', 'object', 'jsonlogic', 'dsl']).optional(),
  /** Name its output is stored under; references use it (`{outputKey.field}`). Defaults to the id. */
  outputKey: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()).optional(),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  errorPolicy: ErrorPolicySchema.optional(),
  cache: CachePolicySchema.optional(),
  /** Ids of nodes that must finish first (the edges, stored on the target). */
  dependsOn: z.array(z.string()).default([]),
  /** route: ordered routes and an else branch. */
  routes: z.array(RouteSchema).optional(),
  elseTo: z.array(z.string()).optional(),
  /** map: body sub-graph run per item. */
  // A getter keeps the recursive type inferable (zod 4's recursion idiom).
  get body() {
    return PlanGraphBodySchema.optional();
  },
  /**
   * Set on nodes that exist only as another node's fallback (its
   * `errorPolicy.fallback`): they run instead of that node when it fails, never
   * in the normal flow. (Added by packages/plan for workflow_steps `fallbackSteps`.)
   */
  fallbackFor: z.string().optional(),
  /** capability nodes */
  capabilityId: z.string().optional(),
  /** Where the node came from in its source document (e.g. `steps[2]`). */
  source: z.string().optional(),
});
export type PlanNode = z.infer<typeof PlanNodeSchema>;

const PlanGraphBodySchema: z.ZodObject<{
  nodes: z.ZodArray<typeof PlanNodeSchema>;
  itemsFrom: z.ZodOptional<z.ZodString>;
  maxIterations: z.ZodOptional<z.ZodNumber>;
  concurrency: z.ZodOptional<z.ZodNumber>;
  continueOnError: z.ZodOptional<z.ZodBoolean>;
}> = z.object({
  nodes: z.array(PlanNodeSchema),
  itemsFrom: z.string().optional(),
  maxIterations: z.number().int().positive().optional(),
  concurrency: z.number().int().positive().optional(),
  continueOnError: z.boolean().optional(),
});

export const PlanInputSchema = z.object({
  name: z.string(),
  type: z.string().default('string'),
  description: z.string().optional(),
  required: z.boolean().default(false),
  default: z.unknown().optional(),
  extractFrom: z.string().optional(),
  /** Allowed values (playbook `inputs[].enum`); a list input's elements each. */
  enum: z.array(z.unknown()).optional(),
});
export type PlanInput = z.infer<typeof PlanInputSchema>;

export const PlanGraphSchema = z.object({
  /** IR version, for readers of stored plans. */
  irVersion: z.literal(1).default(1),
  /** Plan version within a run; replans increment it. */
  version: z.number().int().positive().default(1),
  id: z.string().optional(),
  name: z.string().optional(),
  /** Where the plan came from: playbook | workflow_steps | planner | master_agent. */
  provenance: z
    .object({
      frontEnd: z.enum(['playbook', 'workflow_steps', 'planner', 'master_agent']),
      sourceId: z.string().optional(),
      sourceVersion: z.string().optional(),
    })
    .optional(),
  executionMode: z.enum(['deterministic', 'llm_augmented', 'hybrid']).default('hybrid'),
  runContext: z.enum(['interactive', 'background', 'scheduled', 'monitor']).default('interactive'),
  approvalPolicy: z.enum(['require', 'auto_approve']).default('require'),
  inputs: z.array(PlanInputSchema).default([]),
  nodes: z.array(PlanNodeSchema).min(1, 'a plan needs at least one node'),
  /** Output block of the source document, passed through for the output router. */
  output: z.record(z.string(), z.unknown()).optional(),
  /** Anything else of the source the runtime needs (monitor_config, triggers, …). */
  metadata: z.record(z.string(), z.unknown()).default({}),
});
export type PlanGraph = z.infer<typeof PlanGraphSchema>;
