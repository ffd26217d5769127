/**
 * Request bodies of the agent profile routes. The planner parses a profile
 * with its own schema (the only place its rules live) and answers 400 with
 * each field path; here the body is checked to be a JSON object and the
 * document says which fields there are.
 */
import { z } from 'zod';

const config = z.record(z.string(), z.unknown());
/** An enum the planner checks (400 `unknown_strategy` etc.); listed here for the document only. */
const oneOf = (values: readonly string[], what = '') => z.string().describe(`${what}${what ? ' ' : ''}One of: ${values.join(', ')}`);

/** A profile (POST: name and handle required; PUT: only what changes). Unknown fields are 400. */
export const ProfileBodySchema = z
  .object({
    name: z.string().describe('Display name').optional(),
    handle: z.string().describe("The @mention name: lowercase letters, digits, _ and -; unique among your agents; no spaces or '@'").optional(),
    description: z.string().optional(),
    icon: z.string().describe('An emoji or icon name').optional(),
    is_active: z.boolean().optional(),
    strategy: oneOf(['auto', 'playbook', 'research', 'direct', 'pipeline'], 'auto: chosen per message (select_strategy); the others force one.').optional(),
    model_preference: z.string().optional(),
    max_research_rounds: z.number().int().optional(),
    system_prompt_additions: z.string().optional(),
    knowledge_config: config.describe('read_collections, write_collection, graph_namespaces, auto_enrich, entity_resolution').optional(),
    output_config: config.describe('auto_enrich_graph, auto_save, destinations [{type, format?, config?}]').optional(),
    default_execution_mode: oneOf(['deterministic', 'llm_augmented', 'hybrid']).optional(),
    default_run_context: oneOf(['interactive', 'background', 'scheduled', 'monitor']).optional(),
    default_approval_policy: oneOf(['require', 'auto_approve']).optional(),
    journal_config: config.describe('auto_journal, detail_level (minimal | summary | detailed), retention_days').optional(),
    team_config: config.describe('team_file_access, team_post_access, team_permissions').optional(),
    skills: z.array(config).describe("Built-in skills [{skill_type: 'built_in', skill_reference: research | knowledge_builder, priority?, parameters?, is_enabled?}]; playbooks are attached at /profiles/{id}/playbooks").optional(),
  })
  .loose();

/** Overrides for a copy or a profile from a template: any profile field (handle, name, …). */
export const ProfileOverridesSchema = ProfileBodySchema;

export const AttachPlaybookSchema = z.strictObject({
  playbook_id: z.string().min(1, 'is required').max(200),
  priority: z.number().int().min(-1000).max(1000).default(0),
  parameters: z.record(z.string(), z.unknown()).default({}),
});

const shareSettings = {
  access_level: z.enum(['use', 'edit']).describe('use: members may mention and run it; edit: also change its settings').optional(),
  team_file_access: z.boolean().optional(),
  team_post_access: z.boolean().optional(),
  journal_visibility: z.enum(['own_only', 'own_and_scheduled', 'full']).optional(),
  is_active: z.boolean().optional(),
};

export const ShareSchema = z.strictObject({ team_id: z.string().min(1, 'is required').max(100), ...shareSettings });
export const UpdateShareSchema = z.strictObject(shareSettings);
