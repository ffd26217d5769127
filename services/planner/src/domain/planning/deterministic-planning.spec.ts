/** Deterministic planning of the sample envelopes against the sample catalog (catalogs/flex-marketing). */
import { validatePlan, type PlanDiagnostic } from '@af/plan';
import { marketingCapabilities, marketingCatalog, planningContext, sampleEnvelope } from '../../../test/fixtures/marketing-catalog.js';
import { planTask } from './planning-loop.js';
import { DeterministicPlanner } from './planner.js';
import type { CapabilityView } from './types.js';

const planner = new DeterministicPlanner();
const run = async (name: 'linkedin-variants' | 'new-case-post', patch?: (e: Record<string, any>) => void, capabilities?: CapabilityView[]) => {
  const { envelope, notes } = sampleEnvelope(name, patch);
  return planTask(planningContext(envelope, capabilities), planner, { maxAttempts: 3, notes });
};
const all = (b: { failures: PlanDiagnostic[]; warnings: PlanDiagnostic[]; infos: PlanDiagnostic[] }) => [...b.failures, ...b.warnings, ...b.infos];

describe('§10.1 sample envelope (LinkedIn variants)', () => {
  it('is accepted with the expected nodes: structuring of inputs, branch, two copywriters, normalisation, HITL fallback', async () => {
    const out = await run('linkedin-variants');
    expect(out.accepted).toBe(true);
    const plan = out.plan!;
    expect(validatePlan(plan)).toEqual([]);
    expect(plan.nodes.map((n) => [n.id, n.kind, n.dependsOn])).toEqual([
      ['structure_inputs', 'llm', []],
      ['branch_variants', 'route', ['structure_inputs']],
      ['copywriter_SocialpostDrafting_v1', 'capability', ['branch_variants']],
      ['copywriter_SocialpostDrafting_v2', 'capability', ['branch_variants']],
      ['normalize_output', 'llm', ['copywriter_SocialpostDrafting_v1', 'copywriter_SocialpostDrafting_v2']],
      ['fallback_normalize_output', 'human', ['copywriter_SocialpostDrafting_v1', 'copywriter_SocialpostDrafting_v2']],
    ]);
    const [structure, branch, v1, , normalize, fallback] = plan.nodes;
    expect(structure!.outputSchema).toMatchObject({ required: ['company_information', 'creative_brief'] });
    expect(branch).toMatchObject({ routes: [], elseTo: ['copywriter_SocialpostDrafting_v1', 'copywriter_SocialpostDrafting_v2'] });
    expect(v1).toMatchObject({
      capabilityId: 'copywriter.SocialpostDrafting',
      inputs: { company_information: '{structure_inputs.company_information}', creative_brief: '{structure_inputs.creative_brief}' },
      inputSchema: { type: 'object', required: ['company_information', 'creative_brief'], additionalProperties: false },
      outputSchema: { type: 'object', required: ['post_copy'], properties: { post_copy: { type: 'string' }, handoff_summary: { type: 'array' } } },
      params: { flex: { stage: 'execution', inputFacets: ['company_information', 'creative_brief'], outputFacets: ['post_copy', 'handoff_summary'], variant: { index: 1, count: 2 } } },
    });
    const flex = v1!.params.flex as Record<string, any>;
    expect(flex.provenance.output.map((p: { facet: string; pointer: string }) => [p.facet, p.pointer])).toEqual([
      ['post_copy', '/properties/post_copy'],
      ['handoff_summary', '/properties/handoff_summary'],
    ]);
    expect(flex.instruction).toContain('Highlight the new real-time audit trail feature.');
    expect(flex.instruction).toContain('This is variant 1 of 2');
    expect(flex.rationale).toContain('produces post_copy');
    expect(normalize).toMatchObject({ inputs: { copyVariants: ['{copywriter_SocialpostDrafting_v1.post_copy}', '{copywriter_SocialpostDrafting_v2.post_copy}'] }, errorPolicy: { onError: 'fallback', fallback: ['fallback_normalize_output'] } });
    expect(normalize!.outputSchema).toMatchObject({ required: ['copyVariants'], properties: { copyVariants: { minItems: 2 } } });
    expect(fallback).toMatchObject({ fallbackFor: 'normalize_output', outputSchema: normalize!.outputSchema });
    expect(plan.metadata.flex).toMatchObject({
      planVersion: 1,
      plannerRuntime: 'deterministic',
      goalFacets: ['post_copy', 'handoff_summary'],
      outputBindings: [{ property: 'copyVariants', facet: 'post_copy', nodeId: 'normalize_output', pointer: '/copyVariants' }],
      branchCount: 1,
      normalizationInjected: true,
      structuringInjected: true,
    });
  });

  it('emits plan_requested then plan_generated with trimmed nodes and the diagnostic buckets', async () => {
    const out = await run('linkedin-variants');
    expect(out.events.map((e) => e.type)).toEqual(['plan_requested', 'plan_generated']);
    expect(out.events[0]!.payload).toMatchObject({ attempt: 1, maxAttempts: 1, policyKeys: ['planner.topology.variantCount', 'planner.directives.persona', 'planner.directives.hitlRequiredFor'], capabilitySnapshot: { total: 7, active: 7, facets: 15 } });
    const generated = out.events[1]!.payload as Record<string, any>;
    expect(generated).toMatchObject({ planVersion: 1, status: 'accepted_with_findings', satisfactionScore: 1, failures: [], warnings: [] });
    expect(generated.nodes[2]).toEqual({ id: 'copywriter_SocialpostDrafting_v1', nodeId: 'copywriter_SocialpostDrafting_v1', kind: 'capability', stage: 'execution', label: 'Copywriter – Social Drafting', capabilityId: 'copywriter.SocialpostDrafting', dependsOn: ['branch_variants'], provides: ['post_copy', 'handoff_summary'], enforces: [] });
    expect(generated.infos.map((d: PlanDiagnostic) => d.constraintId)).toEqual(['envelope.policies.hitlRequiredFor', 'envelope.policies.persona', 'envelope.policies.variantCount', 'input.toneOfVoice']);
  });

  it('without variants, no branch; a facet-shaped contract property needs no normalisation node', async () => {
    const out = await run('linkedin-variants', (e) => {
      delete e.policies.variantCount;
      e.outputContract.schema = { type: 'object', required: ['post_copy'], properties: { post_copy: { type: 'string' } } };
    });
    expect(out.accepted).toBe(true);
    expect(out.plan!.nodes.map((n) => n.id)).toEqual(['structure_inputs', 'copywriter_SocialpostDrafting', 'fallback_copywriter_SocialpostDrafting']);
    expect(out.plan!.metadata.flex).toMatchObject({ normalizationInjected: false, outputBindings: [{ property: 'post_copy', nodeId: 'copywriter_SocialpostDrafting', pointer: '/post_copy' }] });
    expect(out.plan!.nodes[1]!.errorPolicy).toMatchObject({ onError: 'fallback', retry: { maxRetries: 1 }, fallback: ['fallback_copywriter_SocialpostDrafting'] });
  });
});

