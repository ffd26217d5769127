import { parseHandle, parseProfile, parseProfilePatch, PROFILE_STRATEGIES } from './profile.schema.js';

const ok = (input: unknown) => {
  const r = parseProfile(input);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.value;
};
const issues = (input: unknown) => {
  const r = parseProfile(input);
  if (r.ok) throw new Error('expected issues');
  return r.issues;
};

describe('profile schema', () => {
  it('fills the table defaults around name and handle', () => {
    expect(ok({ name: 'Researcher', handle: 'researcher' })).toEqual({
      name: 'Researcher',
      handle: 'researcher',
      is_active: true,
      strategy: 'auto',
      max_research_rounds: 3,
      knowledge_config: {},
      output_config: {},
      default_execution_mode: 'hybrid',
      default_run_context: 'interactive',
      default_approval_policy: 'require',
      journal_config: { auto_journal: true, detail_level: 'summary', retention_days: 90 },
      team_config: {},
      skills: [],
    });
  });

  it('keeps every seed field given', () => {
    const p = ok({
      name: 'N',
      handle: 'nonprofit_investigator-2',
      icon: '🔍',
      description: 'd',
      system_prompt_additions: 'be careful',
      strategy: 'research',
      model_preference: 'anthropic/claude',
      max_research_rounds: 5,
      knowledge_config: { read_collections: ['a'], write_collection: 'b', graph_namespaces: ['g'], auto_enrich: true, entity_resolution: false },
      output_config: { auto_enrich_graph: true, destinations: [{ type: 'chat', format: 'markdown' }, { type: 'document', config: { folder_id: 'f' } }] },
      journal_config: { auto_journal: false, detail_level: 'detailed', retention_days: 30 },
      team_config: { team_file_access: true, team_post_access: false, team_permissions: { t1: { file_access: true } } },
      default_execution_mode: 'deterministic',
      default_run_context: 'scheduled',
      default_approval_policy: 'auto_approve',
      skills: [{ skill_type: 'built_in', skill_reference: 'research' }],
    });
    expect(p.strategy).toBe('research');
    expect(p.skills).toEqual([{ skill_type: 'built_in', skill_reference: 'research', priority: 0, parameters: {}, is_enabled: true }]);
    expect(p.journal_config).toEqual({ auto_journal: false, detail_level: 'detailed', retention_days: 30 });
  });

  it('offers auto and the four strategies', () => {
    expect(PROFILE_STRATEGIES).toEqual(['auto', 'playbook', 'research', 'direct', 'pipeline']);
    for (const s of PROFILE_STRATEGIES) expect(ok({ name: 'n', handle: 'h', strategy: s }).strategy).toBe(s);
  });

  it('refuses an unknown strategy naming the field', () => {
    const [i] = issues({ name: 'n', handle: 'h', strategy: 'magic' });
    expect(i).toMatchObject({ field: 'strategy', code: 'unknown_strategy' });
    expect(i!.reason).toMatch(/auto/);
  });

  it.each([
    ['my agent', /spaces/],
    ['@agent', /'@'/],
    ['ag@ent', /'@'/],
    ['Agent', /lowercase.*'agent'/],
    ['-agent', /start with a letter or digit/],
    ['agent.x', /only lowercase letters, digits/],
    ['', /required/],
    ['a'.repeat(101), /longer than 100/],
  ])('refuses handle %j', (handle, reason) => {
    const [i] = issues({ name: 'n', handle });
    expect(i).toMatchObject({ field: 'handle', code: 'invalid_handle' });
    expect(i!.reason).toMatch(reason);
    expect(parseHandle(handle)).toMatchObject({ ok: false });
  });

  it.each(['a', '0', 'a_b-c', 'x'.repeat(100)])('accepts handle %j', (handle) => {
    expect(parseHandle(handle)).toEqual({ ok: true, value: handle });
  });

  it('names missing and wrongly typed fields with their path', () => {
    expect(issues({ handle: 'h' })).toEqual([expect.objectContaining({ field: 'name' })]);
    expect(issues({ name: '  ', handle: 'h' })[0]).toMatchObject({ field: 'name', reason: 'is required' });
    expect(issues({ name: 'n', handle: 'h', max_research_rounds: 0 })[0]).toMatchObject({ field: 'max_research_rounds' });
    expect(issues({ name: 'n', handle: 'h', journal_config: { retention_days: 'x' } })[0]).toMatchObject({ field: 'journal_config.retention_days' });
    expect(issues({ name: 'n', handle: 'h', output_config: { destinations: [{ format: 'md' }] } })[0]).toMatchObject({ field: 'output_config.destinations[0].type' });
    expect(issues({ name: 'n', handle: 'h', skills: [{ skill_type: 'macro', skill_reference: 'research' }] })[0]).toMatchObject({ field: 'skills[0].skill_type' });
    expect(issues({ name: 'n', handle: 'h', skills: [{ skill_type: 'playbook', skill_reference: 'pb' }] })[0]!.reason).toMatch(/attach playbooks with POST/);
    expect(issues({ name: 'n', handle: 'h', skills: [{ skill_type: 'built_in', skill_reference: 'juggling' }] })[0]).toMatchObject({ field: 'skills[0].skill_reference', reason: 'is not a built-in skill (research, knowledge_builder)' });
    expect(issues({ name: 'n', handle: 'h', default_run_context: 'sometimes' })[0]).toMatchObject({ field: 'default_run_context' });
  });

  it("refuses output destinations the output router would refuse, naming the field", () => {
    const bad = (destinations: unknown[]) => issues({ name: 'n', handle: 'h', output_config: { destinations } });
    expect(bad([{ type: 'telegram' }])[0]).toMatchObject({ field: 'output_config.destinations[0].type', reason: expect.stringContaining('unknown destination type') });
    expect(bad([{ type: 'chat' }, { type: 'data_workspace_table', config: { table_name: 't' } }])[0]).toMatchObject({ field: 'output_config.destinations[1].config.schema_mapping', reason: expect.stringContaining('is required') });
    expect(bad([{ type: 'data_workspace_table', config: { table_name: 'Bad Name', schema_mapping: 'infer' } }])[0]).toMatchObject({ field: 'output_config.destinations[0].config.table_name' });
    expect(bad([{ type: 'data_workspace_table', config: { table_name: 't', schema_mapping: { a: 'VARCHAR2' } } }])[0]).toMatchObject({ field: 'output_config.destinations[0].config.schema_mapping.a' });
    expect(bad([{ type: 'document', config: { filename_template: 'x_{entity_name}_{date}' } }])[0]).toMatchObject({
      field: 'output_config.destinations[0].config.filename_template',
      reason: expect.stringContaining('{entity_name}'),
    });
    expect(bad([{ type: 'document', config: { filename_template: 'x_{date' } }])[0]).toMatchObject({ field: 'output_config.destinations[0].config.filename_template' });
    expect(
      parseProfile({ name: 'n', handle: 'h', output_config: { destinations: [{ type: 'document', config: { folder: 'R', filename_template: 'r_{date}_{run_id}' } }, { type: 'data_workspace_table', config: { table_name: 't', schema_mapping: { a: 'TEXT', b: 'REAL' } } }] } }),
    ).toMatchObject({ ok: true });
  });

  it('refuses unknown keys by name, nested too', () => {
    expect(issues({ name: 'n', handle: 'h', sytem_prompt: 'x' })[0]).toEqual({ field: 'sytem_prompt', reason: "unknown field 'sytem_prompt'", code: 'unknown_field' });
    expect(issues({ name: 'n', handle: 'h', knowledge_config: { auto_enrch: true } })[0]).toMatchObject({ field: 'knowledge_config.auto_enrch', code: 'unknown_field' });
  });

  it('refuses a body that is not an object', () => {
    expect(parseProfile(null)).toMatchObject({ ok: false, issues: [{ field: '(body)' }] });
    expect(parseProfile([1])).toMatchObject({ ok: false });
  });

  it('patches take only what is given, with the same rules', () => {
    expect(parseProfilePatch({})).toEqual({ ok: true, value: {} });
    expect(parseProfilePatch({ description: 'x' })).toEqual({ ok: true, value: { description: 'x' } });
    expect(parseProfilePatch({ handle: 'a b' })).toMatchObject({ ok: false, issues: [{ field: 'handle' }] });
    expect(parseProfilePatch({ strategy: 'nope' })).toMatchObject({ ok: false, issues: [{ field: 'strategy', code: 'unknown_strategy' }] });
    expect(parseProfilePatch({ nme: 'x' })).toMatchObject({ ok: false, issues: [{ field: 'nme', code: 'unknown_field' }] });
  });
});
