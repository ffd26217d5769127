/**
 * Playbook YAML (seed agent-factory-architecture.md §5 "Full Specification")
 * as zod schemas, names exactly as the seed writes them. Objects are strict:
 * a misspelt key (`ouput_key`) is an `unknown_field` error with the nearest
 * allowed key, not silently ignored. Cross-field rules (which fields go with
 * which step_type) live in the compiler, where they can name the step.
 */
import { z } from 'zod';

/** Step names and output keys must be usable as reference roots (`{name.field}`). */
export const STEP_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

export const INPUT_TYPES = ['string', 'number', 'date', 'entity_name', 'list'] as const;
export const MONITOR_INTERVALS = ['5m', '15m', '30m', '1h', '4h', '12h', '24h'] as const;
export const STEP_TYPES = ['tool', 'llm_task', 'approval'] as const;
export const OPERATION_TYPES = ['filter', 'sort', 'aggregate', 'deduplicate', 'limit'] as const;
export const FILTER_OPERATORS = ['eq', 'gt', 'lt', 'gte', 'lte', 'contains', 'in'] as const;

const name = (what: string) => z.string().regex(STEP_NAME, `${what} must start with a letter or _ and contain only letters, digits, _ and -`);

export const PlaybookInputSchema = z.strictObject({
  name: z.string().regex(IDENT, 'must be an identifier (letters, digits, _)'),
  type: z.enum(INPUT_TYPES).default('string'),
  description: z.string().optional(),
  required: z.boolean().default(false),
  default: z.unknown().optional(),
  extract_from: z.enum(['query']).optional(),
  /** The values a run may give (checked at run start, as the type is). */
  enum: z.array(z.union([z.string(), z.number()])).min(1, 'list at least one value').optional(),
});

export const TriggerSchema = z.strictObject({
  pattern: z.string().min(1),
  type: z.enum(['keyword', 'regex', 'semantic']).default('keyword'),
  priority: z.number().int().default(0),
});

export const MonitorConfigSchema = z.strictObject({
  interval: z.enum(MONITOR_INTERVALS),
  active_hours: z
    .strictObject({
      start: z.string().regex(HHMM, 'must be HH:MM (24h)'),
      end: z.string().regex(HHMM, 'must be HH:MM (24h)'),
      timezone: z.string().min(1).default('UTC'),
    })
    .optional(),
  suppress_if_empty: z.boolean().default(true),
});

export const OutputSchemaFieldSchema = z.strictObject({
  name: z.string().regex(IDENT, 'must be an identifier (letters, digits, _)'),
  type: z.string().min(1),
  description: z.string().optional(),
});

export const StepOutputSchemaSchema = z.strictObject({
  type: z.enum(['object', 'record_set', 'scalar']).default('object'),
  fields: z.array(OutputSchemaFieldSchema).min(1, 'declare at least one field'),
});
export type StepOutputSchema = z.infer<typeof StepOutputSchemaSchema>;

export const OperationSchema = z.strictObject({
  type: z.enum(OPERATION_TYPES),
  field: z.string().min(1).optional(),
  operator: z.string().min(1).optional(),
  value: z.unknown().optional(),
  direction: z.enum(['asc', 'desc']).optional(),
});
export type Operation = z.infer<typeof OperationSchema>;

/** Team ids are the gateway's `teams.id` (UUIDs); listing one twice is a mistake, not a no-op. */
const TeamIdsSchema = z
  .array(z.uuid('must be a team id (a UUID, as GET /api/v1/teams lists them)'))
  .min(1, 'list at least one team id')
  .superRefine((ids, ctx) => {
    ids.forEach((id, i) => {
      const first = ids.findIndex((x) => x.toLowerCase() === id.toLowerCase());
      if (first < i) ctx.addIssue({ code: 'custom', path: [i], message: `team '${id}' is already listed at team_ids[${first}]` });
    });
  });