describe('new case post (strategist → copywriter + designer → director)', () => {
  it('chains back through human capabilities with envelope facets wired directly', async () => {
    const out = await run('new-case-post');
    expect(out.accepted).toBe(true);
    expect(out.bundle.status).toBe('accepted');
    expect(out.plan!.nodes.map((n) => [n.id, n.kind, n.dependsOn])).toEqual([
      ['strategist_SocialPosting', 'capability', []],
      ['copywriter_SocialpostDrafting', 'capability', ['strategist_SocialPosting']],
      ['designer_VisualDesign', 'human', ['strategist_SocialPosting']],
      ['director_SocialPostingReview', 'human', ['strategist_SocialPosting', 'copywriter_SocialpostDrafting', 'designer_VisualDesign']],
      ['fallback_director_SocialPostingReview', 'human', ['strategist_SocialPosting', 'copywriter_SocialpostDrafting', 'designer_VisualDesign']],
    ]);
    const strategist = out.plan!.nodes[0]!;
    expect(strategist.inputs).toEqual({ company_information: '{input.company_information}', post_context: '{input.post_context}' });
    expect(out.plan!.nodes[1]!.inputs).toMatchObject({ handoff_summary: '{strategist_SocialPosting.handoff_summary}' });
    expect((strategist.params.flex as Record<string, unknown>).stage).toBe('structuring');
    expect(out.plan!.metadata.flex).toMatchObject({ normalizationInjected: false, structuringInjected: false, outputBindings: [{ property: 'post', nodeId: 'director_SocialPostingReview', pointer: '/post' }] });
  });

  it('falls back to another producer when a capability is inactive, and to an alternate at run time', async () => {
    const catalog = marketingCatalog();
    const caps = marketingCapabilities(catalog);
    const base = caps.find((c) => c.capabilityId === 'copywriter.SocialpostDrafting')!;
    const backup: CapabilityView = { ...base, capabilityId: 'copywriter.Backup', displayName: 'Backup writer', cost: { tier: 'economy', estimatedTokens: 1000 } };
    const inactive = caps.map((c) => (c.capabilityId === base.capabilityId ? { ...c, status: 'inactive' as const } : c));
    const out = await run('new-case-post', undefined, [...inactive, backup]);
    expect(out.accepted).toBe(true);
    expect(out.plan!.nodes.map((n) => n.capabilityId)).toContain('copywriter.Backup');
    expect(out.plan!.nodes.map((n) => n.capabilityId)).not.toContain('copywriter.SocialpostDrafting');

    // Both active: the tie breaks by id (Backup), the other becomes its run-time alternate.
    const both = await run('new-case-post', undefined, [...caps, backup]);
    const ids = both.plan!.nodes.map((n) => n.id);
    expect(ids.indexOf('copywriter_Backup__alt')).toBe(ids.indexOf('copywriter_Backup') + 1);
    expect(both.plan!.nodes.find((n) => n.id === 'copywriter_Backup')!.errorPolicy).toMatchObject({ onError: 'fallback', fallback: ['copywriter_Backup__alt'] });
    expect(both.plan!.nodes.find((n) => n.id === 'copywriter_Backup__alt')).toMatchObject({ capabilityId: 'copywriter.SocialpostDrafting', fallbackFor: 'copywriter_Backup', dependsOn: ['strategist_SocialPosting'] });
  });
});

