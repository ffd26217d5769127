/**
 * The pre-built agent profile templates, as data. Creating a profile from
 * one copies its fields and built-in skills; the connectors to bind and the
 * playbooks to attach are named (`data_sources`, `playbooks`) because they
 * are the user's own objects — the answer says which of them still need
 * binding or attaching rather than inventing them.
 */
import type { ProfileFields } from './profile.schema.js';

export interface ProfileTemplate {
  id: string;
  /** The profile a user gets (handle defaults to the template id). */
  profile: Omit<ProfileFields, 'handle'>;
  /** Connector ids the template is meant to be bound to. */
  data_sources: string[];
  /** Playbook ids the template is meant to run. */
  playbooks: string[];
}

const base = {
  is_active: true,
  strategy: 'auto',
  max_research_rounds: 3,
  default_execution_mode: 'hybrid',
  default_run_context: 'interactive',
  default_approval_policy: 'require',
  journal_config: { auto_journal: true, detail_level: 'summary', retention_days: 90 },
  team_config: {},
  skills: [{ skill_type: 'built_in', skill_reference: 'research', priority: 0, parameters: {}, is_enabled: true }],
} as const satisfies Partial<ProfileFields>;

export const PROFILE_TEMPLATES: readonly ProfileTemplate[] = [
  {
    id: 'nonprofit-investigator',
    data_sources: ['propublica-nonprofit', 'fec-contributions', 'irs-990-xml', 'opensecrets'],
    playbooks: ['nonprofit-investigation', 'officer-cross-reference'],
    profile: {
      ...base,
      skills: [...base.skills],
      name: 'Nonprofit Investigator',
      description: 'Investigate nonprofit organizations — finances, officers, political connections, and funding networks',
      icon: '🔍',
      knowledge_config: { auto_enrich: true, entity_resolution: true, graph_namespaces: ['nonprofit_research'] },
      output_config: {
        auto_enrich_graph: true,
        destinations: [
          { type: 'chat', format: 'markdown' },
          { type: 'document', format: 'markdown', config: { folder: 'nonprofit-investigations', filename_template: 'nonprofit_{date}_{time}.md', create_if_missing: true } },
          { type: 'data_workspace_table', config: { workspace_id: 'research', table_name: 'nonprofit_filings', schema_mapping: 'infer', create_if_missing: true } },
          { type: 'knowledge_graph' },
        ],
      },
      system_prompt_additions: [
        'You are a nonprofit research specialist. When investigating an organization:',
        '1. Always check 990 filings for officer lists and grant recipients',
        '2. Cross-reference officers with FEC contribution records',
        '3. Look for connections between the nonprofit and political committees',
        '4. Track the money: who funds this org, and who does this org fund?',
        '5. Note any officers who appear across multiple related organizations',
        '6. Flag organizations that appear to be pass-throughs (high betweenness, few public activities)',
        '',
      ].join('\n'),
    },
  },
  {
    id: 'political-finance-tracker',
    data_sources: ['fec-contributions', 'opensecrets', 'congress-gov'],
    playbooks: ['contribution-analysis', 'pac-network-mapping'],
    profile: {
      ...base,
      skills: [...base.skills],
      name: 'Political Finance Tracker',
      description: 'Track campaign contributions, PAC activity, and political spending',
      icon: '🏛️',
      knowledge_config: { auto_enrich: true, entity_resolution: true },
      output_config: {
        auto_enrich_graph: true,
        destinations: [
          { type: 'chat' },
          {
            type: 'data_workspace_table',
            config: {
              table_name: 'contributions',
              create_if_missing: true,
              // Type names as SQL writes them; the output router maps TEXT → text, REAL → number, TIMESTAMP → timestamp.
              schema_mapping: { donor_name: 'TEXT', donor_employer: 'TEXT', recipient: 'TEXT', amount: 'REAL', date: 'TIMESTAMP', type: 'TEXT' },
            },
          },
          { type: 'knowledge_graph' },
        ],
      },
      system_prompt_additions: [
        'You are a campaign finance analyst. When researching political money:',
        '1. Track both individual contributions and PAC/committee donations',
        '2. Identify employer patterns (many employees of same company donating = bundling)',
        '3. Note the maximum contribution limits and flag unusually structured donations',
        '4. Look for connections between corporate PACs and individual officers',
        '5. Map committee-to-committee transfers (these often obscure the original source)',
        '',
      ].join('\n'),
    },
  },
  {
    id: 'corporate-intelligence-analyst',
    data_sources: ['sec-edgar', 'opencorporates', 'wikidata'],
    playbooks: ['corporate-structure-analysis', 'board-interlock-mapping'],
    profile: {
      ...base,
      skills: [...base.skills],
      name: 'Corporate Intelligence Analyst',
      description: 'Research corporate structures, ownership, board connections, and regulatory filings',
      icon: '🏢',
      knowledge_config: { auto_enrich: true, entity_resolution: true },
      output_config: {
        auto_enrich_graph: true,
        destinations: [
          { type: 'chat' },
          { type: 'document', config: { folder: 'corporate-research', filename_template: 'corp_{date}_{time}.md' } },
          { type: 'knowledge_graph' },
        ],
      },
      system_prompt_additions: [
        'You are a corporate intelligence analyst. When researching companies:',
        '1. Map the corporate hierarchy (parent, subsidiaries, affiliates)',
        '2. Identify board members and look for board interlocks (same person on multiple boards)',
        '3. Check SEC filings for ownership changes, insider trading, and proxy statements',
        '4. Cross-reference with nonprofit connections (corporate foundations, board overlap)',
        '5. Note the registered agent — shared agents often indicate related entities',
        '',
      ].join('\n'),
    },
  },
];

export function findTemplate(id: string): ProfileTemplate | undefined {
  return PROFILE_TEMPLATES.find((t) => t.id === id);
}

/**
 * The fields of a new profile from a template: the template's, with the
 * caller's `overrides` (handle, name, …) on top. The result still goes
 * through the profile schema like any other create.
 */
export function profileFromTemplate(template: ProfileTemplate, overrides: Record<string, unknown>): Record<string, unknown> {
  return { ...structuredClone(template.profile), handle: template.id, ...overrides };
}
