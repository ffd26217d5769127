/**
 * Agent profiles on the wire (the `agent_profiles` columns, snake_case as
 * stored), parsed with zod. Objects are strict so a misspelt key is an error
 * naming it. A profile's `strategy` is `auto` (the runner's select_strategy
 * decides per message) or one of the four strategies, forcing it.
 */
import { RUN_VARIABLES } from '@af/expr';
import { parseDestinations, TEMPLATE_VAR } from '@af/plan';
import { z } from 'zod';

/** How a profile answers a message (the runner's select_strategy outcomes). */
export const STRATEGIES = ['playbook', 'research', 'direct', 'pipeline'] as const;
export type Strategy = (typeof STRATEGIES)[number];
export const PROFILE_STRATEGIES = ['auto', ...STRATEGIES] as const;
export type ProfileStrategy = (typeof PROFILE_STRATEGIES)[number];

export const EXECUTION_MODES = ['deterministic', 'llm_augmented', 'hybrid'] as const;
export const RUN_CONTEXTS = ['interactive', 'background', 'scheduled', 'monitor'] as const;
export const APPROVAL_POLICIES = ['require', 'auto_approve'] as const;
export const JOURNAL_DETAIL_LEVELS = ['minimal', 'summary', 'detailed'] as const;
export const SKILL_TYPES = ['built_in', 'playbook'] as const;
/** Skills that come with the runner (`skill_type: built_in`). */
export const BUILT_IN_SKILLS = ['research', 'knowledge_builder'] as const;

export const HANDLE_MAX = 100;
const HANDLE = /^[a-z0-9][a-z0-9_-]*$/;

/**
 * The @mention name: lowercase letters, digits, `_` and `-`, starting with a
 * letter or digit. The reasons name the usual mistakes (a space, the `@`
 * itself, capitals) rather than only restating the pattern.
 */
export const HandleSchema = z.string().superRefine((value, ctx) => {
  const fail = (message: string) => ctx.addIssue({ code: 'custom', message });
  if (value.length === 0) return fail('is required');
  if (value.length > HANDLE_MAX) return fail(`is longer than ${HANDLE_MAX} characters`);
  if (value.includes('@')) return fail("must not contain '@' (it is how you mention the agent, not part of its handle)");
  if (/\s/.test(value)) return fail('must not contain spaces (use - or _ between words)');
  if (/[A-Z]/.test(value)) return fail(`must be lowercase (did you mean '${value.toLowerCase()}'?)`);
  if (!HANDLE.test(value)) return fail('may contain only lowercase letters, digits, _ and -, and must start with a letter or digit');
});

const shortText = (max: number) => z.string().max(max, `is longer than ${max} characters`);
const ids = z.array(shortText(200)).max(100);

export const KnowledgeConfigSchema = z.strictObject({
  read_collections: ids.optional(),
  write_collection: shortText(200).optional(),
  graph_namespaces: ids.optional(),
  auto_enrich: z.boolean().optional(),
  entity_resolution: z.boolean().optional(),
});

/**
 * Variables a profile's file-name templates may use: the run variables and
 * `{today}`. The orchestrator fills them before the output router sees the
 * template; an agent's answer has no other fields to name a file after.
 */
export const PROFILE_FILENAME_VARIABLES: readonly string[] = ['today', ...RUN_VARIABLES];

/**
 * Destinations are checked by the output router's own rules (`@af/plan`'s
 * `parseDestinations`, the check `route_output` applies), so a profile that
 * saves is one whose output can be delivered; problems name
 * `output_config.destinations[i].…`.
 */
export const OutputConfigSchema = z
  .strictObject({
    auto_enrich_graph: z.boolean().optional(),
    auto_save: z.boolean().optional(),
    destinations: z.array(z.unknown()).max(50).optional(),
  })
  .superRefine((c, ctx) => {
    if (c.destinations === undefined || c.destinations.length === 0) return;
    const parsed = parseDestinations(c.destinations, 'destinations');
    for (const p of parsed.problems) ctx.addIssue({ code: 'custom', path: pathOf(p.field), message: p.reason });
    c.destinations.forEach((d, i) => {
      const template = (d as { config?: { filename_template?: unknown } } | null)?.config?.filename_template;
      if (typeof template !== 'string') return;
      const unknown = [...template.matchAll(TEMPLATE_VAR)].map((m) => m[1]!).filter((v) => !PROFILE_FILENAME_VARIABLES.includes(v));
      if (unknown.length)
        ctx.addIssue({
          code: 'custom',
          path: ['destinations', i, 'config', 'filename_template'],
          message: `unknown template variable${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `{${u}}`).join(', ')} (a profile's file names may use ${PROFILE_FILENAME_VARIABLES.map((v) => `{${v}}`).join(', ')})`,
        });
    });
  });

/** `destinations[1].config.table_name` as a zod path. */
function pathOf(field: string): Array<string | number> {
  return [...field.matchAll(/\[(\d+)\]|([^.[\]]+)/g)].map((m) => (m[1] !== undefined ? Number(m[1]) : m[2]!));
}

export const JournalConfigSchema = z.strictObject({
  auto_journal: z.boolean().default(true),
  detail_level: z.enum(JOURNAL_DETAIL_LEVELS).default('summary'),
  retention_days: z.number().int().min(1).max(3650).default(90),
});

