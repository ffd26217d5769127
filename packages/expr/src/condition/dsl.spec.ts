import { ExprError } from '../expr-error.js';
import { compileCondition } from './compile-condition.js';
import { dslToJsonLogic, jsonLogicToDsl, parseDsl } from './dsl.js';
import type { JsonLogic } from './json-logic.types.js';

const HOOK = 'metadata.runContextSnapshot.facets.planKnobs.value.hookIntensity';

describe('Condition DSL (flex spec §5.3)', () => {
  it('compiles the seed examples to the seed JSON-Logic', () => {
    expect(parseDsl('facets.planKnobs.hookIntensity < 0.6')).toEqual({
      dsl: 'facets.planKnobs.hookIntensity < 0.6',
      canonicalDsl: 'facets.planKnobs.hookIntensity < 0.6',
      jsonLogic: { '<': [{ var: HOOK }, 0.6] },
      warnings: [],
      variables: [HOOK],
    });
    expect(parseDsl('facets.planKnobs.hookIntensity >= 0.6 && facets.planKnobs.hookIntensity < 0.9')).toEqual(
      {
        dsl: 'facets.planKnobs.hookIntensity >= 0.6 && facets.planKnobs.hookIntensity < 0.9',
        canonicalDsl: 'facets.planKnobs.hookIntensity >= 0.6 && facets.planKnobs.hookIntensity < 0.9',
        jsonLogic: { and: [{ '>=': [{ var: HOOK }, 0.6] }, { '<': [{ var: HOOK }, 0.9] }] },
        warnings: [],
        variables: [HOOK],
      },
    );
    expect(dslToJsonLogic('quality_score >= 0.8')).toEqual({ '>=': [{ var: 'quality_score' }, 0.8] });
    expect(dslToJsonLogic('status == "approved"')).toEqual({ '==': [{ var: 'status' }, 'approved'] });
  });

  it('renders the seed JSON-Logic back to the seed DSL', () => {
    expect(jsonLogicToDsl({ '<': [{ var: HOOK }, 0.6] })).toBe('facets.planKnobs.hookIntensity < 0.6');
    expect(jsonLogicToDsl({ '==': [{ var: 'status' }, 'ready'] })).toBe('status == "ready"');
  });

  it.each([
    ['a<1&&b>2', 'a < 1 && b > 2'],
    ["  status=='x'  ", 'status == "x"'],
    ['a || b && c', 'a || b && c'],
    ['(a || b) && c', '(a || b) && c'],
    ['(a && b) && (c && d)', 'a && b && c && d'],
    ['((a))', 'a'],
    ['!(a == 1)', '!(a == 1)'],
    ['NOT a', '!a'],
    ['!!a', '!!a'],
    ['!(a && b)', '!(a && b)'],
    ['{a} AND {b} OR {c}', 'a && b || c'],
    ['{x} is defined', 'exists(x)'],
    ['{x} is not defined', '!exists(x)'],
    ['x not in [1, 2]', '!(x in [1, 2])'],
    ["x in ['a','b']", 'x in ["a", "b"]'],
    ['(!a) == b', '(!a) == b'],
    ['(a == b) == c', '(a == b) == c'],
    ['some(items, item.score > 0.5)', 'some(items, item.score > 0.5)'],
    ['some(items as it, it.score > threshold)', 'some(items as it, it.score > threshold)'],
    [
      'all(groups as g, some(g.members as m, m.age >= g.minAge))',
      'all(groups as g, some(g.members as m, m.age >= g.minAge))',
    ],
    ['between(x, 0.6, 0.8)', 'between(x, 0.6, 0.8)'],
    ['{30_days_ago} < {step-1.date}', '{30_days_ago} < {step-1.date}'],
    ['{a["b c"]} == 1', '{a["b c"]} == 1'],
    ['{and} == {true.x}', '{and} == {true.x}'],
    ['x == -0.5', 'x == -0.5'],
    ['x == 1e21', 'x == 1e+21'],
    ['x == "line\\nbreak \\"q\\""', 'x == "line\\nbreak \\"q\\""'],
    ['facets.planKnobs.value.hookIntensity > 0.1', 'facets.planKnobs.hookIntensity > 0.1'],
    [
      'metadata.runContextSnapshot.facets.planKnobs.value.hookIntensity > 0.1',
      'facets.planKnobs.hookIntensity > 0.1',
    ],
    ['facets.post_copy', 'facets.post_copy'],
  ])('canonical form of %j is %j', (dsl, canonical) => {
    const first = parseDsl(dsl);
    expect(first.canonicalDsl).toBe(canonical);
    const second = parseDsl(first.canonicalDsl);
    expect(second.canonicalDsl).toBe(canonical);
    expect(second.jsonLogic).toEqual(first.jsonLogic);
    expect(jsonLogicToDsl(first.jsonLogic)).toBe(canonical);
  });

  it('maps a legacy .value path and warns', () => {
    const r = parseDsl('facets.planKnobs.value.hookIntensity > 0.1');
    expect(r.jsonLogic).toEqual({ '>': [{ var: HOOK }, 0.1] });
    expect(r.warnings).toEqual([expect.objectContaining({ code: 'legacy_path', position: 0 })]);
  });

  it('can run without path aliases', () => {
    const r = parseDsl('facets.planKnobs.hookIntensity > 0.1', { aliases: [] });
    expect(r.jsonLogic).toEqual({ '>': [{ var: 'facets.planKnobs.hookIntensity' }, 0.1] });
    expect(jsonLogicToDsl({ var: HOOK }, { aliases: [] })).toBe(HOOK);
  });

  it.each([
    ['true', 'noop_true'],
    ['1 < 2 || false', 'noop_true'],
    ['1 > 2', 'noop_false'],
    ['some([1, 2], false)', 'noop_false'],
  ])('warns that %j is constant (%s)', (dsl, code) => {
    expect(parseDsl(dsl).warnings.map((w) => w.code)).toContain(code);
  });

  it('warns when a quantifier ignores its element', () => {
    expect(parseDsl('some(items, threshold > 1)').warnings).toEqual([
      expect.objectContaining({ code: 'unused_alias', position: 0 }),
    ]);
  });

  it('lists canonical root variables only', () => {
    expect(
      parseDsl('some(facets.recs.items, item.score > minScore) && facets.planKnobs.x == 1').variables,
    ).toEqual([
      'metadata.runContextSnapshot.facets.recs.value.items',
      'minScore',
      'metadata.runContextSnapshot.facets.planKnobs.value.x',
    ]);
  });

  it('evaluates through the facet alias with the dsl dialect', () => {
    const c = compileCondition(
      'facets.planKnobs.hookIntensity >= 0.6 && facets.planKnobs.hookIntensity < 0.9',
      {
        dialect: 'dsl',
      },
    );
    const scope = (v: number) => ({
      vars: { metadata: { runContextSnapshot: { facets: { planKnobs: { value: { hookIntensity: v } } } } } },
    });
    expect([c(scope(0.5)), c(scope(0.6)), c(scope(0.89)), c(scope(0.9))]).toEqual([false, true, true, false]);
    expect(c.variables).toEqual([HOOK]);
  });

  it.each<[JsonLogic, string]>([
    [{ var: ['a', 1] }, 'invalid_condition'],
    [{ '==': [{ var: 'a' }, { literal: { x: 1 } }] }, 'invalid_condition'],
    [{ var: '' }, 'invalid_condition'],
    [{ frob: 1 }, 'unknown_operator'],
    [{ a: 1, b: 2 }, 'invalid_condition'],
    [{ '==': [1] }, 'invalid_condition'],
    [{ some: [[], true, 'and'] }, 'invalid_condition'],
    [{ var: { x: 1 } }, 'invalid_condition'],
  ])('jsonLogicToDsl(%j) → %s', (logic, code) => {
    expect(() => jsonLogicToDsl(logic)).toThrow(expect.objectContaining({ code }));
  });

  it('renders forms the parser never produces', () => {
    expect(jsonLogicToDsl({ '<': [0, { var: 'x' }, 1] })).toBe('0 < x && x < 1');
    expect(jsonLogicToDsl({ and: [] })).toBe('true');
    expect(jsonLogicToDsl({ or: [{ var: 'a' }] })).toBe('a');
    expect(
      jsonLogicToDsl({ and: [{ and: [{ var: 'a' }, { var: 'b' }] }, { or: [{ var: 'c' }, { var: 'd' }] }] }),
    ).toBe('a && b && (c || d)');
    expect(jsonLogicToDsl({ some: [{ var: 'xs' }, { var: '' }] })).toBe('some(xs, item)');
    expect(jsonLogicToDsl({ literal: [1, 'a'] })).toBe('[1, "a"]');
    expect(jsonLogicToDsl({ '!!': { var: 'a' } })).toBe('!!a');
    expect(jsonLogicToDsl({ var: 'a b.c' })).toBe('{["a b"].c}');
    expect(jsonLogicToDsl({ var: 3 })).toBe('{3}');
  });

  it('reports DSL syntax errors with position and expectation', () => {
    let err: unknown;
    try {
      parseDsl('facets.planKnobs.hookIntensity >= && x');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ExprError);
    expect(err).toMatchObject({ code: 'syntax_error', position: 34, expected: 'an operand' });
  });
});