describe('policies', () => {
  const backupOf = (caps: CapabilityView[]): CapabilityView => ({ ...caps.find((c) => c.capabilityId === 'copywriter.SocialpostDrafting')!, capabilityId: 'copywriter.Cheap', displayName: 'Cheap writer', cost: { tier: 'economy', estimatedTokens: 500 } });

  it('selection: prefer and avoid change the choice; require adds the capability; forbid removes it', async () => {
    const caps = marketingCapabilities();
    const withCheap = [...caps, backupOf(caps)];
    const pick = async (planner: Record<string, unknown>) => {
      const out = await run('new-case-post', (e) => (e.policies = { planner }), withCheap);
      return { out, writers: out.plan?.nodes.filter((n) => n.capabilityId?.startsWith('copywriter.') && !n.fallbackFor).map((n) => n.capabilityId) };
    };
    expect((await pick({})).writers).toEqual(['copywriter.Cheap']); // ties break by id: Cheap < SocialpostDrafting
    expect((await pick({ selection: { prefer: ['copywriter.SocialpostDrafting'] } })).writers).toEqual(['copywriter.SocialpostDrafting']);
    expect((await pick({ selection: { avoid: ['copywriter.Cheap'] } })).writers).toEqual(['copywriter.SocialpostDrafting']);
    expect((await pick({ selection: { forbid: ['copywriter.Cheap'] } })).writers).toEqual(['copywriter.SocialpostDrafting']);
    expect((await pick({ optimisation: { objective: 'quality' } })).writers).toEqual(['copywriter.SocialpostDrafting']);
    expect((await pick({ optimisation: { objective: 'token_efficiency' } })).writers).toEqual(['copywriter.Cheap']);
    const required = await pick({ selection: { require: ['copywriter.Messaging'] } });
    expect(required.out.accepted).toBe(false);
    // The required messaging writer is planned (with strategist.Positioning for its recommendation), but nothing supplies positioning_context.
    expect(required.out.attempts[0]!.draft.nodes.map((n) => n.capabilityId)).toEqual(expect.arrayContaining(['copywriter.Messaging', 'strategist.Positioning']));
    expect(required.out.bundle.failures.map((d) => [d.constraintId, d.cause, d.nodeId])).toEqual([
      ['facet.positioning_context', 'missing_producer', 'copywriter_Messaging'],
      ['facet.positioning_context', 'missing_producer', 'strategist_Positioning'],
    ]);
  });

  it('forbidding the only producer rejects with missing_producer for the contract', async () => {
    const out = await run('new-case-post', (e) => (e.policies = { planner: { selection: { forbid: ['director.SocialPostingReview'] } } }));
    expect(out.accepted).toBe(false);
    expect(out.events.map((e) => e.type)).toEqual(['plan_requested', 'plan_rejected']);
    expect(out.bundle.failures).toEqual([expect.objectContaining({ constraintId: 'contract.post', cause: 'missing_producer', status: 'unsatisfied', severity: 'hard' })]);
  });

  it('forbidden kinds: no human nodes', async () => {
    const out = await run('new-case-post', (e) => (e.policies = { planner: { topology: { forbiddenKinds: ['human'] } } }));
    expect(out.accepted).toBe(false);
    expect(out.bundle.failures.map((d) => d.constraintId)).toEqual(['contract.post']);
  });

  it('variantCount against the schema: a conflict is a schema_incompatible hard diagnostic', async () => {
    const out = await run('linkedin-variants', (e) => {
      e.policies.variantCount = 3;
      e.outputContract.schema.properties.copyVariants.maxItems = 2;
    });
    expect(out.accepted).toBe(false);
    expect(out.bundle.failures).toEqual([expect.objectContaining({ constraintId: 'policy.topology.variantCount', cause: 'schema_incompatible', severity: 'hard' })]);
  });

  it('maxDepth and required kinds are checked', async () => {
    const deep = await run('new-case-post', (e) => (e.policies = { planner: { topology: { maxDepth: 2, requiredKinds: ['validation'] } } }));
    expect(deep.bundle.failures.map((d) => d.constraintId).sort()).toEqual(['policy.topology.maxDepth', 'policy.topology.requiredKinds.validation']);
    const ok = await run('new-case-post', (e) => (e.policies = { planner: { topology: { maxDepth: 3, requiredKinds: ['human'] } } }));
    expect(ok.accepted).toBe(true);
  });

  it('maxTokens over budget is a soft finding that lowers the score', async () => {
    const out = await run('new-case-post', (e) => (e.policies = { planner: { optimisation: { maxTokens: 1000 } } }));
    expect(out.accepted).toBe(true);
    expect(out.bundle).toMatchObject({ status: 'accepted_with_findings', warnings: [expect.objectContaining({ constraintId: 'policy.optimisation.maxTokens', cause: 'unsatisfied_soft' })] });
    // hard satisfied: contract.post, structure.fallback (2 × 1.0); soft unsatisfied: maxTokens (0.5) → 2 / 2.5
    expect(out.bundle.satisfactionScore).toBe(0.8);
  });
});