/**
 * File / post access for team tools. Which teams see the agent is kept by
 * the share records (`agent_team_shares`); `shared_with_teams` is filled
 * from them on read and ignored on write.
 */
export const TeamConfigSchema = z.strictObject({
  shared_with_teams: ids.optional(),
  team_file_access: z.boolean().optional(),
  team_post_access: z.boolean().optional(),
  team_permissions: z.record(z.string(), z.strictObject({ file_access: z.boolean().optional(), post_access: z.boolean().optional() })).optional(),
});

export const SkillSchema = z.strictObject({
  skill_type: z.enum(SKILL_TYPES),
  skill_reference: shortText(255).min(1, 'is required'),
  priority: z.number().int().min(-1000).max(1000).default(0),
  parameters: z.record(z.string(), z.unknown()).default({}),
  is_enabled: z.boolean().default(true),
});
export type Skill = z.output<typeof SkillSchema>;

/** Skills given with a profile are built-in ones; playbooks are attached on their own, where rule 5 is checked. */
export const InlineSkillSchema = SkillSchema.extend({
  skill_type: z.literal('built_in', { error: "must be 'built_in' here: attach playbooks with POST /api/agent-factory/profiles/{id}/playbooks" }),
  skill_reference: z.enum(BUILT_IN_SKILLS, { error: `is not a built-in skill (${BUILT_IN_SKILLS.join(', ')})` }),
});

const fields = {
  name: shortText(255).trim().min(1, 'is required'),
  handle: HandleSchema,
  description: shortText(4000).optional(),
  icon: shortText(50).optional(),
  is_active: z.boolean().optional(),
  strategy: z.enum(PROFILE_STRATEGIES),
  model_preference: shortText(255).optional(),
  max_research_rounds: z.number().int().min(1).max(20),
  system_prompt_additions: shortText(20_000).optional(),
  knowledge_config: KnowledgeConfigSchema,
  output_config: OutputConfigSchema,
  default_execution_mode: z.enum(EXECUTION_MODES),
  default_run_context: z.enum(RUN_CONTEXTS),
  default_approval_policy: z.enum(APPROVAL_POLICIES),
  journal_config: JournalConfigSchema,
  team_config: TeamConfigSchema,
  skills: z.array(InlineSkillSchema).max(100),
};

/** A new profile: name and handle are required; everything else has the table's default. */
export const CreateProfileSchema = z.strictObject({
  ...fields,
  is_active: fields.is_active.default(true),
  strategy: fields.strategy.default('auto'),
  max_research_rounds: fields.max_research_rounds.default(3),
  knowledge_config: fields.knowledge_config.default({}),
  output_config: fields.output_config.default({}),
  default_execution_mode: fields.default_execution_mode.default('hybrid'),
  default_run_context: fields.default_run_context.default('interactive'),
  default_approval_policy: fields.default_approval_policy.default('require'),
  journal_config: fields.journal_config.default({ auto_journal: true, detail_level: 'summary', retention_days: 90 }),
  team_config: fields.team_config.default({}),
  skills: fields.skills.default([]),
});
export type ProfileFields = z.output<typeof CreateProfileSchema>;

/** An update names only what changes; a field given replaces the stored one whole. */
export const UpdateProfileSchema = z.strictObject(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.optional()])) as { [K in keyof typeof fields]: z.ZodOptional<(typeof fields)[K]> });
export type ProfilePatch = z.output<typeof UpdateProfileSchema>;

export interface ProfileIssue {
  field: string;
  reason: string;
  code: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; issues: ProfileIssue[] };

/** Parses a create / update body; issues carry the dotted field path. */
export function parseProfile(input: unknown): Parsed<ProfileFields> {
  return toParsed(CreateProfileSchema.safeParse(input));
}

export function parseProfilePatch(input: unknown): Parsed<ProfilePatch> {
  return toParsed(UpdateProfileSchema.safeParse(input));
}

export function parseHandle(input: unknown, field = 'handle'): Parsed<string> {
  const r = HandleSchema.safeParse(input);
  if (r.success) return { ok: true, value: r.data };
  return { ok: false, issues: r.error.issues.map((i) => ({ field, reason: i.message, code: 'invalid_handle' })) };
}

function toParsed<T>(r: z.ZodSafeParseResult<T>): Parsed<T> {
  if (r.success) return { ok: true, value: r.data };
  return { ok: false, issues: r.error.issues.map(issueOf) };
}

function issueOf(i: z.core.$ZodIssue): ProfileIssue {
  const field = i.path.map((p, n) => (typeof p === 'number' ? `[${p}]` : n === 0 ? String(p) : `.${String(p)}`)).join('') || '(body)';
  if (i.code === 'unrecognized_keys') {
    return { field: i.keys.length === 1 ? (field === '(body)' ? i.keys[0]! : `${field}.${i.keys[0]}`) : field, reason: `unknown field${i.keys.length > 1 ? 's' : ''} ${i.keys.map((k) => `'${k}'`).join(', ')}`, code: 'unknown_field' };
  }
  if (i.code === 'invalid_value') return { field, reason: `${i.message}`, code: field === 'strategy' ? 'unknown_strategy' : 'invalid_value' };
  return { field, reason: i.message, code: field === 'handle' ? 'invalid_handle' : 'invalid_field' };
}
