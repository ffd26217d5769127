import { hasResearchSources, researchActions, type ResearchToolsInput } from './research-tools.js';

const base: ResearchToolsInput = { builtInSkills: [], knowledgeConfig: {}, journalConfig: {}, teamGrants: { files: false, posts: false }, teamIds: [], served: () => true };

describe('researchActions', () => {
  it('offers the journal tools always (writing unless auto_journal is off)', () => {
    expect(researchActions(base).actions).toEqual(['query_journal', 'write_journal_entry']);
    expect(researchActions({ ...base, journalConfig: { auto_journal: false } }).actions).toEqual(['query_journal']);
  });

  it('adds the built-in skills\' actions and entity resolution from the knowledge config', () => {
    expect(researchActions({ ...base, builtInSkills: ['research'] }).actions).toEqual(['query_journal', 'write_journal_entry', 'search_documents', 'search_knowledge_graph']);
    expect(researchActions({ ...base, builtInSkills: ['knowledge_builder'], knowledgeConfig: { entity_resolution: true } }).actions).toEqual([
      'query_journal',
      'write_journal_entry',
      'extract_entities',
      'resolve_entities',
      'cross_reference',
    ]);
  });

  it('offers team tools only when granted, and only with a team to act on', () => {
    expect(researchActions({ ...base, teamIds: ['t1'] }).actions).not.toContain('search_team_posts');
    expect(researchActions({ ...base, teamGrants: { files: false, posts: true }, teamIds: ['t1'] }).actions).toEqual(
      expect.arrayContaining(['search_team_posts', 'summarize_team_thread', 'write_team_post']),
    );
    expect(researchActions({ ...base, teamGrants: { files: false, posts: true }, teamIds: ['t1'] }).actions).not.toContain('search_team_files');
    const noTeam = researchActions({ ...base, teamGrants: { files: true, posts: false } });
    expect(noTeam.actions).not.toContain('search_team_files');
    expect(noTeam.withheld).toContainEqual({ action: 'search_team_files', reason: expect.stringContaining('not shared with a team') });
  });

  it('withholds what the deployment does not serve, saying so', () => {
    const out = researchActions({ ...base, builtInSkills: ['research'], served: (a) => a !== 'search_documents' });
    expect(out.actions).not.toContain('search_documents');
    expect(out.withheld).toEqual([{ action: 'search_documents', reason: 'no service of this deployment serves it' }]);
  });
});

describe('hasResearchSources', () => {
  it('needs a connector endpoint or a tool beyond the journal', () => {
    expect(hasResearchSources([], ['query_journal', 'write_journal_entry'])).toBe(false);
    expect(hasResearchSources(['api__search'], [])).toBe(true);
    expect(hasResearchSources([], ['query_journal', 'search_team_posts'])).toBe(true);
  });
});
