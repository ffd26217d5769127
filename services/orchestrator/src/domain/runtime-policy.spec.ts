import { PlanGraphSchema } from '@af/plan';
import { compilePolicyCondition, normalizePolicyCondition, parseRuntimePolicies, type PolicyViolation } from './runtime-policy.js';

const plan = PlanGraphSchema.parse({
  nodes: [
    { id: 'fetch', kind: 'tool', action: 'call_connector' },
    { id: 'each', kind: 'map', body: { itemsFrom: '{fetch}', nodes: [{ id: 'visit', kind: 'tool', action: 'transform_data' }] }, dependsOn: ['fetch'] },
  ],
});

const violations = (raw: unknown): PolicyViolation[] => {
  const r = parseRuntimePolicies(raw, plan);
  if (!('violations' in r)) throw new Error(`expected violations, got ${JSON.stringify(r)}`);
  return r.violations;
};

describe('parseRuntimePolicies', () => {
  it('accepts every trigger kind and action type of the seed union, normalizing conditions', () => {
    const r = parseRuntimePolicies(
      [
        { id: 'start', trigger: { kind: 'onStart' }, action: { type: 'emit', event: 'run_opened', payload: { a: 1 } } },
        {
          id: 'low_quality_replan',
          trigger: { kind: 'onNodeComplete', selector: { nodeId: 'visit', kind: 'tool' }, condition: { dsl: 'facets.fetch.count < 2', jsonLogic: { '<': [{ var: 'output.count' }, 2] } } },
          action: { type: 'replan', rationale: 'Low QA score' },
        },
        { id: 'bad_output', trigger: { kind: 'onValidationFail' }, action: { type: 'hitl', rationale: 'check it', approveAction: { type: 'emit', event: 'accepted' }, rejectAction: { type: 'fail', message: 'no' } } },
        { id: 'slow', enabled: false, trigger: { kind: 'onTimeout', ms: 60000 }, action: { type: 'pause', reason: 'too slow' } },
        { id: 'metric', trigger: { kind: 'onMetricBelow', metric: 'fetch.count', threshold: 1 }, action: { type: 'fail' } },
        { id: 'op', trigger: { kind: 'manual' }, action: { type: 'fail', message: 'operator stop' } },
        { id: 'dsl_text', trigger: { kind: 'onNodeComplete', condition: 'output.count > 0' }, action: { type: 'emit', event: 'x' } },
        { id: 'plain_logic', trigger: { kind: 'onNodeComplete', condition: { '==': [{ var: 'node.kind' }, 'map'] } }, action: { type: 'emit', event: 'y' } },
      ],
      plan,
    );
    if (!('policies' in r)) throw new Error(JSON.stringify(r.violations));
    expect(r.policies.map((p) => [p.id, p.enabled, p.trigger.kind, p.action.type])).toEqual([
      ['start', true, 'onStart', 'emit'],
      ['low_quality_replan', true, 'onNodeComplete', 'replan'],
      ['bad_output', true, 'onValidationFail', 'hitl'],
      ['slow', false, 'onTimeout', 'pause'],
      ['metric', true, 'onMetricBelow', 'fail'],
      ['op', true, 'manual', 'fail'],
      ['dsl_text', true, 'onNodeComplete', 'emit'],
      ['plain_logic', true, 'onNodeComplete', 'emit'],
    ]);
    expect(r.policies[1]!.trigger).toEqual({
      kind: 'onNodeComplete',
      selector: { nodeId: 'visit', kind: 'tool' },
      condition: { jsonLogic: { '<': [{ var: 'output.count' }, 2] }, dsl: 'facets.fetch.count < 2' },
    });
    expect(r.policies[6]!.trigger).toEqual({ kind: 'onNodeComplete', condition: { dsl: 'output.count > 0' } });
    expect(r.policies[7]!.trigger).toEqual({ kind: 'onNodeComplete', condition: { jsonLogic: { '==': [{ var: 'node.kind' }, 'map'] } } });
  });

  it('no policies is fine', () => {
    expect(parseRuntimePolicies(undefined, plan)).toEqual({ policies: [] });
    expect(parseRuntimePolicies([], plan)).toEqual({ policies: [] });
  });

  it('refuses goto and legacy action names with a migration hint naming the field', () => {
    const v = violations([
      { id: 'a', trigger: { kind: 'manual' }, action: { type: 'goto', next: 'fetch', maxAttempts: 2 } },
      { id: 'b', trigger: { kind: 'manual' }, action: { type: 'hitl_pause' } },
      { id: 'c', trigger: { kind: 'manual' }, action: { type: 'hitl', approveAction: { type: 'fail_run' } } },
    ]);
    expect(v).toEqual([
      {
        field: 'policies[0].action.type',
        reason: "'goto' is not supported: goto was removed (flex spec §5.10): policies never re-route nodes; use {type: 'replan'} to change the flow",
        code: 'deprecated_action',
      },
      { field: 'policies[1].action.type', reason: "'hitl_pause' is not supported: hitl_pause was renamed: use {type: 'hitl'}", code: 'deprecated_action', suggestedFix: 'hitl' },
      { field: 'policies[2].action.approveAction.type', reason: "'fail_run' is not supported: fail_run was renamed: use {type: 'fail'}", code: 'deprecated_action', suggestedFix: 'fail' },
    ]);
  });

  it('refuses removed navigation: selector.relation and onEmpty', () => {
    const v = violations([
      { id: 'a', trigger: { kind: 'onNodeComplete', selector: { relation: { direction: 'previous' } } }, action: { type: 'replan', onEmpty: 'skip' } },
    ]);
    expect(v.map((x) => [x.field, x.code])).toEqual([
      ['policies[0].trigger.selector.relation', 'deprecated_selector'],
      ['policies[0].action.onEmpty', 'deprecated_action'],
    ]);
    expect(v[0]!.reason).toContain('select by nodeId, kind or capabilityId');
  });

  it('names each bad field: ids, kinds, selectors, conditions, timers, metrics, emit names', () => {
    const v = violations([
      { id: '1bad', trigger: { kind: 'onStart' }, action: { type: 'fail' } },
      { id: 'dup', trigger: { kind: 'onNodeCompleted' }, action: { type: 'fail' } },
      { id: 'dup', trigger: { kind: 'onStart' }, action: { type: 'fial' } },
      { id: 'sel', trigger: { kind: 'onNodeComplete', selector: { nodeId: 'fetcj', kind: 'validation' } }, action: { type: 'fail' } },
      { id: 'cond', trigger: { kind: 'onNodeComplete', condition: { jsonLogic: { nope: [1] } } }, action: { type: 'fail' } },
      { id: 'time', trigger: { kind: 'onTimeout', ms: -5 }, action: { type: 'fail' } },
      { id: 'met', trigger: { kind: 'onMetricBelow', metric: 'a..b' }, action: { type: 'fail' } },
      { id: 'emit1', trigger: { kind: 'onStart' }, action: { type: 'emit', event: 'complete' } },
      { id: 'emit2', trigger: { kind: 'onStart' }, action: { type: 'emit', event: 'Bad.Name', payload: [1] } },
      { id: 'val', trigger: { kind: 'onValidationFail', selector: { nodeId: 'visit', kind: 'tool' } }, action: { type: 'fail' } },
      { id: 'extra', trigger: { kind: 'onStart', when: 1 }, action: { type: 'fail', note: 'x' }, priority: 1 },
      'not an object',
    ]);
    const fields = v.map((x) => x.field);
    expect(fields).toEqual([
      'policies[0].id',
      'policies[1].trigger.kind',
      'policies[2].id',
      'policies[2].action.type',
      'policies[3].trigger.selector.nodeId',
      'policies[3].trigger.selector.kind',
      'policies[4].trigger.condition.jsonLogic',
      'policies[5].trigger.ms',
      'policies[6].trigger.metric',
      'policies[6].trigger.threshold',
      'policies[7].action.event',
      'policies[8].action.event',
      'policies[8].action.payload',
      'policies[9].trigger.selector.nodeId',
      'policies[10].priority',
      'policies[10].trigger.when',
      'policies[10].action.note',
      'policies[11]',
    ]);
    expect(v[1]!.suggestedFix).toBe('onNodeComplete');
    expect(v[3]!.suggestedFix).toBe('fail');
    expect(v[4]).toMatchObject({ reason: 'the plan has no node "fetcj"', suggestedFix: 'fetch' });
    expect(v[10]!.reason).toContain('a frame the engine emits itself');
  });

  it('onValidationFail takes a selector (flex seed §5.3 PolicyTrigger): nodeId, kind, capabilityId; its bad fields are named', () => {
    const r = parseRuntimePolicies(
      [
        { id: 'fetch_bad', trigger: { kind: 'onValidationFail', selector: { nodeId: 'fetch' } }, action: { type: 'replan' } },
        { id: 'maps_bad', trigger: { kind: 'onValidationFail', selector: { kind: 'map', capabilityId: 'writer.Copy' }, condition: 'run.completed > 0' }, action: { type: 'fail' } },
      ],
      plan,
    );
    if (!('policies' in r)) throw new Error(JSON.stringify(r.violations));
    expect(r.policies.map((p) => p.trigger)).toEqual([
      { kind: 'onValidationFail', selector: { nodeId: 'fetch' } },
      { kind: 'onValidationFail', selector: { kind: 'map', capabilityId: 'writer.Copy' }, condition: { dsl: 'run.completed > 0' } },
    ]);
    const v = violations([
      { id: 'a', trigger: { kind: 'onValidationFail', selector: { nodeId: 'fecth' } }, action: { type: 'fail' } },
      { id: 'b', trigger: { kind: 'onValidationFail', selector: { kind: 'robot', capabilityId: '' } }, action: { type: 'fail' } },
      { id: 'c', trigger: { kind: 'onValidationFail', selector: 'fetch' }, action: { type: 'fail' } },
      { id: 'd', trigger: { kind: 'onValidationFail', selector: { nodeId: 'visit' } }, action: { type: 'fail' } },
      { id: 'e', trigger: { kind: 'onValidationFail', selector: { relation: 'next' } }, action: { type: 'fail' } },
    ]);
    expect(v.map((x) => [x.field, x.code])).toEqual([
      ['policies[0].trigger.selector.nodeId', 'invalid_policy'],
      ['policies[1].trigger.selector.kind', 'invalid_policy'],
      ['policies[1].trigger.selector.capabilityId', 'invalid_policy'],
      ['policies[2].trigger.selector', 'invalid_policy'],
      ['policies[3].trigger.selector.nodeId', 'invalid_policy'],
      ['policies[4].trigger.selector.relation', 'deprecated_selector'],
    ]);
    expect(v[0]).toMatchObject({ reason: 'the plan has no node "fecth"', suggestedFix: 'fetch' });
    expect(v[4]!.reason).toBe("visit is inside a map body: the output contract checks the final output, which holds top-level nodes' outputs");
  });

  it('a selector may name a node inside a map body', () => {
    const r = parseRuntimePolicies([{ id: 'p', trigger: { kind: 'onNodeComplete', selector: { nodeId: 'visit' } }, action: { type: 'pause' } }], plan);
    expect('policies' in r).toBe(true);
  });

  it('limits follow-up nesting and the number of policies', () => {
    const deep = { type: 'hitl', approveAction: { type: 'hitl', approveAction: { type: 'hitl', approveAction: { type: 'hitl', approveAction: { type: 'fail' } } } } };
    expect(violations([{ id: 'p', trigger: { kind: 'manual' }, action: deep }]).map((x) => x.field)).toEqual([
      'policies[0].action.approveAction.approveAction.approveAction.approveAction',
    ]);
    const many = Array.from({ length: 51 }, (_, i) => ({ id: `p${i}`, trigger: { kind: 'manual' }, action: { type: 'fail' } }));
    expect(violations(many)[0]).toMatchObject({ field: 'policies', reason: 'at most 50 policies per run, got 51' });
    expect(violations({ id: 'x' })[0]).toMatchObject({ field: 'policies', reason: 'must be an array of {id, trigger, action}' });
  });
});

