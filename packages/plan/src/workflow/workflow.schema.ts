/**
 * `workflow_steps` JSON (seed workflow-orchestrator-design.md: "Current
 * workflow_steps Format", StepExecutor, ParallelExecutor, ErrorRecovery,
 * Caching) as zod schemas. Strict, so a misspelt key (`dependancies`) is
 * reported instead of silently dropping a dependency.
 */
import { z } from 'zod';

export const WORKFLOW_STEP_TYPES = ['action', 'llm_decision', 'transform', 'delay', 'loop', 'parallel_group', 'conditional'] as const;
export const TRANSFORM_OPERATIONS = ['map', 'filter', 'reduce', 'sort', 'group'] as const;

const STEP_ID = /^[A-Za-z_][A-Za-z0-9_-]*$/;

export const RetryPolicyInputSchema = z.strictObject({
  maxRetries: z.number().int().min(0).max(100).default(3),
  backoffMs: z.number().int().min(0).default(1000),
  backoffMultiplier: z.number().min(1).default(2),
  /** Seed defaults. */
  retryableErrors: z.array(z.string().min(1)).default(['TIMEOUT', 'RATE_LIMIT', 'NETWORK_ERROR', 'ECONNRESET']),
});

export const RollbackActionSchema = z.strictObject({
  plugin: z.string().min(1),
  action: z.string().min(1),
  params: z.record(z.string(), z.unknown()).default({}),
});

const ConditionInput = z.union([z.string().min(1), z.record(z.string(), z.unknown())]);

export interface WorkflowStepInput {
  id: string;
  name?: string | undefined;
  description?: string | undefined;
  type?: (typeof WORKFLOW_STEP_TYPES)[number] | undefined;
  plugin?: string | undefined;
  action?: string | undefined;
  params?: Record<string, unknown> | undefined;
  dependencies?: string[] | undefined;
  condition?: string | Record<string, unknown> | undefined;
  executeIf?: string | Record<string, unknown> | undefined;
  retryPolicy?: z.infer<typeof RetryPolicyInputSchema> | undefined;
  fallbackSteps?: WorkflowStepInput[] | undefined;
  continueOnError?: boolean | undefined;
  rollbackOnError?: boolean | undefined;
  rollbackAction?: z.infer<typeof RollbackActionSchema> | undefined;
  cacheKey?: string | undefined;
  cacheTTL?: number | undefined;
  iterateOver?: string | undefined;
  loopSteps?: WorkflowStepInput[] | undefined;
  maxIterations?: number | undefined;
  steps?: WorkflowStepInput[] | undefined;
}

export const WorkflowStepSchema: z.ZodType<WorkflowStepInput> = z.lazy(() =>
  z.strictObject({
    id: z.string().regex(STEP_ID, 'must start with a letter or _ and contain only letters, digits, _ and -'),
    name: z.string().optional(),
    description: z.string().optional(),
    // Seed fallback steps omit the type; they are actions.
    type: z.enum(WORKFLOW_STEP_TYPES).optional(),
    plugin: z.string().min(1).optional(),
    action: z.string().min(1).optional(),
    params: z.record(z.string(), z.unknown()).optional(),
    dependencies: z.array(z.string().min(1)).optional(),
    condition: ConditionInput.optional(),
    executeIf: ConditionInput.optional(),
    retryPolicy: RetryPolicyInputSchema.optional(),
    fallbackSteps: z.array(WorkflowStepSchema).optional(),
    continueOnError: z.boolean().optional(),
    rollbackOnError: z.boolean().optional(),
    rollbackAction: RollbackActionSchema.optional(),
    cacheKey: z.string().min(1).optional(),
    cacheTTL: z.number().int().positive().optional(),
    iterateOver: z.string().min(1).optional(),
    loopSteps: z.array(WorkflowStepSchema).optional(),
    maxIterations: z.number().int().positive().optional(),
    steps: z.array(WorkflowStepSchema).optional(),
  }),
);

/** The column value (an array) or an agent row holding it. */
export const WorkflowDocumentSchema = z.union([
  z.array(WorkflowStepSchema).min(1, 'a workflow needs at least one step'),
  z.looseObject({
    id: z.string().optional(),
    agent_name: z.string().optional(),
    workflow_steps: z.array(WorkflowStepSchema).min(1, 'a workflow needs at least one step'),
    output_schema: z.unknown().optional(),
  }),
]);
