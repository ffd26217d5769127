import { checkOutput, evaluateGoals, parseGoalConditions, parseOutputContract, pointerSegments, type GoalCondition } from './output-contract.js';

const schema = {
  type: 'object',
  required: ['report'],
  properties: { report: { type: 'object', required: ['title', 'score'], properties: { title: { type: 'string' }, score: { type: 'number', minimum: 0 } } } },
};

describe('parseOutputContract', () => {
  it('accepts {schema, mode?, hints?, constraints?} with a schema Ajv compiles', () => {
    expect(parseOutputContract({ mode: 'json_schema', schema })).toEqual({ contract: { mode: 'json_schema', schema } });
  });

  it('names every problem by field', () => {
    expect(parseOutputContract('x')).toEqual({ violations: [{ field: 'output_contract', reason: 'must be an object with a JSON Schema under `schema`' }] });
    const r = parseOutputContract({ mode: 'xml', schema: { type: 'banana' }, extra: 1 });
    expect('violations' in r && r.violations.map((v) => v.field)).toEqual(['output_contract.mode', 'output_contract.extra', 'output_contract.schema']);
    expect(parseOutputContract({})).toEqual({ violations: [{ field: 'output_contract.schema', reason: 'is required: the JSON Schema the final output must satisfy' }] });
  });
});

describe('checkOutput', () => {
  it('is empty for a valid output and lists every violation with a JSON pointer otherwise', () => {
    expect(checkOutput({ schema }, { report: { title: 'ok', score: 1 } })).toEqual([]);
    expect(checkOutput({ schema }, { report: { score: -1 } })).toEqual([
      { path: '/report/title', keyword: 'required', message: "must have required property 'title'" },
      { path: '/report/score', keyword: 'minimum', message: 'must be >= 0' },
    ]);
    expect(checkOutput({ schema }, {})).toEqual([{ path: '/report', keyword: 'required', message: "must have required property 'report'" }]);
  });
});

describe('goal conditions', () => {
  const goals: GoalCondition[] = [
    { facet: 'post_copy', path: '/variants[0]', condition: { dsl: 'quality_score >= 0.8' } },
    { facet: 'post_visual', path: '/asset/status', condition: { dsl: 'value == "approved"' } },
    { facet: 'post_copy', path: '', condition: { jsonLogic: { '==': [{ var: 'variants.length' }, 2] } } },
  ];

  it('parses the seed envelope and refuses bad entries by field', () => {
    expect(parseGoalConditions(goals)).toEqual({ goals });
    const r = parseGoalConditions([{ path: 'nope', condition: {} }, 'x', { facet: 'a', condition: { dsl: '>>' } }]);
    expect('violations' in r && r.violations.map((v) => v.field)).toEqual([
      'goal_condition[0].facet',
      'goal_condition[0].path',
      'goal_condition[0].condition',
      'goal_condition[1]',
      'goal_condition[2].condition.dsl',
    ]);
    expect(parseGoalConditions({})).toEqual({ violations: [{ field: 'goal_condition', reason: 'must be an array of { facet, path, condition }' }] });
  });

  it('evaluates each against the output at facet + path (AND is up to the caller)', () => {
    const output = { post_copy: { variants: [{ quality_score: 0.9 }, { quality_score: 0.5 }] }, post_visual: { asset: { status: 'draft' } } };
    expect(evaluateGoals(goals, output)).toEqual([
      { facet: 'post_copy', path: '/variants[0]', expression: 'quality_score >= 0.8', satisfied: true },
      { facet: 'post_visual', path: '/asset/status', expression: 'value == "approved"', satisfied: false },
      { facet: 'post_copy', path: '', expression: '{"==":[{"var":"variants.length"},2]}', satisfied: true },
    ]);
  });

  it('reports a missing facet or path as unsatisfied with the reason', () => {
    expect(evaluateGoals([{ facet: 'nope', path: '', condition: { dsl: 'x > 1' } }, { facet: 'a', path: '/b/c', condition: { dsl: 'x > 1' } }], { a: { b: {} } })).toEqual([
      { facet: 'nope', path: '', expression: 'x > 1', satisfied: false, error: "the run has no output 'nope'" },
      { facet: 'a', path: '/b/c', expression: 'x > 1', satisfied: false, error: "'a' has nothing at /b/c" },
    ]);
  });

  it('reads JSON pointers with [n] indexes and ~ escapes', () => {
    expect(pointerSegments('/a~1b/c~0d/2/e[1][0]')).toEqual([
      { kind: 'prop', name: 'a/b' },
      { kind: 'prop', name: 'c~d' },
      { kind: 'index', index: 2 },
      { kind: 'prop', name: 'e' },
      { kind: 'index', index: 1 },
      { kind: 'index', index: 0 },
    ]);
    expect(() => pointerSegments('a/b')).toThrow("must start with '/'");
  });
});