describe('policy conditions', () => {
  it('normalizes the envelope, DSL text and plain JSON-Logic', () => {
    expect(normalizePolicyCondition('a > 1')).toEqual({ dsl: 'a > 1' });
    expect(normalizePolicyCondition({ dsl: 'a > 1', canonicalDsl: 'a > 1', warnings: [] })).toEqual({ dsl: 'a > 1', canonicalDsl: 'a > 1' });
    expect(normalizePolicyCondition({ '>': [1, 0] })).toEqual({ jsonLogic: { '>': [1, 0] } });
    expect(normalizePolicyCondition('  ')).toBe('must not be empty');
    expect(normalizePolicyCondition({ dsl: 'a', extra: 1 })).toBe("has unknown field(s) extra beside the envelope's dsl / jsonLogic");
  });

  it('the DSL facets alias reads node outputs published as facets (seed §5.3 example)', () => {
    const cond = compilePolicyCondition({ dsl: 'facets.planKnobs.hookIntensity < 0.6' });
    const vars = (v: number) => ({ metadata: { runContextSnapshot: { facets: { planKnobs: { value: { hookIntensity: v } } } } } });
    expect(cond({ vars: vars(0.5) })).toBe(true);
    expect(cond({ vars: vars(0.7) })).toBe(false);
  });
});
