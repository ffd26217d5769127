/** Request bodies of the REST API: parsed here and documented in /api/docs from the same schemas. */
import { z } from 'zod';
import { DeleteAccountSchema, LoginSchema, RegisterSchema } from '../domain/credentials.js';

export { DeleteAccountSchema, LoginSchema, RegisterSchema };

/** POST /api/auth/stream-token: the SSE route the token is for. */
export const StreamTokenSchema = z.strictObject({
  path: z.string().min(1, 'is required').max(300),
});

/**
 * Where a run's plan comes from: exactly one of them. `yaml` is playbook YAML
 * (the same field as in /playbooks and /playbooks/validate; `playbook` is its
 * deprecated name, renamed before parsing, see deprecatedField).
 */
export const RUN_SOURCES = ['yaml', 'playbook_id', 'workflow_steps', 'plan'] as const;

export const StartRunSchema = z
  .strictObject({
    /** Playbook YAML. */
    yaml: z.string().min(1, 'must be playbook YAML').optional(),
    /** A stored playbook of yours (its latest version, or `playbook_revision`). */
    playbook_id: z.string().min(1).optional(),
    playbook_revision: z.number().int().min(1).optional(),
    /** `workflow_steps` JSON: the steps array, compiled by the planner (errors name `workflow_steps[i].…`). */
    workflow_steps: z.array(z.unknown()).min(1, 'a workflow needs at least one step').optional(),
    /** A PlanGraph in the IR's JSON shape, validated by the planner (errors name `plan.…`; a cycle names its nodes). */
    plan: z.record(z.string(), z.unknown()).optional(),
    inputs: z.record(z.string(), z.unknown()).default({}),
    run_context: z.enum(['interactive', 'background', 'scheduled', 'monitor']).optional(),
    /** OutputContract: {schema: JSON Schema, mode?, hints?, constraints?}; the final output is validated on completion. */
    output_contract: z.object({ schema: z.record(z.string(), z.unknown()) }).loose().optional(),
    /** Goal conditions [{facet, path, condition: {dsl | jsonLogic}}], reported on completion. */
    goal_condition: z.array(z.record(z.string(), z.unknown())).max(100).default([]),
    /** Runtime policies [{id, enabled?, trigger: {kind, …}, action: {type, …}}] (validated by the orchestrator). */
    policies: z.array(z.record(z.string(), z.unknown())).max(50).default([]),
  })
  .superRefine((b, ctx) => {
    const given = RUN_SOURCES.filter((k) => b[k] !== undefined);
    if (given.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['yaml'], message: `is required: give exactly one of ${RUN_SOURCES.join(', ')}` });
    }
    for (const extra of given.slice(1)) {
      ctx.addIssue({ code: 'custom', path: [extra], message: `give exactly one of ${RUN_SOURCES.join(', ')}, not both ${given[0]} and ${extra}` });
    }
    if (b.playbook_revision !== undefined && b.playbook_id === undefined) {
      ctx.addIssue({ code: 'custom', path: ['playbook_revision'], message: 'is only meaningful with playbook_id' });
    }
  });

export const CreateConnectorSchema = z
  .object({
    yaml: z.string().min(1).optional(),
    definition: z.record(z.string(), z.unknown()).optional(),
    credentials: z.record(z.string(), z.string()).default({}),
  })
  .refine((b) => (b.yaml === undefined) !== (b.definition === undefined), {
    message: 'give exactly one of yaml or definition',
    path: ['yaml'],
  });

export const UpdateConnectorSchema = z
  .object({
    yaml: z.string().min(1).optional(),
    definition: z.record(z.string(), z.unknown()).optional(),
    credentials: z.record(z.string(), z.string()).default({}),
  })
  .refine((b) => (b.yaml === undefined) !== (b.definition === undefined), {
    message: 'give exactly one of yaml or definition',
    path: ['yaml'],
  });

export const ValidateConnectorSchema = z.object({
  yaml: z.string().min(1).optional(),
  definition: z.record(z.string(), z.unknown()).optional(),
});

export const TestConnectorSchema = z.object({
  endpoint: z.string().min(1, 'is required'),
  inputs: z.record(z.string(), z.unknown()).default({}),
  /** Try credentials before saving them; they override the stored ones for this call only. */
  credentials: z.record(z.string(), z.string()).default({}),
});

export const TestInlineConnectorSchema = TestConnectorSchema.extend({
  yaml: z.string().min(1).optional(),
  definition: z.record(z.string(), z.unknown()).optional(),
}).refine((b) => (b.yaml === undefined) !== (b.definition === undefined), {
  message: 'give exactly one of yaml or definition',
  path: ['yaml'],
});

