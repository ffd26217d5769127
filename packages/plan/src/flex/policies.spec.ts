import { normalizeTaskPolicies, policyKeys } from './policies.js';

/** The seed's §5.3 example payload. */
const seedPolicies = {
  planner: {
    topology: { variantCount: 3 },
    selection: { require: ['QualityAssuranceAgent.contentReview'], forbid: ['LegacyGeneratorAgent'], prefer: ['ContentGeneratorAgent.linkedinVariants'] },
    optimisation: { objective: 'quality' },
  },
  runtime: [
    {
      id: 'low_quality_replan',
      trigger: {
        kind: 'onNodeComplete',
        selector: { kind: 'validation' },
        condition: {
          dsl: 'facets.planKnobs.hookIntensity < 0.6',
          canonicalDsl: 'facets.planKnobs.hookIntensity < 0.6',
          jsonLogic: { '<': [{ var: 'metadata.runContextSnapshot.facets.planKnobs.value.hookIntensity' }, 0.6] },
        },
      },
      action: { type: 'replan', rationale: 'Low QA score' },
    },
    {
      id: 'medium_quality_hitl',
      trigger: { kind: 'onNodeComplete', selector: { kind: 'validation' }, condition: 'facets.planKnobs.hookIntensity >= 0.6 && facets.planKnobs.hookIntensity < 0.9' },
      action: { type: 'hitl', rationale: 'Medium quality requires review', rejectAction: { type: 'fail', message: 'rejected' } },
    },
  ],
};

const issueFields = (raw: unknown) => {
  const r = normalizeTaskPolicies(raw);
  return r.ok ? [] : r.issues.map((i) => [i.code, i.field]);
};

