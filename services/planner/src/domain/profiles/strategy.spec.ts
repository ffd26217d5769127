import { needsResearch, selectStrategy, type StrategyInput, type StrategyPlaybook } from './strategy.js';

const pb = (playbookId: string, executionMode: StrategyPlaybook['executionMode'], patterns: string[] = []): StrategyPlaybook => ({
  playbookId,
  executionMode,
  triggers: patterns.map((pattern) => ({ pattern, type: 'keyword' as const, priority: 0 })),
});
const input = (over: Partial<StrategyInput>): StrategyInput => ({ query: '', strategy: 'auto', playbooks: [], builtInSkills: ['research'], hasModel: true, ...over });

describe('selectStrategy (auto)', () => {
  it('a matched deterministic playbook is a pipeline', () => {
    const out = selectStrategy(input({ query: 'investigate nonprofit Acme', playbooks: [pb('np', 'deterministic', ['investigate nonprofit'])] }));
    expect(out).toMatchObject({ ok: true, strategy: 'pipeline', playbookId: 'np', needsModel: false });
  });

  it('a matched hybrid playbook is the playbook strategy', () => {
    const out = selectStrategy(input({ query: 'investigate nonprofit Acme', playbooks: [pb('other', 'deterministic', ['zzz']), pb('np', 'hybrid', ['investigate nonprofit'])] }));
    expect(out).toMatchObject({ ok: true, strategy: 'playbook', playbookId: 'np', match: { playbookId: 'np' } });
    expect(out.ok && out.reason).toMatch(/trigger 'investigate nonprofit'/);
  });

  it('an llm_augmented playbook needs a model; without one it says so', () => {
    const out = selectStrategy(input({ query: 'go', hasModel: false, playbooks: [pb('llm', 'llm_augmented', ['go'])] }));
    expect(out).toMatchObject({ ok: true, strategy: 'playbook', needsModel: true });
  });

  it('the only playbook, deterministic and without triggers, is the pipeline', () => {
    expect(selectStrategy(input({ query: 'anything', playbooks: [pb('only', 'deterministic')] }))).toMatchObject({ strategy: 'pipeline', playbookId: 'only' });
    expect(selectStrategy(input({ query: 'anything', builtInSkills: [], playbooks: [pb('only', 'hybrid')] }))).toMatchObject({ strategy: 'direct' });
    expect(selectStrategy(input({ query: 'anything', builtInSkills: [], playbooks: [pb('a', 'deterministic'), pb('b', 'deterministic')] }))).toMatchObject({ strategy: 'direct' });
  });

  it('research when the message asks for it and the profile has the research skill', () => {
    expect(selectStrategy(input({ query: 'Investigate the Omidyar Foundation' }))).toMatchObject({ strategy: 'research', needsModel: false });
    expect(selectStrategy(input({ query: 'Investigate the Omidyar Foundation', builtInSkills: [] }))).toMatchObject({ strategy: 'direct' });
  });

  it('direct otherwise; research and direct need a model', () => {
    expect(selectStrategy(input({ query: 'what is the EIN of Acme?' }))).toMatchObject({ strategy: 'direct', needsModel: false });
    expect(selectStrategy(input({ query: 'what is the EIN of Acme?', hasModel: false }))).toMatchObject({ strategy: 'direct', needsModel: true });
    expect(selectStrategy(input({ query: 'research Acme', hasModel: false }))).toMatchObject({ strategy: 'research', needsModel: true });
  });

  it('passes on the semantic note', () => {
    const out = selectStrategy(input({ query: 'x', playbooks: [{ playbookId: 's', executionMode: 'hybrid', triggers: [{ pattern: 'y', type: 'semantic', priority: 0 }] }] }));
    expect(out.notes).toEqual(['semantic matching unavailable: no embedding model configured']);
  });
});

describe('selectStrategy (forced by the profile)', () => {
  it('playbook: the matched one, else the first attached', () => {
    const pbs = [pb('a', 'hybrid', ['alpha']), pb('b', 'hybrid', ['beta'])];
    expect(selectStrategy(input({ strategy: 'playbook', query: 'beta', playbooks: pbs }))).toMatchObject({ strategy: 'playbook', playbookId: 'b' });
    const first = selectStrategy(input({ strategy: 'playbook', query: 'none', playbooks: pbs }));
    expect(first).toMatchObject({ strategy: 'playbook', playbookId: 'a' });
    expect(first.ok && first.reason).toMatch(/first attached/);
  });

  it('playbook / pipeline without a playbook, or pipeline on a non-deterministic one, is refused', () => {
    expect(selectStrategy(input({ strategy: 'playbook' }))).toEqual({ ok: false, reason: "the profile's strategy is 'playbook' but no playbook is attached to it", notes: [] });
    expect(selectStrategy(input({ strategy: 'pipeline', playbooks: [pb('h', 'hybrid')] }))).toMatchObject({ ok: false, reason: expect.stringMatching(/'h' is hybrid, not deterministic/) });
    expect(selectStrategy(input({ strategy: 'pipeline', playbooks: [pb('d', 'deterministic')] }))).toMatchObject({ ok: true, strategy: 'pipeline', playbookId: 'd' });
  });

  it('research / direct are taken as they are', () => {
    expect(selectStrategy(input({ strategy: 'direct', query: 'investigate', playbooks: [pb('a', 'deterministic', ['investigate'])] }))).toMatchObject({ strategy: 'direct' });
    expect(selectStrategy(input({ strategy: 'research', builtInSkills: [], hasModel: false }))).toMatchObject({ strategy: 'research', needsModel: true });
  });
});

describe('needsResearch', () => {
  it.each(['Investigate X', 'who funds the PAC', 'follow   the money', 'Map the network', 'compare A and B'])('%j is research', (q) => expect(needsResearch(q)).toBe(true));
  it.each(['what is the EIN', 'mapping', 'researcher list', ''])('%j is not', (q) => expect(needsResearch(q)).toBe(false));
});