export const FromTemplateSchema = z.object({
  credentials: z.record(z.string(), z.string()).default({}),
  connector_id: z.string().optional(),
  /** Replace a connector of yours with that id (without it: 409 naming connector_id). */
  overwrite: z.boolean().optional(),
});

export const BindConnectorSchema = z.object({
  config_overrides: z.record(z.string(), z.unknown()).default({}),
  allowed_endpoints: z.array(z.string()).default([]),
  rate_limit_per_minute: z.number().min(0).default(0),
  credentials: z.record(z.string(), z.string()).default({}),
  disabled: z.boolean().default(false),
});

export const EnablePluginSchema = z.object({
  config: z.record(z.string(), z.string()).default({}),
});

/** POST /playbooks, PUT /playbooks/:id, POST /playbooks/validate: the playbook YAML. */
export const PlaybookYamlSchema = z.strictObject({ yaml: z.string().min(1, 'must be playbook YAML') });

/** POST /playbooks/:id/validate: the stored playbook, or YAML meant to replace it (its id must be the path's). */
export const ValidateStoredPlaybookSchema = z.strictObject({ yaml: z.string().min(1, 'must be playbook YAML').optional() });

/**
 * POST /playbooks/:id/test: a dry run of the stored playbook with sample
 * inputs. Side-effecting steps are skipped (reason `dry_run`, would-be inputs
 * on their frame) unless `allow_side_effects: true`.
 */
export const TestPlaybookSchema = z.strictObject({
  inputs: z.record(z.string(), z.unknown()).default({}),
  allow_side_effects: z.boolean().default(false),
  playbook_revision: z.number().int().min(1).optional(),
});

export const ResumeRunSchema = z.object({
  node_id: z.string().min(1).optional(),
  decision: z.enum(['approve', 'reject']).optional(),
  instructions: z.string().max(10_000).optional(),
});

/**
 * POST /runs/:id/replan: plan version N+1 of an unfinished run. `yaml`
 * (playbook YAML) is compiled into the new plan; without it the version of
 * the stored playbook the run started with is compiled again. Completed steps
 * must stay as they were.
 */
export const ReplanRunSchema = z.object({
  /** Playbook YAML (`playbook` is its deprecated name). */
  yaml: z.string().min(1, 'must be playbook YAML').optional(),
  rationale: z.string().max(2000).optional(),
  /** A runtime policy with trigger `manual` and action `replan`, on whose behalf the replan happens. */
  policy_id: z.string().min(1).max(64).optional(),
  /** Refuse unless the run is at this plan version. */
  expected_plan_version: z.number().int().min(1).optional(),
});

export const RUN_STATUS_NAMES = ['queued', 'running', 'completed', 'failed', 'cancelled', 'paused', 'waiting'] as const;
/** What a run did, beside its status (see README "How a run executes"). */
export const TASK_STATUS_NAMES = ['complete', 'partial', 'error', 'awaiting_approval'] as const;

export const ListRunsQuery = z.object({
  status: z
    .string()
    .optional()
    .transform((v) => (v ? v.split(',').map((x) => x.trim()) : []))
    .pipe(z.array(z.enum(RUN_STATUS_NAMES))),
  /** `task_status=partial,error`: only runs whose task status is one of these. */
  task_status: z
    .string()
    .optional()
    .transform((v) => (v ? v.split(',').map((x) => x.trim()) : []))
    .pipe(z.array(z.enum(TASK_STATUS_NAMES))),
  page_size: z.coerce.number().int().min(1).max(200).optional(),
  page_token: z.string().max(500).optional(),
  /** Only runs of this agent profile (one you may see: 404 otherwise). */
  agent_profile_id: z.string().min(1).max(200).optional(),
  /** Only runs started from this playbook (a stored one by its id, or YAML with that `id`). */
  playbook_id: z.string().min(1).max(200).optional(),
});

/**
 * The provider's redirect to the OAuth callback (RFC 6749 §4.1.2): `code`
 * and `state`, or `error` (and its description). Providers add parameters of
 * their own (scope, authuser, …), so unknown ones are ignored here.
 */
export const OAuthCallbackQuery = z.object({
  state: z.string().min(1, 'is required (the provider sends back the state it was given)').max(512),
  code: z.string().min(1).max(4096).optional(),
  error: z.string().max(200).optional(),
  error_description: z.string().max(2000).optional(),
});
