import { parseDestinations } from '@af/plan';
import { parseProfile } from './profile.schema.js';
import { findTemplate, PROFILE_TEMPLATES, profileFromTemplate } from './templates.js';

describe('profile templates', () => {
  it('are the three templates', () => {
    expect(PROFILE_TEMPLATES.map((t) => [t.id, t.profile.name, t.profile.icon])).toEqual([
      ['nonprofit-investigator', 'Nonprofit Investigator', '🔍'],
      ['political-finance-tracker', 'Political Finance Tracker', '🏛️'],
      ['corporate-intelligence-analyst', 'Corporate Intelligence Analyst', '🏢'],
    ]);
  });

  it.each(PROFILE_TEMPLATES.map((t) => [t.id, t] as const))('%s is a valid profile with its connectors, playbooks and research skill', (_id, t) => {
    const parsed = parseProfile(profileFromTemplate(t, {}));
    expect(parsed).toMatchObject({ ok: true, value: { handle: t.id } });
    expect(t.data_sources.length).toBeGreaterThanOrEqual(3);
    expect(t.playbooks).toHaveLength(2);
    expect(t.profile.skills).toEqual([expect.objectContaining({ skill_type: 'built_in', skill_reference: 'research' })]);
    expect(t.profile.system_prompt_additions).toMatch(/^You are a/);
    expect((t.profile.output_config.destinations?.[0] as { type: string }).type).toBe('chat');
    expect((t.profile.output_config.destinations?.at(-1) as { type: string }).type).toBe('knowledge_graph');
  });

  it('keeps the nonprofit template whole', () => {
    const t = findTemplate('nonprofit-investigator')!;
    expect(t.data_sources).toEqual(['propublica-nonprofit', 'fec-contributions', 'irs-990-xml', 'opensecrets']);
    expect(t.playbooks).toEqual(['nonprofit-investigation', 'officer-cross-reference']);
    expect(t.profile.knowledge_config).toEqual({ auto_enrich: true, entity_resolution: true, graph_namespaces: ['nonprofit_research'] });
    expect(t.profile.output_config.destinations?.[1]).toEqual({
      type: 'document',
      format: 'markdown',
      config: { folder: 'nonprofit-investigations', filename_template: 'nonprofit_{date}_{time}.md', create_if_missing: true },
    });
    expect(t.profile.system_prompt_additions!.split('\n')).toHaveLength(8);
  });

  it('overrides win and the template is not changed', () => {
    const t = findTemplate('political-finance-tracker')!;
    const p = profileFromTemplate(t, { handle: 'money', name: 'Money' }) as { handle: string; name: string; output_config: { destinations: unknown[] } };
    expect(p).toMatchObject({ handle: 'money', name: 'Money' });
    p.output_config.destinations.length = 0;
    expect(t.profile.output_config.destinations).toHaveLength(3);
  });

  it.each(PROFILE_TEMPLATES.map((t) => [t.id, t] as const))("%s: every destination passes the output router's own check", (_id, t) => {
    const checked = parseDestinations(t.profile.output_config.destinations, 'destinations');
    expect(checked.problems).toEqual([]);
    expect(checked.destinations).toHaveLength(t.profile.output_config.destinations!.length);
  });

  it('an unknown id finds nothing', () => {
    expect(findTemplate('nope')).toBeUndefined();
  });
});
