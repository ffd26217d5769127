/** Drafts as an LLM might write them, through the assembler and the three validators. */
import { bundleDiagnostics, type PlanDiagnostic } from '@af/plan';
import { planningContext, sampleEnvelope } from '../../../test/fixtures/marketing-catalog.js';
import { analyzeEnvelope } from './envelope-analysis.js';
import { assemblePlan } from './plan-assembler.js';
import { validateAssembled } from './planning-loop.js';
import type { DraftNode, PlanDraft } from './types.js';

const { envelope } = sampleEnvelope('new-case-post');
const ctx = planningContext(envelope);
const analysis = analyzeEnvelope(ctx);
const node = (over: Partial<DraftNode> & Pick<DraftNode, 'id'>): DraftNode => ({ stage: 'execution', inputFacets: [], outputFacets: [], dependsOn: [], rationale: 'r', ...over });
const good: DraftNode[] = [
  node({ id: 'strategy', stage: 'structuring', capabilityId: 'strategist.SocialPosting', inputFacets: ['company_information', 'post_context'], outputFacets: ['creative_brief', 'strategic_rationale', 'handoff_summary'] }),
  node({ id: 'copy', capabilityId: 'copywriter.SocialpostDrafting', inputFacets: ['company_information', 'creative_brief', 'handoff_summary'], outputFacets: ['post_copy', 'handoff_summary'], dependsOn: ['strategy'] }),
  node({ id: 'design', capabilityId: 'designer.VisualDesign', inputFacets: ['company_information', 'creative_brief'], outputFacets: ['post_visual', 'handoff_summary'], dependsOn: ['strategy'] }),
  node({ id: 'review', capabilityId: 'director.SocialPostingReview', inputFacets: ['company_information', 'post_context', 'strategic_rationale', 'post_copy', 'post_visual'], outputFacets: ['post', 'feedback'], dependsOn: ['copy', 'design'] }),
];
const check = (nodes: DraftNode[]) => {
  const assembled = assemblePlan(ctx, analysis, { nodes } as PlanDraft, { plannerRuntime: 'llm', plannerModel: 'm', version: 1, attempt: 1 });
  const diagnostics = validateAssembled(ctx, analysis, assembled);
  return { assembled, diagnostics, bundle: bundleDiagnostics(diagnostics) };
};
const failures = (nodes: DraftNode[]) => check(nodes).bundle.failures.map((d: PlanDiagnostic) => [d.constraintId, d.cause, d.nodeId]);

