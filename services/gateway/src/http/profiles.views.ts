/** Agent profile answers of the REST API (snake_case, as the seed API names them). */
import type { z } from 'zod';
import type { profiles } from '@af/contracts';
import type * as R from './responses/index.js';

export function profileView(p: profiles.AgentProfile): z.infer<typeof R.AgentProfile> {
  return {
    id: p.id,
    owner_user_id: p.ownerUserId,
    name: p.name,
    handle: p.handle,
    description: p.description || null,
    icon: p.icon || null,
    is_active: p.isActive,
    strategy: p.strategy,
    model_preference: p.modelPreference || null,
    max_research_rounds: p.maxResearchRounds,
    system_prompt_additions: p.systemPromptAdditions || null,
    knowledge_config: p.knowledgeConfig ?? {},
    output_config: p.outputConfig ?? {},
    default_execution_mode: p.defaultExecutionMode,
    default_run_context: p.defaultRunContext,
    default_approval_policy: p.defaultApprovalPolicy,
    journal_config: p.journalConfig ?? {},
    team_config: p.teamConfig ?? {},
    skills: p.skills.map(skillView),
    playbooks: p.skills.filter((s) => s.skillType === 'playbook').map((s) => s.skillReference),
    access: p.access,
    team_id: p.teamId || null,
    permissions: p.permissions,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  };
}

export function skillView(s: profiles.ProfileSkill): z.infer<typeof R.ProfileSkill> {
  return { id: s.id, skill_type: s.skillType, skill_reference: s.skillReference, priority: s.priority, parameters: s.parameters ?? {}, is_enabled: s.isEnabled, created_at: s.createdAt };
}

export function shareView(s: profiles.TeamShare): z.infer<typeof R.ProfileShare> {
  return {
    agent_profile_id: s.agentProfileId,
    team_id: s.teamId,
    shared_by: s.sharedBy,
    access_level: s.accessLevel,
    team_file_access: s.teamFileAccess,
    team_post_access: s.teamPostAccess,
    journal_visibility: s.journalVisibility,
    is_active: s.isActive,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}

type TemplateBody = Pick<z.infer<typeof R.ProfileTemplate>, 'profile' | 'data_sources' | 'playbooks'>;

/** The wire template's `template` Struct is the whole template (id, profile, data_sources, playbooks). */
export function templateView(t: profiles.ProfileTemplate): z.infer<typeof R.ProfileTemplate> {
  return { id: t.id, name: t.name, description: t.description, icon: t.icon, ...((t.template ?? {}) as TemplateBody) };
}

/** An agent for the @mention autocomplete; `team_name` when it comes through a team. */
export function availableAgentView(a: profiles.AvailableAgent, teamNames: ReadonlyMap<string, string>): z.infer<typeof R.AvailableAgent> {
  return {
    agent_profile_id: a.agentProfileId,
    handle: a.handle,
    name: a.name,
    icon: a.icon || null,
    description: a.description || null,
    source: a.source,
    ...(a.source === 'team' ? { team_id: a.teamId, team_name: teamNames.get(a.teamId) ?? null } : {}),
  };
}
