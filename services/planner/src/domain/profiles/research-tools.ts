/**
 * The built-in actions a `research` answer may call as tools, besides the
 * connector endpoints bound to the agent:
 *
 * - always: `query_journal` (and `write_journal_entry` unless the profile's
 *   `journal_config.auto_journal` is off) — the agent's own journal;
 * - the built-in skills: `research` adds `search_documents` and
 *   `search_knowledge_graph`; `knowledge_builder` adds `extract_entities`,
 *   `resolve_entities` and `cross_reference`;
 * - `knowledge_config.entity_resolution: true` adds `resolve_entities`;
 * - team tools only when granted (teamToolGrants: the profile's `team_config`
 *   and, for a member, the share): `team_file_access` →
 *   `search_team_files`, `read_team_file`; `team_post_access` →
 *   `search_team_posts`, `summarize_team_thread`, `write_team_post`. They act
 *   on the teams the run may reach (`teamIds`); with none, they are withheld.
 *
 * An action no service of the deployment serves is withheld with the reason.
 * Pure.
 */

export const JOURNAL_TOOLS = ['query_journal', 'write_journal_entry'] as const;
const SKILL_TOOLS: Readonly<Record<string, readonly string[]>> = {
  research: ['search_documents', 'search_knowledge_graph'],
  knowledge_builder: ['extract_entities', 'resolve_entities', 'cross_reference'],
};
const FILE_TOOLS = ['search_team_files', 'read_team_file'];
const POST_TOOLS = ['search_team_posts', 'summarize_team_thread', 'write_team_post'];

export interface ResearchToolsInput {
  /** Enabled built-in skills (`skill_reference`). */
  builtInSkills: readonly string[];
  knowledgeConfig: { entity_resolution?: boolean | undefined };
  journalConfig: { auto_journal?: boolean | undefined };
  /** What teamToolGrants allows this run. */
  teamGrants: { files: boolean; posts: boolean };
  /** The teams team tools act on (the share's team for a member; the owner's shared teams that grant it). */
  teamIds: readonly string[];
  /** Whether the deployment runs the action. */
  served: (action: string) => boolean;
}

export interface ResearchActions {
  actions: string[];
  /** Actions the profile asks for that this run does not get, and why (shown in the strategy notes). */
  withheld: Array<{ action: string; reason: string }>;
}

export function researchActions(input: ResearchToolsInput): ResearchActions {
  const wanted: string[] = ['query_journal'];
  if (input.journalConfig.auto_journal !== false) wanted.push('write_journal_entry');
  for (const skill of input.builtInSkills) wanted.push(...(SKILL_TOOLS[skill] ?? []));
  if (input.knowledgeConfig.entity_resolution === true) wanted.push('resolve_entities');
  const withheld: ResearchActions['withheld'] = [];
  const team = [...(input.teamGrants.files ? FILE_TOOLS : []), ...(input.teamGrants.posts ? POST_TOOLS : [])];
  if (team.length && !input.teamIds.length) {
    for (const action of team) withheld.push({ action, reason: 'the agent is not shared with a team this run may reach' });
  } else {
    wanted.push(...team);
  }
  const actions: string[] = [];
  for (const action of new Set(wanted)) {
    if (input.served(action)) actions.push(action);
    else withheld.push({ action, reason: 'no service of this deployment serves it' });
  }
  return { actions, withheld };
}

/** Whether research has anything to research with beyond the agent's own journal. */
export function hasResearchSources(connectorTools: readonly string[], actions: readonly string[]): boolean {
  return connectorTools.length > 0 || actions.some((a) => !(JOURNAL_TOOLS as readonly string[]).includes(a));
}