describe('normalizeTaskPolicies', () => {
  it('normalises the seed example, compiling DSL conditions', () => {
    const r = normalizeTaskPolicies(seedPolicies);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.policies.planner).toEqual({
      topology: { variantCount: 3, requiredKinds: [], forbiddenKinds: [] },
      selection: { require: ['QualityAssuranceAgent.contentReview'], forbid: ['LegacyGeneratorAgent'], prefer: ['ContentGeneratorAgent.linkedinVariants'], avoid: [] },
      optimisation: { objective: 'quality' },
      directives: {},
    });
    const [low, medium] = r.policies.runtime;
    expect(low!.trigger).toMatchObject({
      kind: 'onNodeComplete',
      selector: { kind: 'validation' },
      condition: { jsonLogic: { '<': [{ var: 'metadata.runContextSnapshot.facets.planKnobs.value.hookIntensity' }, 0.6] }, variables: ['metadata.runContextSnapshot.facets.planKnobs.value.hookIntensity'] },
    });
    expect(medium).toMatchObject({ enabled: true, action: { type: 'hitl', rejectAction: { type: 'fail', message: 'rejected' } } });
    expect(medium!.trigger).toMatchObject({ condition: { canonicalDsl: 'facets.planKnobs.hookIntensity >= 0.6 && facets.planKnobs.hookIntensity < 0.9' } });
    expect(policyKeys(r.policies)).toEqual([
      'planner.topology.variantCount',
      'planner.selection.require',
      'planner.selection.forbid',
      'planner.selection.prefer',
      'planner.optimisation.objective',
      'runtime.low_quality_replan',
      'runtime.medium_quality_hitl',
    ]);
  });

  it('treats absent policies as empty', () => {
    expect(normalizeTaskPolicies(undefined)).toMatchObject({ ok: true, policies: { runtime: [], planner: { selection: { require: [] } } } });
  });

  it('reads legacy top-level markers: variantCount into the topology, the rest as directives, with notes', () => {
    const r = normalizeTaskPolicies({ persona: 'marketer', variantCount: 2, hitlRequiredFor: ['final_publish'] });
    expect(r).toMatchObject({ ok: true, policies: { planner: { topology: { variantCount: 2 }, directives: { persona: 'marketer', hitlRequiredFor: ['final_publish'] } } } });
    if (r.ok) expect(r.notes.map((n) => n.field)).toEqual(['policies.persona', 'policies.variantCount', 'policies.hitlRequiredFor']);
    expect(issueFields({ variantCount: 2, planner: { topology: { variantCount: 3 } } })).toEqual([['policy_conflict', 'policies.variantCount']]);
    expect(issueFields({ variantCount: 0 })).toEqual([['invalid_field', 'policies.variantCount']]);
  });

  it('refuses goto with a migration hint', () => {
    const r = normalizeTaskPolicies({ runtime: [{ id: 'g', trigger: { kind: 'manual' }, action: { type: 'goto', next: 'n1' } }] });
    expect(r).toMatchObject({ ok: false, issues: [{ code: 'removed_action', field: 'policies.runtime[0].action.type', suggestedFix: 'replan', message: expect.stringContaining('use {"type": "replan"}') }] });
    expect(issueFields({ runtime: [{ id: 'g', trigger: { kind: 'manual' }, action: { type: 'goto.previous' } }] })).toEqual([['removed_action', 'policies.runtime[0].action.type']]);
  });

  it.each([
    ['hitl_pause', 'hitl'],
    ['fail_run', 'fail'],
    ['pause_run', 'pause'],
    ['emit_event', 'emit'],
  ])('refuses the legacy action %s pointing at %s', (legacy, canonical) => {
    const r = normalizeTaskPolicies({ runtime: [{ id: 'p', trigger: { kind: 'onStart' }, action: { type: legacy } }] });
    expect(r).toMatchObject({ ok: false, issues: [{ code: 'legacy_action', suggestedFix: canonical, message: `policies.runtime[0].action.type: '${legacy}' is a legacy name; use '${canonical}'` }] });
  });

  it.each([
    [{ runtime: [{ id: 'p', trigger: { kind: 'onNodeComplete', selector: { relation: { direction: 'previous' } } }, action: { type: 'replan' } }] }, ['removed_field', 'policies.runtime[0].trigger.selector.relation']],
    [{ runtime: [{ id: 'p', trigger: { kind: 'manual' }, action: { type: 'replan', onEmpty: 'fail' } }] }, ['removed_field', 'policies.runtime[0].action.onEmpty']],
    [{ runtime: [{ id: 'p', trigger: { kind: 'onNodeFinish' }, action: { type: 'replan' } }] }, ['invalid_field', 'policies.runtime[0].trigger.kind']],
    [{ runtime: [{ id: 'p', trigger: { kind: 'onTimeout' }, action: { type: 'fail' } }] }, ['invalid_field', 'policies.runtime[0].trigger.ms']],
    [{ runtime: [{ id: 'p', trigger: { kind: 'onMetricBelow', metric: 'q' }, action: { type: 'fail' } }] }, ['invalid_field', 'policies.runtime[0].trigger']],
    [{ runtime: [{ id: 'p', trigger: { kind: 'onNodeComplete', condition: 'facets.x >' }, action: { type: 'fail' } }] }, ['invalid_condition', 'policies.runtime[0].trigger.condition']],
    [{ runtime: [{ id: 'p', trigger: { kind: 'onNodeComplete', condition: { dsl: 'x ==' } }, action: { type: 'fail' } }] }, ['invalid_condition', 'policies.runtime[0].trigger.condition.dsl']],
    [{ runtime: [{ id: 'p', trigger: { kind: 'onNodeComplete', condition: { frobnicate: [1] } }, action: { type: 'fail' } }] }, ['invalid_condition', 'policies.runtime[0].trigger.condition']],
    [{ runtime: [{ id: 'p', trigger: { kind: 'manual' }, action: { type: 'emit' } }] }, ['invalid_field', 'policies.runtime[0].action.event']],
    [{ runtime: [{ id: 'p', trigger: { kind: 'manual' }, action: { type: 'hitl', approveAction: { type: 'goto' } } }] }, ['removed_action', 'policies.runtime[0].action.approveAction.type']],
    [{ runtime: [{ trigger: { kind: 'manual' }, action: { type: 'fail' } }] }, ['invalid_field', 'policies.runtime[0].id']],
    [{ runtime: [{ id: 'a', trigger: { kind: 'manual' }, action: { type: 'fail' } }, { id: 'a', trigger: { kind: 'manual' }, action: { type: 'fail' } }] }, ['duplicate_id', 'policies.runtime[1].id']],
    [{ runtime: {} }, ['invalid_field', 'policies.runtime']],
    [{ planner: { optimization: { objective: 'speed' } } }, ['unknown_field', 'policies.planner.optimization']],
    [{ planner: { optimisation: { objective: 'fast' } } }, ['invalid_field', 'policies.planner.optimisation.objective']],
    [{ planner: { topology: { variantCount: 0 } } }, ['invalid_field', 'policies.planner.topology.variantCount']],
    [{ planner: { selection: { require: ['A'], forbid: ['A'] } } }, ['policy_conflict', 'policies.planner.selection']],
    ['fast', ['invalid_field', 'policies']],
  ])('names the bad field %#', (raw, expected) => {
    expect(issueFields(raw)).toContainEqual(expected);
  });

  it('suggests the nearest planner key and trigger kind', () => {
    expect(normalizeTaskPolicies({ planner: { optimization: {} } })).toMatchObject({ ok: false, issues: [{ suggestedFix: 'optimisation' }] });
    expect(normalizeTaskPolicies({ runtime: [{ id: 'p', trigger: { kind: 'onStrat' }, action: { type: 'fail' } }] })).toMatchObject({ ok: false, issues: [{ suggestedFix: 'onStart' }] });
  });

  it('keeps a disabled policy and reports condition warnings as notes', () => {
    const r = normalizeTaskPolicies({ runtime: [{ id: 'p', enabled: false, trigger: { kind: 'onNodeComplete', condition: { dsl: 'facets.q.value.score > 1', jsonLogic: { '>': [{ var: 'x' }, 1] } } }, action: { type: 'pause', reason: 'check' } }] });
    expect(r).toMatchObject({ ok: true, policies: { runtime: [{ enabled: false, action: { type: 'pause', reason: 'check' } }] } });
    if (r.ok) expect(r.notes.map((n) => n.message)).toEqual([expect.stringContaining('legacy'), expect.stringContaining('jsonLogic differs')]);
  });
});
