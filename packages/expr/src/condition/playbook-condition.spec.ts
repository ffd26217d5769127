import { ExprError } from '../expr-error.js';
import type { Scope } from '../scope.js';
import { compileCondition } from './compile-condition.js';

const scope: Scope = {
  now: new Date('2024-03-15T00:00:00Z'),
  vars: {
    pull_990_data: { count: 2, results: [{ ein: '1' }] },
    empty_pull: { count: 0, results: [] },
    entity_name: 'Acme',
    committee_id: 'C-1',
    nothing: null,
    initial_search: { entities: [{ type: 'ORG', score: 0.75 }] },
    step2: { success: true, data: { priority: 'high', tags: ['vip', 'new'] } },
    step3: { result: true },
    step1: { data: { score: 82 } },
    zero: 0,
    text: 'hello world',
    'step-4': { ok: true },
    since: '2024-03-01',
  },
};

describe('playbook conditions: AST', () => {
  it.each([
    ['{pull_990_data.count} > 0', { '>': [{ var: 'pull_990_data.count' }, 0] }],
    ['{committee_id} is defined', { exists: { var: 'committee_id' } }],
    ['{committee_id} is not defined', { '!': { exists: { var: 'committee_id' } } }],
    [
      '{pull_990_data.count} > 0 AND {entity_name} is defined',
      { and: [{ '>': [{ var: 'pull_990_data.count' }, 0] }, { exists: { var: 'entity_name' } }] },
    ],
    [
      "{initial_search.entities[0].type} == 'ORG'",
      { '==': [{ var: 'initial_search.entities[0].type' }, 'ORG'] },
    ],
    ['step3.result == true', { '==': [{ var: 'step3.result' }, true] }],
    [
      'step1.data.score > 70 && step2.success',
      { and: [{ '>': [{ var: 'step1.data.score' }, 70] }, { var: 'step2.success' }] },
    ],
    ['{{step1.data.score}} >= 70', { '>=': [{ var: 'step1.data.score' }, 70] }],
    ['a OR b AND c', { or: [{ var: 'a' }, { and: [{ var: 'b' }, { var: 'c' }] }] }],
    ['(a OR b) AND c', { and: [{ or: [{ var: 'a' }, { var: 'b' }] }, { var: 'c' }] }],
    ['a and (b and c) and d', { and: [{ var: 'a' }, { var: 'b' }, { var: 'c' }, { var: 'd' }] }],
    ['NOT a == 1', { '!': { '==': [{ var: 'a' }, 1] } }],
    ['not not a', { '!': { '!': { var: 'a' } } }],
    ['!a', { '!': { var: 'a' } }],
    ['x != null', { '!=': [{ var: 'x' }, null] }],
    ['x === "1"', { '===': [{ var: 'x' }, '1'] }],
    ['x !== -2.5e3', { '!==': [{ var: 'x' }, -2500] }],
    ['x in [1, "a", y]', { in: [{ var: 'x' }, [1, 'a', { var: 'y' }]] }],
    ['x not in []', { '!': { in: [{ var: 'x' }, []] } }],
    ['{30_days_ago} < {since}', { '<': [{ var: '30_days_ago' }, { var: 'since' }] }],
    ['{step-4.ok}', { var: 'step-4.ok' }],
    ['x.0.y == .5', { '==': [{ var: 'x.0.y' }, 0.5] }],
    ['a[*].b == 1', { '==': [{ var: 'a[*].b' }, 1] }],
    ['{a["b c"]} == 1', { '==': [{ var: 'a["b c"]' }, 1] }],
    ['True OR FALSE or Null', { or: [true, false, null] }],
    ['\'it\\\'s\' == "q\\"\\u0041\\n"', { '==': ["it's", 'q"A\n'] }],
    ['exists(a) && is_empty(b)', { and: [{ exists: { var: 'a' } }, { is_empty: { var: 'b' } }] }],
    [
      'contains(a, "x") || between(n, 1, 2)',
      { or: [{ contains: [{ var: 'a' }, 'x'] }, { between: [{ var: 'n' }, 1, 2] }] },
    ],
    ['some(xs, item.ok)', { some: [{ var: 'xs' }, { var: 'item.ok' }] }],
    ['all(xs as x, x > 1)', { all: [{ var: 'xs' }, { '>': [{ var: 'x' }, 1] }, 'x'] }],
    ['none(xs, item == 0)', { none: [{ var: 'xs' }, { '==': [{ var: 'item' }, 0] }] }],
  ])('%s', (text, ast) => {
    expect(compileCondition(text).ast).toEqual(ast);
  });
});

