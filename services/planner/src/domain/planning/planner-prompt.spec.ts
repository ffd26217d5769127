import { bundleDiagnostics } from '@af/plan';
import { marketingCapabilities, planningContext, sampleEnvelope } from '../../../test/fixtures/marketing-catalog.js';
import { analyzeEnvelope } from './envelope-analysis.js';
import { buildPlannerPrompt } from './planner-prompt.js';

describe('buildPlannerPrompt (Prompt Blueprint v2)', () => {
  const { envelope } = sampleEnvelope('linkedin-variants');
  const ctx = planningContext(envelope);
  const prompt = buildPlannerPrompt(ctx, analyzeEnvelope(ctx));

  it('has the blueprint sections in order', () => {
    const sections = ['SYSTEM', 'SCHEMA DEFINITION', 'CONTEXT', 'FACET CATALOG SUMMARY', 'CAPABILITY REGISTRY SUMMARY', 'PLANNER RULES', 'INTERNAL CHECKLIST', 'EXAMPLE REASONING', 'OUTPUT INSTRUCTIONS'];
    const at = sections.map((s) => prompt.system.indexOf(`${s}\n`));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    for (const s of ['OBJECTIVE', 'INPUTS', 'PLANNER HINTS', 'SPECIAL INSTRUCTIONS', 'OUTPUT CONTRACT', 'GRAPH CONTEXT', 'CHECKLIST REMINDER']) expect(prompt.user).toContain(`${s}\n`);
  });

  it('renders the facet and capability tables trimmed to what the goal needs, in catalog order', () => {
    expect(prompt.system).toContain('| Facet | Direction | Description |');
    expect(prompt.system).toContain('| Capability ID | Display Name | Kind | Input Facets | Output Facets | Summary |');
    // Goal post_copy + handoff_summary: their producers and what those consume.
    expect(prompt.system).toContain('| copywriter.SocialpostDrafting | Copywriter – Social Drafting | ai | company_information, creative_brief, handoff_summary, feedback | post_copy, handoff_summary |');
    expect(prompt.system).not.toContain('| director.PositioningReview');
    expect(prompt.metrics).toEqual({ systemChars: prompt.system.length, userChars: prompt.user.length, facetRows: expect.any(Number), capabilityRows: 5 });
    expect(prompt.user).toContain('- companyProfile: structured → facet company_information');
    expect(prompt.user).toContain('Directives (legacy policy markers included): {"persona":"marketer","hitlRequiredFor":["final_publish"]}');
  });

  it('lists every active capability when no goal facet matched, and leaves inactive ones out', () => {
    const { envelope: e } = sampleEnvelope('new-case-post', (x) => (x.outputContract.schema = { type: 'object', properties: { zzz: { type: 'string' } } }));
    const caps = marketingCapabilities().map((c) => (c.capabilityId === 'designer.VisualDesign' ? { ...c, status: 'inactive' as const } : c));
    const c2 = planningContext(e, caps);
    const p = buildPlannerPrompt(c2, analyzeEnvelope(c2));
    expect(p.metrics.capabilityRows).toBe(6);
    expect(p.metrics.facetRows).toBe(15);
    expect(p.user).toContain('Unmatched contract properties: zzz');
  });

  it('adds the previous draft’s diagnostics after a rejection', () => {
    const bundle = bundleDiagnostics([{ severity: 'hard', status: 'unsatisfied', cause: 'missing_producer', constraintId: 'facet.post_context', nodeId: 'strategy', suggestion: 'supply post_context' }]);
    const p = buildPlannerPrompt(ctx, analyzeEnvelope(ctx), { draft: { nodes: [] }, bundle });
    expect(p.user).toContain('- [hard/missing_producer] facet.post_context @strategy: supply post_context');
  });
});
