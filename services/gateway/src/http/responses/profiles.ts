/** Answers of the agent profile routes (/api/agent-factory/profiles, teams/{id}/agents, resolve-handle, available-agents). */
import { z } from 'zod';
import { component, JsonObject, timestamp } from './common.js';

/** A wire string the planner fills ('' → null in the view). */
const orNull = (description?: string) => (description ? z.string().nullable().meta({ description }) : z.string().nullable());

export const ProfileSkill = component(
  'ProfileSkill',
  z.strictObject({
    id: z.string(),
    skill_type: z.string().meta({ description: 'built_in | playbook' }),
    skill_reference: z.string().meta({ description: 'A built-in skill\'s name, or the playbook id' }),
    priority: z.number().int(),
    parameters: JsonObject,
    is_enabled: z.boolean(),
    created_at: timestamp,
  }),
  { description: 'A skill of an agent profile: a built-in skill or an attached playbook' },
);

export const AgentProfile = component(
  'AgentProfile',
  z.strictObject({
    id: z.string(),
    owner_user_id: z.string(),
    name: z.string(),
    handle: z.string().meta({ description: 'The @mention name' }),
    description: orNull(),
    icon: orNull(),
    is_active: z.boolean(),
    strategy: z.string().meta({ description: 'auto | playbook | research | direct | pipeline' }),
    model_preference: orNull(),
    max_research_rounds: z.number().int(),
    system_prompt_additions: orNull(),
    knowledge_config: JsonObject,
    output_config: JsonObject,
    default_execution_mode: z.string().meta({ description: 'deterministic | llm_augmented | hybrid' }),
    default_run_context: z.string().meta({ description: 'interactive | background | scheduled | monitor' }),
    default_approval_policy: z.string().meta({ description: 'require | auto_approve' }),
    journal_config: JsonObject,
    team_config: JsonObject.meta({ description: 'Team settings; shared_with_teams is filled from the active shares' }),
    skills: z.array(ProfileSkill),
    playbooks: z.array(z.string()).meta({ description: 'Ids of the attached playbooks' }),
    access: z.string().meta({ description: 'How you reach it: owner | team' }),
    team_id: orNull('The team it is shared with you through (null for the owner)'),
    permissions: z.array(z.string()).meta({ description: 'What you may do with it: view, run, edit, bind, delete, share' }),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  { description: 'An agent profile, with how you reach it and what you may do with it' },
);

export const ProfileShare = component(
  'ProfileShare',
  z.strictObject({
    agent_profile_id: z.string(),
    team_id: z.string(),
    shared_by: z.string(),
    access_level: z.string().meta({ description: 'use | edit' }),
    team_file_access: z.boolean(),
    team_post_access: z.boolean(),
    journal_visibility: z.string().meta({ description: 'own_only | own_and_scheduled | full' }),
    is_active: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  { description: 'An agent profile shared with a team' },
);

export const ProfileTemplate = component(
  'ProfileTemplate',
  z.strictObject({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    icon: z.string(),
    profile: JsonObject.meta({ description: 'The profile fields a new profile gets (handle: the template id unless given)' }),
    data_sources: z.array(z.string()).meta({ description: 'Connector ids the template is meant to be bound to' }),
    playbooks: z.array(z.string()).meta({ description: 'Playbook ids the template is meant to run' }),
  }),
  { description: 'A pre-built agent profile template' },
);

export const AvailableAgent = component(
  'AvailableAgent',
  z.strictObject({
    agent_profile_id: z.string(),
    handle: z.string(),
    name: z.string(),
    icon: orNull(),
    description: orNull(),
    source: z.string().meta({ description: 'own | team' }),
    team_id: z.string().optional().meta({ description: 'With source team: the team it is shared through' }),
    team_name: z.string().nullable().optional().meta({ description: 'With source team: that team\'s name (null when unknown)' }),
  }),
  { description: 'An agent you may @mention' },
);

export const ProfileAnswer = z.strictObject({ profile: AgentProfile });
export const ProfileList = z.strictObject({ profiles: z.array(AgentProfile) });
export const ProfileTemplateList = z.strictObject({ templates: z.array(ProfileTemplate) });
export const ProfileFromTemplate = z.strictObject({
  profile: AgentProfile,
  connectors_to_bind: z.array(z.string()).meta({ description: 'The template\'s connectors you still have to bind' }),
  playbooks_to_attach: z.array(z.string()).meta({ description: 'The template\'s playbooks you still have to attach' }),
});
export const ProfilePlaybooks = z.strictObject({ playbooks: z.array(ProfileSkill) });
export const PlaybookAttached = z.strictObject({
  profile: AgentProfile,
  warnings: z.array(z.string()).meta({ description: 'Why connectors were not checked, when connector-runtime could not be asked' }),
});
export const ProfileShareAnswer = z.strictObject({ share: ProfileShare });
export const ProfileShareList = z.strictObject({ shares: z.array(ProfileShare) });
export const AvailableAgentList = z.strictObject({ agents: z.array(AvailableAgent) });
export const ResolvedHandle = z.strictObject({
  agent_profile_id: z.string(),
  handle: z.string(),
  name: z.string(),
  icon: orNull(),
  owner: z.string().meta({ description: 'user (your own) | team' }),
  team_id: orNull('The team it is shared with you through (null for your own)'),
});