describe('playbook conditions: evaluation', () => {
  it.each([
    ['{pull_990_data.count} > 0', true],
    ['{empty_pull.count} > 0', false],
    ['{skipped_step.count} > 0', false],
    ['{committee_id} is defined', true],
    ['{missing_input} is defined', false],
    ['{nothing} is defined', false],
    ['{nothing} is not defined', true],
    ['{missing_input} is not defined', true],
    ['{pull_990_data.count} > 0 AND {entity_name} is defined', true],
    ['{empty_pull.count} > 0 AND {entity_name} is defined', false],
    ['{empty_pull.count} > 0 OR {entity_name} is defined', true],
    ["{initial_search.entities[0].type} == 'ORG'", true],
    ['{initial_search.entities[0].type} == "PERSON"', false],
    ['{initial_search.entities[0].type} != "PERSON"', true],
    ['{initial_search.entities[0].score} >= 0.75', true],
    ['{initial_search.entities[0].score} > 0.75', false],
    ['{initial_search.entities[0].score} <= 0.75', true],
    ['{initial_search.entities[0].score} < 0.75', false],
    ['step3.result == true', true],
    ['step1.data.score > 70 && step2.success', true],
    ['step1.data.score > 90 || !step2.success', false],
    ['NOT ({zero} > 0)', true],
    ['{zero} == 0 AND {zero} == "0" AND {zero} != ""', true],
    ['{zero} == false', true],
    ['{step3.result} == "true"', true],
    ['{nothing} == null AND {missing} == null', true],
    ['{zero} is defined', true],
    ['{since} > {30_days_ago}', true],
    ['{since} < {today}', true],
    ['{step2.data.priority} in ["high", "urgent"]', true],
    ['{step2.data.priority} not in ["high", "urgent"]', false],
    ['"vip" in {step2.data.tags}', true],
    ['"wor" in {text}', true],
    ['contains({text}, "lo w")', true],
    ['contains({step2.data.tags}, "new")', true],
    ['is_empty({empty_pull.results})', true],
    ['is_empty({zero})', false],
    ['between({step1.data.score}, 80, 90)', true],
    ['between({step1.data.score}, 70, 82)', false],
    ['{step-4.ok}', true],
    ['{pull_990_data.results}', true],
    ['{empty_pull.results}', false],
    ['{entity_name.__proto__} is defined', false],
    ['{entity_name.constructor} is defined', false],
    ['{constructor} is defined', false],
    ['{toString} is defined', false],
    ['{{step1.data.score}} == 82', true],
    ['1 < 2', true],
    ['"b" > "a"', true],
    ['null < 1', false],
    ['{nothing} >= 0', false],
    ['true > false', false],
    ['"abc" < 5', false],
    ['"10" > 9', true],
  ])('%s → %s', (text, expected) => {
    expect(compileCondition(text)(scope)).toBe(expected);
  });

  it('lists the variables a condition reads', () => {
    expect(compileCondition('{a.count} > 0 AND {b} is defined OR {a.count} < -1').variables).toEqual([
      'a.count',
      'b',
    ]);
  });

  it('compiles once and evaluates against many scopes', () => {
    const c = compileCondition('{a.count} > 0 AND {b} is defined');
    expect(c({ vars: { a: { count: 1 }, b: 0 } })).toBe(true);
    expect(c({ vars: { a: { count: 0 }, b: 0 } })).toBe(false);
    expect(c({ vars: { a: { count: 1 } } })).toBe(false);
    expect(c({ vars: {} })).toBe(false);
  });

  it('reads loop and runtime built-ins', () => {
    const c = compileCondition('{{current.from}} == "vip@x" AND {{index}} < 3 AND {execution_id} is defined');
    expect(c({ vars: {}, current: { from: 'vip@x' }, index: 1, executionId: 'e' })).toBe(true);
    expect(c({ vars: {}, current: { from: 'vip@x' }, index: 3, executionId: 'e' })).toBe(false);
  });
});