describe('drafts through the assembler and validators', () => {
  it('accepts a correct draft, wiring each facet from its nearest producer', () => {
    const { assembled, bundle } = check(good);
    expect(bundle.status).toBe('accepted');
    expect(assembled.plan!.nodes.map((n) => n.id)).toEqual(['strategy', 'copy', 'design', 'review', 'fallback_review']);
    expect(assembled.plan!.nodes[3]!.inputs).toMatchObject({ post_copy: '{copy.post_copy}', strategic_rationale: '{strategy.strategic_rationale}', post_context: '{input.post_context}' });
    expect(assembled.plan!.metadata.flex).toMatchObject({ plannerRuntime: 'llm', plannerModel: 'm' });
  });

  it('reports an unknown capability with a hint, and an inactive one', () => {
    expect(failures([...good.slice(0, 3), { ...good[3]!, capabilityId: 'director.socialpostingreview' }])).toContainEqual(['capability.director.socialpostingreview', 'missing_producer', 'review']);
    const msg = check([...good.slice(0, 3), { ...good[3]!, capabilityId: 'director.socialpostingreview' }]).bundle.failures.find((d) => d.constraintId?.startsWith('capability.'))!.suggestion;
    expect(msg).toContain("did you mean 'director.SocialPostingReview'");
    const inactiveCtx = { ...ctx, capabilities: ctx.capabilities.map((c) => (c.capabilityId === 'designer.VisualDesign' ? { ...c, status: 'inactive' as const } : c)) };
    const assembled = assemblePlan(inactiveCtx, analyzeEnvelope(inactiveCtx), { nodes: good }, { plannerRuntime: 'llm', version: 1, attempt: 1 });
    expect(bundleDiagnostics(validateAssembled(inactiveCtx, analyzeEnvelope(inactiveCtx), assembled)).failures.map((d) => [d.constraintId, d.nodeId])).toEqual([['capability.designer.VisualDesign', 'design']]);
  });

  it('reports facets a capability does not declare and a required input without a source', () => {
    expect(failures([good[0]!, { ...good[1]!, outputFacets: ['post_copy', 'post'] }, ...good.slice(2)])).toContainEqual(['facet.post', 'missing_producer', 'copy']);
    expect(failures([good[0]!, { ...good[1]!, inputFacets: [...good[1]!.inputFacets, 'value_canvas'] }, ...good.slice(2)])).toContainEqual(['facet.value_canvas', 'schema_incompatible', 'copy']);
    // review no longer depends on copy: post_copy has no upstream producer.
    expect(failures([...good.slice(0, 3), { ...good[3]!, dependsOn: ['design'] }])).toContainEqual(['facet.post_copy', 'missing_producer', 'review']);
  });

  it('reports structural problems: unknown dependency, reserved ids, planner-managed stages, cycles', () => {
    expect(failures([...good.slice(0, 3), { ...good[3]!, dependsOn: ['copy', 'desing'] }])).toContainEqual(['structure.depends_on', 'schema_incompatible', 'review']);
    expect(failures([...good, node({ id: 'normalize_output', stage: 'execution', capabilityId: 'copywriter.SocialpostDrafting' })])).toContainEqual(['structure.node_id', 'schema_incompatible', 'normalize_output']);
    expect(failures([...good, node({ id: 'fb', stage: 'fallback' })])).toContainEqual(['structure.stage', 'schema_incompatible', 'fb']);
    expect(failures([...good, { ...good[0]! }])).toContainEqual(['structure.node_id', 'schema_incompatible', 'strategy']);
    const cyclic = [{ ...good[0]!, dependsOn: ['review'] }, ...good.slice(1)];
    expect(failures(cyclic)).toContainEqual(['structure.cycle', 'schema_incompatible', 'strategy']);
  });

  it('accepts a derived capability and flags it for review', () => {
    const derived = [...good.slice(0, 3), { ...good[3]!, capabilityId: undefined, derivedFrom: 'director.SocialPostingReview', outputFacets: ['post'] }];
    const { assembled, bundle } = check(derived);
    expect(bundle.status).toBe('accepted_with_findings');
    expect(bundle.infos).toEqual([expect.objectContaining({ constraintId: 'capability.derived.review', cause: 'advisory', status: 'satisfied' })]);
    expect(assembled.derivedCapabilities).toEqual(['review']);
    expect(assembled.plan!.nodes.find((n) => n.id === 'review')).toMatchObject({ capabilityId: 'director.SocialPostingReview', params: { flex: { derivedFrom: 'director.SocialPostingReview' } } });
  });

  it('compiles a routing node with DSL routes', () => {
    const routed = [
      ...good.slice(0, 2),
      node({ id: 'route_copy', stage: 'routing', dependsOn: ['copy'], routes: [{ condition: 'copy.post_copy != ""', to: ['design'] }], elseTo: [] }),
      { ...good[2]!, dependsOn: ['strategy', 'route_copy'] },
      good[3]!,
    ];
    const { assembled, bundle } = check(routed);
    expect(bundle.failures).toEqual([]);
    expect(assembled.plan!.nodes.find((n) => n.id === 'route_copy')).toMatchObject({ kind: 'route', routes: [{ condition: 'copy.post_copy != ""', conditionDialect: 'dsl', to: ['design'] }] });
  });

  it('an empty draft is rejected through the contract it leaves unproduced', () => {
    const { assembled, bundle } = check([]);
    expect(assembled.plan).toBeUndefined();
    expect(bundle.failures.map((d) => d.constraintId)).toEqual(['contract.post']);
  });
});
