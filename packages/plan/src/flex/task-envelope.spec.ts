import { parseTaskEnvelope } from './task-envelope.js';

/** The seed's §10.0.1 sample (envelope.json). */
const streamSample = {
  objective: 'Create LinkedIn post variants promoting AwesomePoster',
  inputs: { channel: 'linkedin', goal: 'attract_new_employees', variantCount: 2, contextBundles: [{ type: 'company_profile', payload: { companyName: 'AwesomePoster' } }] },
  policies: { brandVoice: 'inspiring', requiresHitlApproval: false },
  goal_condition: [
    { facet: 'post_copy', path: '/variants[0]', condition: { dsl: 'quality_score >= 0.8', jsonLogic: { '>=': [{ var: 'quality_score' }, 0.8] } } },
    { facet: 'post_visual', path: '/asset/status', condition: { dsl: 'status == "approved"', jsonLogic: { '==': [{ var: 'status' }, 'approved'] } } },
  ],
  specialInstructions: ['Variant A should highlight team culture.', 'Variant B should highlight career growth opportunities.'],
  outputContract: {
    mode: 'json_schema',
    schema: { type: 'object', required: ['copyVariants'], properties: { copyVariants: { type: 'array', minItems: 2, maxItems: 2, items: { type: 'object' } } } },
  },
};

const fields = (raw: unknown) => {
  const r = parseTaskEnvelope(raw);
  return r.ok ? [] : r.issues.map((i) => [i.code, i.field]);
};

describe('parseTaskEnvelope', () => {
  it('parses the seed stream sample, compiling goal conditions and keeping legacy policy markers', () => {
    const r = parseTaskEnvelope(streamSample);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.envelope.goalConditions[1]).toEqual({
      facet: 'post_visual',
      path: '/asset/status',
      condition: { jsonLogic: { '==': [{ var: 'status' }, 'approved'] }, dsl: 'status == "approved"', canonicalDsl: 'status == "approved"', warnings: [], variables: ['status'] },
    });
    expect(r.envelope.policies.planner.directives).toEqual({ brandVoice: 'inspiring', requiresHitlApproval: false });
    expect(r.notes).toHaveLength(2);
    expect(r.envelope.outputContract).toMatchObject({ mode: 'json_schema', constraints: [] });
  });

  it('normalises constraints: ids, DSL or JSON-Logic, human-readable text', () => {
    const r = parseTaskEnvelope({
      ...streamSample,
      outputContract: {
        ...streamSample.outputContract,
        constraints: [
          { constraintId: 'min_qa', expr: { '>=': [{ var: 'metadata.runContextSnapshot.facets.planKnobs.value.hookIntensity' }, 0.8] }, level: 'hard' },
          { expr: 'copyVariants.length == 2', level: 'soft', rationale: 'two variants' },
        ],
      },
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.envelope.outputContract.constraints).toEqual([
      expect.objectContaining({ constraintId: 'min_qa', level: 'hard', constraint: '{">=":[{"var":"metadata.runContextSnapshot.facets.planKnobs.value.hookIntensity"},0.8]}' }),
      expect.objectContaining({ constraintId: 'constraint_2', level: 'soft', constraint: 'copyVariants.length == 2', rationale: 'two variants' }),
    ]);
  });

  it.each([
    [{ ...streamSample, objective: '' }, ['invalid_field', 'objective']],
    [{ ...streamSample, objective: undefined }, ['invalid_field', 'objective']],
    [{ ...streamSample, outputContract: undefined }, ['invalid_field', 'outputContract']],
    [{ ...streamSample, outputContract: { mode: 'json_schema' } }, ['invalid_field', 'outputContract.schema']],
    [{ ...streamSample, outputContract: { schema: { type: 'objekt' } } }, ['invalid_schema', 'outputContract.schema']],
    [{ ...streamSample, outputContract: { schema: {}, mode: 'xml' } }, ['invalid_field', 'outputContract.mode']],
    [{ ...streamSample, outputContract: { schema: {}, constraints: [{ expr: 'a >', level: 'hard' }] } }, ['invalid_condition', 'outputContract.constraints[0].expr']],
    [{ ...streamSample, outputContract: { schema: {}, constraints: [{ expr: { '==': [1, 1] }, level: 'must' }] } }, ['invalid_field', 'outputContract.constraints[0].level']],
    [{ ...streamSample, outputContract: { schema: {}, constraints: [{ level: 'hard' }] } }, ['invalid_field', 'outputContract.constraints[0].expr']],
    [
      { ...streamSample, outputContract: { schema: {}, constraints: [{ constraintId: 'a', expr: true, level: 'hard' }, { constraintId: 'a', expr: true, level: 'soft' }] } },
      ['duplicate_id', 'outputContract.constraints[1].constraintId'],
    ],
    [{ ...streamSample, goal_condition: [{ facet: 'post_copy', condition: 'quality >=' }] }, ['invalid_condition', 'goal_condition[0].condition']],
    [{ ...streamSample, goal_condition: [{ path: '/x', condition: 'a == 1' }] }, ['invalid_field', 'goal_condition[0].facet']],
    [{ ...streamSample, goalCondition: [] }, ['unknown_field', 'goalCondition']],
    [{ ...streamSample, inputs: { 'bad key': 1 } }, ['invalid_field', 'inputs.bad key']],
    [{ ...streamSample, inputs: [] }, ['invalid_field', 'inputs']],
    [{ ...streamSample, specialInstructions: 'be nice' }, ['invalid_field', 'specialInstructions']],
    [{ ...streamSample, policies: { runtime: [{ id: 'g', trigger: { kind: 'manual' }, action: { type: 'goto' } }] } }, ['removed_action', 'policies.runtime[0].action.type']],
    [{ ...streamSample, constraints: { resumeRunId: '' } }, ['invalid_field', 'constraints.resumeRunId']],
    [null, ['invalid_field', '']],
  ])('names the bad field %#', (raw, expected) => {
    expect(fields(raw)).toContainEqual(expected);
  });

  it('suggests the seed spelling of a misspelt top-level key', () => {
    expect(parseTaskEnvelope({ ...streamSample, goalCondition: [] })).toMatchObject({ ok: false, issues: [{ suggestedFix: 'goal_condition' }] });
  });
});