const stepFields = {
  name: name('a step name'),
  description: z.string().optional(),
  step_type: z.enum(STEP_TYPES).optional(),
  inputs: z.record(z.string(), z.unknown()).optional(),
  params: z.record(z.string(), z.unknown()).optional(),
  output_key: name('an output_key').optional(),
  action: z.string().min(1).optional(),
  connector: z.string().min(1).optional(),
  endpoint: z.string().min(1).optional(),
  operations: z.array(OperationSchema).optional(),
  output_schema: StepOutputSchemaSchema.optional(),
  preview_from: z.string().min(1).optional(),
  preview_limit: z.number().int().positive().optional(),
  prompt: z.string().optional(),
  timeout_minutes: z.number().int().positive().optional(),
  on_reject: z.enum(['stop', 'skip']).optional(),
  /** Members of `team_ids` may decide the approval too (issue 6); the run's owner always may. */
  allow_team_decisions: z.boolean().optional(),
  team_ids: TeamIdsSchema.optional(),
  condition: z.string().min(1).optional(),
  on_error: z.enum(['skip', 'stop', 'retry']).optional(),
  timeout_seconds: z.number().int().positive().optional(),
  retry_count: z.number().int().min(0).max(10).optional(),
};

/** A sub-step of `parallel_steps` (no nesting). */
export const SubStepSchema = z.strictObject(stepFields);
export type PlaybookSubStep = z.infer<typeof SubStepSchema>;

export const StepSchema = z.strictObject({ ...stepFields, parallel_steps: z.array(SubStepSchema).min(1).optional() });
export type PlaybookStep = z.infer<typeof StepSchema>;

export const OutputBlockSchema = z.strictObject({
  format: z.enum(['markdown', 'json', 'csv', 'structured']).default('markdown'),
  template: z.string().optional(),
  sections: z
    .array(z.strictObject({ title: z.string().min(1), source: z.string().min(1), format: z.enum(['markdown', 'json', 'csv', 'structured']).optional() }))
    .optional(),
  auto_enrich_graph: z.boolean().optional(),
  save_to: z.enum(['document', 'workspace', 'both', 'none']).optional(),
  summary_prompt: z.string().optional(),
});

export const PlaybookSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'must be kebab-case'),
  name: z.string().min(1),
  description: z.string().optional(),
  version: z.union([z.string().min(1), z.number()]).optional(),
  category: z.string().optional(),
  required_connectors: z.array(z.string().min(1)).default([]),
  execution_mode: z.enum(['deterministic', 'llm_augmented', 'hybrid']).default('hybrid'),
  run_context: z.enum(['interactive', 'background', 'scheduled', 'monitor']).default('interactive'),
  monitor_config: MonitorConfigSchema.optional(),
  approval_policy: z.enum(['require', 'auto_approve']).default('require'),
  triggers: z.array(TriggerSchema).default([]),
  inputs: z.array(PlaybookInputSchema).default([]),
  steps: z.array(StepSchema).min(1, 'a playbook needs at least one step'),
  output: OutputBlockSchema.optional(),
});
export type Playbook = z.infer<typeof PlaybookSchema>;

/** Allowed keys at a document path, for `unknown_field` suggestions. */
export function allowedPlaybookKeys(path: ReadonlyArray<PropertyKey>): string[] | undefined {
  const p = path.filter((k) => typeof k !== 'number').join('.');
  const map: Record<string, string[]> = {
    '': Object.keys(PlaybookSchema.shape),
    steps: Object.keys(StepSchema.shape),
    'steps.parallel_steps': Object.keys(SubStepSchema.shape),
    'steps.output_schema': ['type', 'fields'],
    'steps.parallel_steps.output_schema': ['type', 'fields'],
    'steps.output_schema.fields': ['name', 'type', 'description'],
    'steps.operations': Object.keys(OperationSchema.shape),
    'steps.parallel_steps.operations': Object.keys(OperationSchema.shape),
    inputs: Object.keys(PlaybookInputSchema.shape),
    triggers: Object.keys(TriggerSchema.shape),
    monitor_config: Object.keys(MonitorConfigSchema.shape),
    'monitor_config.active_hours': ['start', 'end', 'timezone'],
    output: Object.keys(OutputBlockSchema.shape),
    'output.sections': ['title', 'source', 'format'],
  };
  return map[p];
}