describe('constraints, goal conditions and unmatched contracts', () => {
  it('scores hard / soft constraints and reports each cause', async () => {
    const out = await run('new-case-post', (e) => {
      e.outputContract.constraints = [
        { constraintId: 'has_copy', expr: 'post.copy != ""', level: 'hard' },
        { constraintId: 'knobs', expr: 'facets.planKnobs.hookIntensity >= 0.8', level: 'soft' },
        { constraintId: 'tone_hint', expr: { '==': [{ var: 'tone' }, 'b2b'] }, level: 'informational', rationale: 'Planner may prefer professional for B2B.' },
        { constraintId: 'qa', expr: 'post.copy != ""', level: 'hard', enforcer: 'QualityAssuranceAgent.contentReview' },
      ];
    });
    expect(out.accepted).toBe(false);
    expect(all(out.bundle).map((d) => [d.constraintId, d.severity, d.status, d.cause])).toEqual([
      ['qa', 'hard', 'unsatisfied', 'missing_enforcer'],
      ['knobs', 'soft', 'unsatisfied', 'unsatisfied_soft'],
      ['tone_hint', 'informational', 'unknown', 'advisory'],
    ]);
    expect(out.bundle.failures[0]).toMatchObject({ capabilityId: 'QualityAssuranceAgent.contentReview', suggestion: 'Insert QualityAssuranceAgent.contentReview before director_SocialPostingReview.' });
    expect(out.bundle.infos[0]).toMatchObject({ details: { note: 'Planner may prefer professional for B2B.' } });
    // hard: contract.post ✓, structure.fallback ✓, has_copy ✓, qa (producer) ✓, qa (enforcer) ✗; soft: knobs ✗ → 4 / 5.5
    expect(out.bundle.satisfactionScore).toBe(0.7273);
  });

  it('a goal condition adds its facet to the goals; with no producer it is a hard missing_producer', async () => {
    const goal = (e: Record<string, any>) => (e.goal_condition = [{ facet: 'messaging_stack', path: '/core_message', condition: 'core_message != ""' }]);
    const planned = await run('new-case-post', goal);
    // copywriter.Messaging is planned for it, and the failure is where the chain breaks.
    expect(planned.bundle.failures.map((d) => [d.constraintId, d.nodeId])).toEqual([
      ['facet.positioning_context', 'copywriter_Messaging'],
      ['facet.positioning_context', 'strategist_Positioning'],
    ]);
    const without = await run('new-case-post', goal, marketingCapabilities().filter((c) => c.capabilityId !== 'copywriter.Messaging'));
    expect(without.bundle.failures).toEqual([expect.objectContaining({ constraintId: 'goal.messaging_stack', cause: 'missing_producer', suggestion: 'plan a capability that produces messaging_stack' })]);
  });

  it('an output property no facet matches is a hard missing_producer with a hint', async () => {
    const out = await run('new-case-post', (e) => {
      e.outputContract.schema.required = ['post', 'zzz'];
      e.outputContract.schema.properties.zzz = { type: 'string' };
    });
    expect(out.bundle.failures).toEqual([expect.objectContaining({ constraintId: 'contract.zzz', cause: 'missing_producer', suggestion: expect.stringContaining('outputContract.hints.facets') })]);
  });

  it('a required input nobody supplies is reported on the node that needs it', async () => {
    const out = await run('new-case-post', (e) => delete e.inputs.post_context);
    expect(out.accepted).toBe(false);
    expect(out.bundle.failures.map((d) => [d.constraintId, d.nodeId])).toEqual([
      ['facet.post_context', 'director_SocialPostingReview'],
      ['facet.post_context', 'strategist_SocialPosting'],
    ]);
  });
});

