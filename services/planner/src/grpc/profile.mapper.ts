/** Wire ⇄ domain for agent profiles, shares and templates. */
import type { profiles } from '@af/contracts';
import type { AvailableAgent, ProfileView } from '../app/profiles.service.js';
import type { Caller } from '../domain/profiles/sharing.js';
import type { ProfileTemplate } from '../domain/profiles/templates.js';
import type { StoredShare } from '../infra/profile.repository.js';
import { toStruct } from './flex.mapper.js';

/** The caller; team ids compare lower-case (as the gateway issues them). */
export function callerOf(p: { userId: string; teamIds: string[] } | undefined): Caller {
  return { userId: p?.userId ?? '', teamIds: (p?.teamIds ?? []).map((t) => t.toLowerCase()) };
}

export function profileToWire(v: ProfileView): profiles.AgentProfile {
  const p = v.profile;
  return {
    id: p.id,
    ownerUserId: p.user_id,
    name: p.name,
    handle: p.handle,
    description: p.description ?? '',
    icon: p.icon ?? '',
    isActive: p.is_active,
    strategy: p.strategy,
    modelPreference: p.model_preference ?? '',
    maxResearchRounds: p.max_research_rounds,
    systemPromptAdditions: p.system_prompt_additions ?? '',
    knowledgeConfig: toStruct(p.knowledge_config),
    outputConfig: toStruct(p.output_config),
    defaultExecutionMode: p.default_execution_mode,
    defaultRunContext: p.default_run_context,
    defaultApprovalPolicy: p.default_approval_policy,
    journalConfig: toStruct(p.journal_config),
    teamConfig: toStruct({ ...p.team_config, shared_with_teams: v.sharedWith }),
    skills: p.skills.map((s) => ({
      id: s.id,
      skillType: s.skill_type,
      skillReference: s.skill_reference,
      priority: s.priority,
      parameters: toStruct(s.parameters),
      isEnabled: s.is_enabled,
      createdAt: new Date(s.created_at).toISOString(),
    })),
    createdAt: p.created_at.toISOString(),
    updatedAt: p.updated_at.toISOString(),
    access: v.access,
    teamId: v.teamId ?? '',
    permissions: [...v.permissions],
  };
}

export function shareToWire(s: StoredShare): profiles.TeamShare {
  return {
    agentProfileId: s.profileId,
    teamId: s.teamId,
    sharedBy: s.sharedBy,
    accessLevel: s.accessLevel,
    teamFileAccess: s.teamFileAccess,
    teamPostAccess: s.teamPostAccess,
    journalVisibility: s.journalVisibility,
    isActive: s.isActive,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

export function templateToWire(t: ProfileTemplate): profiles.ProfileTemplate {
  return { id: t.id, name: t.profile.name, description: t.profile.description ?? '', icon: t.profile.icon ?? '', template: toStruct(t) };
}

export function agentToWire(a: AvailableAgent): profiles.AvailableAgent {
  return { agentProfileId: a.profile.id, handle: a.profile.handle, name: a.profile.name, icon: a.profile.icon ?? '', source: a.source, teamId: a.teamId ?? '', description: a.profile.description ?? '' };
}
