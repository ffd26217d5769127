import { normalizeTaskPolicies } from '@af/plan';
import { isSelectable, rankCandidates, scoreCapability } from './capability-selection.js';
import type { CapabilityView } from './types.js';

const cap = (id: string, over: Partial<CapabilityView> = {}): CapabilityView => ({ capabilityId: id, agentType: 'ai', displayName: id, summary: '', version: '1', inputFacets: [], outputFacets: ['x'], preferredModels: [], scopes: [], status: 'active', metadata: {}, ...over });
const policy = (raw: unknown) => {
  const r = normalizeTaskPolicies({ planner: raw });
  if (!r.ok) throw new Error('bad policy');
  return r.policies.planner;
};

describe('capability selection', () => {
  it('never selects inactive, forbidden or forbidden-kind capabilities', () => {
    expect(isSelectable(cap('a'), policy({}))).toBe(true);
    expect(isSelectable(cap('a', { status: 'inactive' }), policy({}))).toBe(false);
    expect(isSelectable(cap('a'), policy({ selection: { forbid: ['a'] } }))).toBe(false);
    expect(isSelectable(cap('h', { agentType: 'human' }), policy({ topology: { forbiddenKinds: ['human'] } }))).toBe(false);
    expect(isSelectable(cap('a'), policy({ topology: { forbiddenKinds: ['capability'] } }))).toBe(false);
  });

  it('ranks by require, prefer/avoid, feasibility, scope and objective, then id', () => {
    const fast = cap('fast', { cost: { estimatedTokens: 1000, tier: 'economy' } });
    const good = cap('good', { cost: { estimatedTokens: 9000, tier: 'premium' }, scopes: ['fr'] });
    const ids = (raw: unknown, feas: (c: CapabilityView) => number = () => 1, scope?: string) => rankCandidates([good, fast], feas, { policy: policy(raw), ...(scope ? { scope } : {}) }).map((c) => c.capabilityId);
    expect(ids({})).toEqual(['fast', 'good']);
    expect(ids({ optimisation: { objective: 'quality' } })).toEqual(['good', 'fast']);
    expect(ids({ optimisation: { objective: 'speed' } })).toEqual(['fast', 'good']);
    expect(ids({ selection: { prefer: ['good'] } })).toEqual(['good', 'fast']);
    expect(ids({ selection: { avoid: ['fast'] } })).toEqual(['good', 'fast']);
    expect(ids({ selection: { require: ['good'] }, optimisation: { objective: 'token_efficiency' } })).toEqual(['good', 'fast']);
    expect(ids({}, (c) => (c.capabilityId === 'fast' ? 0 : 1))).toEqual(['good', 'fast']);
    expect(ids({}, () => 1, 'fr')).toEqual(['good', 'fast']);
    expect(scoreCapability(cap('h', { agentType: 'human' }), 1, { policy: policy({ optimisation: { objective: 'speed' } }) })).toBe(90);
  });
});