describe('replan', () => {
  it('keeps completed nodes locked, bumps the version and plans only what is left', async () => {
    const first = await run('new-case-post');
    const previous = first.plan!;
    const { envelope, notes } = sampleEnvelope('new-case-post', (e) => (e.policies = { planner: { selection: { forbid: ['designer.VisualDesign'] } } }));
    const ctx = { ...planningContext(envelope), replan: { previous, completedNodeIds: ['strategist_SocialPosting', 'designer_VisualDesign'], trigger: { policyId: 'low_quality_replan' } } };
    const out = await planTask(ctx, planner, { maxAttempts: 1, notes });
    expect(out.accepted).toBe(true);
    const plan = out.plan!;
    expect(plan.version).toBe(2);
    expect(plan.nodes[0]).toEqual(previous.nodes[0]);
    expect(plan.nodes.find((n) => n.id === 'designer_VisualDesign')).toEqual(previous.nodes.find((n) => n.id === 'designer_VisualDesign'));
    // The director reads the locked designer's output even though designers are now forbidden.
    expect(plan.nodes.find((n) => n.id === 'director_SocialPostingReview')!.inputs).toMatchObject({ post_visual: '{designer_VisualDesign.post_visual}' });
    expect(out.events[0]!.payload).toMatchObject({ planVersion: 2, replan: { previousVersion: 1, lockedNodeIds: ['strategist_SocialPosting', 'designer_VisualDesign'], trigger: { policyId: 'low_quality_replan' } } });
    expect(out.events[1]!.payload).toMatchObject({ planVersion: 2, nodes: expect.arrayContaining([expect.objectContaining({ id: 'strategist_SocialPosting', locked: true })]) });
  });
});