describe('playbook conditions: errors', () => {
  it.each([
    ['', 'empty_expression', 0, 'an expression'],
    ['   ', 'empty_expression', 0, 'an expression'],
    ['{a} >', 'syntax_error', 5, 'an operand'],
    ['({a} > 1', 'syntax_error', 8, "')'"],
    ['{a} > 1)', 'syntax_error', 7, "'&&', '||' or end of expression"],
    ['{a} = 1', 'syntax_error', 4, "'==' (comparison)"],
    [
      '{a} < 1 < 2',
      'syntax_error',
      8,
      "'&&', '||', ')' or end of expression (comparisons do not chain; add parentheses)",
    ],
    ['{a} is', 'syntax_error', 6, "'defined' or 'not defined'"],
    ['{a} is not', 'syntax_error', 10, "'defined'"],
    ['{a} is empty', 'syntax_error', 7, "'defined' or 'not defined'"],
    ["{a} == 'abc", 'syntax_error', 7, "a closing '"],
    ['{a..b} > 1', 'syntax_error', 3, 'a name'],
    ['{a > 1', 'syntax_error', 0, "'}'"],
    ['{{a} > 1', 'syntax_error', 0, "'}}'"],
    ['{} > 1', 'syntax_error', 1, 'a path'],
    ['foo(1)', 'syntax_error', 0, 'a function name (some, all, none, exists, is_empty, contains or between)'],
    ['a & b', 'syntax_error', 2, "'&&'"],
    ['a | b', 'syntax_error', 2, "'||'"],
    ['a @ b', 'syntax_error', 2, 'an operand or operator'],
    ['1abc > 0', 'syntax_error', 1, 'an operator after a number'],
    ['a > - b', 'syntax_error', 6, 'a number after -'],
    ['some(xs as 1, true)', 'syntax_error', 11, 'an alias name'],
    ['some(xs item.ok)', 'syntax_error', 8, "','"],
    ['between(a, 1)', 'syntax_error', 12, "','"],
    ['AND', 'syntax_error', 0, 'an operand'],
    ['a AND', 'syntax_error', 5, 'an operand'],
    ['a b', 'syntax_error', 2, "'&&', '||' or end of expression"],
    ['[1, 2', 'syntax_error', 5, "']'"],
    ['"\\u12"', 'syntax_error', 1, 'four hex digits'],
    ['a[x] == 1', 'syntax_error', 1, "'&&', '||' or end of expression"],
  ])('%j → %s at %i', (text, code, position, expected) => {
    let err: unknown;
    try {
      compileCondition(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ExprError);
    expect(err).toMatchObject({ code, position, expected });
  });

  it('rejects nesting deep enough to threaten the stack', () => {
    expect(() => compileCondition('('.repeat(5000) + 'a' + ')'.repeat(5000))).toThrow(
      expect.objectContaining({ code: 'syntax_error', expected: 'a shallower expression' }),
    );
    expect(() => compileCondition('!'.repeat(5000) + 'a')).toThrow(
      expect.objectContaining({ code: 'syntax_error' }),
    );
  });

  it('accepts a long flat condition', () => {
    const text = Array.from({ length: 2000 }, (_, i) => `{v${i}} is not defined`).join(' AND ');
    expect(compileCondition(text)({ vars: {} })).toBe(true);
  });

  it('rejects non-string sources in the playbook dialect', () => {
    expect(() => compileCondition({ a: 1 }, { dialect: 'playbook' })).toThrow(
      expect.objectContaining({ code: 'invalid_condition' }),
    );
  });
});
