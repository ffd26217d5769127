import { ExprError } from '../expr-error.js';
import type { Scope } from '../scope.js';
import { compileCondition } from './compile-condition.js';
import { CONDITION_OBJECT_OPERATORS } from './object-condition.js';

const scope: Scope = {
  vars: {
    step1: {
      data: {
        score: 82,
        email: 'a@vip.com',
        tags: ['vip', 'new'],
        empty: [],
        blank: '',
        none: null,
        zero: 0,
      },
    },
    step2: { data: { priority: 'high' } },
    step3: { result: true },
    threshold: 80,
  },
};

const run = (cond: unknown) => compileCondition(cond)(scope);

describe('condition objects: every operator', () => {
  it.each([
    ['==', 'step2.data.priority', 'high', true],
    ['equals', 'step2.data.priority', 'low', false],
    ['eq', 'step1.data.score', '82', true],
    ['!=', 'step2.data.priority', 'low', true],
    ['not_equals', 'step2.data.priority', 'high', false],
    ['ne', 'step1.data.score', 82, false],
    ['neq', 'step1.data.score', 1, true],
    ['>', 'step1.data.score', 70, true],
    ['greater_than', 'step1.data.score', 82, false],
    ['gt', 'step1.data.score', 81, true],
    ['>=', 'step1.data.score', 82, true],
    ['greater_than_or_equal', 'step1.data.score', 83, false],
    ['gte', 'step1.data.score', 82, true],
    ['<', 'step1.data.score', 83, true],
    ['less_than', 'step1.data.score', 82, false],
    ['lt', 'step1.data.score', 100, true],
    ['<=', 'step1.data.score', 82, true],
    ['less_than_or_equal', 'step1.data.score', 81, false],
    ['lte', 'step1.data.score', 81, false],
    ['contains', 'step1.data.email', 'vip', true],
    ['contains', 'step1.data.tags', 'new', true],
    ['contains', 'step1.data.score', 2, true],
    ['contains', 'step1.data.none', 'x', false],
    ['not_contains', 'step1.data.email', 'vip', false],
    ['not_contains', 'step1.data.tags', 'old', true],
    ['in', 'step2.data.priority', ['high', 'urgent'], true],
    ['in', 'step1.data.score', ['82'], true],
    ['in', 'step2.data.priority', [], false],
    ['not_in', 'step2.data.priority', ['low'], true],
    ['not_in', 'step2.data.priority', ['high'], false],
    ['exists', 'step1.data.score', undefined, true],
    ['exists', 'step1.data.none', undefined, false],
    ['exists', 'step9.data', undefined, false],
    ['not_exists', 'step9.data', undefined, true],
    ['not_exists', 'step1.data.zero', undefined, false],
    ['is_empty', 'step1.data.empty', undefined, true],
    ['is_empty', 'step1.data.blank', undefined, true],
    ['is_empty', 'step1.data.none', undefined, true],
    ['is_empty', 'step9.nothing', undefined, true],
    ['is_empty', 'step1.data.zero', undefined, false],
    ['is_empty', 'step1.data.tags', undefined, false],
    ['is_not_empty', 'step1.data.tags', undefined, true],
    ['is_not_empty', 'step1.data.empty', undefined, false],
    ['GREATER_THAN', 'step1.data.score', 1, true],
  ])('%s: %s vs %j → %s', (operator, field, value, expected) => {
    expect(run({ field, operator, value })).toBe(expected);
  });

  it('covers the whole operator list of the workflow seed', () => {
    for (const op of [
      '==',
      'equals',
      '!=',
      'not_equals',
      '>',
      'greater_than',
      '>=',
      'greater_than_or_equal',
      '<',
      'less_than',
      '<=',
      'less_than_or_equal',
      'contains',
      'not_contains',
      'in',
      'not_in',
      'exists',
      'not_exists',
      'is_empty',
      'is_not_empty',
    ]) {
      expect(CONDITION_OBJECT_OPERATORS).toContain(op);
    }
  });
});

describe('condition objects: fields, values, nesting', () => {
  it.each([
    [{ field: '{{step1.data.score}}', operator: '>', value: 70 }, true],
    [{ field: '{step1.data.score}', operator: '>', value: 70 }, true],
    [{ field: 'step1.data.score', operator: '>', value: '{threshold}' }, true],
    [{ field: 'step1.data.score', operator: '<', value: '{{threshold}}' }, false],
    [{ field: 'step1.data.email', operator: '==', value: '{not a ref}' }, false],
    [{ field: 'step1.data.tags', operator: '==', value: ['vip', 'new'] }, true],
    [{ field: 'step1.data', operator: 'contains', value: 'x' }, false],
    [{ field: 'step1.data.none', operator: '==', value: null }, true],
    [
      {
        and: [
          { field: 'step1.data.score', operator: '>', value: 70 },
          { field: 'step3.result', operator: '==', value: true },
        ],
      },
      true,
    ],
    [
      {
        or: [
          { field: 'step1.data.score', operator: '>', value: 90 },
          { field: 'step3.result', operator: '==', value: false },
        ],
      },
      false,
    ],
    [{ not: { field: 'step1.data.score', operator: '>', value: 90 } }, true],
    [{ not: [{ field: 'step1.data.score', operator: '>', value: 90 }] }, true],
    [{ and: [] }, true],
    [{ or: [] }, false],
    [{ and: ['step3.result == true', { not: 'step1.data.score < 50' }] }, true],
    ['step1.data.score > 70 && step3.result', true],
    [
      { and: [{ '>': [{ var: 'step1.data.score' }, 70] }, { field: 'step3.result', operator: 'exists' }] },
      true,
    ],
    [{ field: 'step1.data', operator: '==', value: { score: 82 } }, false],
    [true, true],
    [false, false],
  ])('%j → %s', (cond, expected) => {
    expect(run(cond)).toBe(expected);
  });

  it('keeps object values literal', () => {
    const c = compileCondition({ field: 'x', operator: '==', value: { var: 'y' } });
    expect(c.ast).toEqual({ '==': [{ var: 'x' }, { literal: { var: 'y' } }] });
    expect(c({ vars: { x: { var: 'y' }, y: 1 } })).toBe(true);
  });

  it('lists variables of nested objects', () => {
    const c = compileCondition({
      and: [
        { field: 'a.b', operator: '>', value: '{c}' },
        { not: 'd is defined' },
        { field: '{{a.b}}', operator: 'exists' },
      ],
    });
    expect(c.variables).toEqual(['a.b', 'c', 'd']);
  });

  it.each([
    [{ field: 'a', operator: 'between', value: 1 }, 'unknown_operator', 'operator'],
    [{ field: 'a', operator: 7, value: 1 }, 'invalid_condition', 'operator'],
    [{ field: 'a', operator: '==' }, 'invalid_condition', 'value'],
    [{ field: 'a', operator: 'in', value: 'abc' }, 'invalid_condition', 'value'],
    [{ field: 'a', operator: 'not_in', value: 3 }, 'invalid_condition', 'value'],
    [{ field: '', operator: '==', value: 1 }, 'invalid_condition', 'field'],
    [{ field: 3, operator: '==', value: 1 }, 'invalid_condition', 'field'],
    [{ field: 'a..b', operator: '==', value: 1 }, 'invalid_condition', 'field'],
    [{ field: '{a} {b}', operator: '==', value: 1 }, 'invalid_condition', 'field'],
    [{ field: 'a', operator: '==', value: 1, extra: true }, 'invalid_condition', 'extra'],
    [{ field: 'a', operator: '>', value: Number.NaN }, 'invalid_condition', 'value'],
    [
      {
        and: [
          { field: 'a', operator: '==', value: 1 },
          { field: 'b', operator: 'nope', value: 1 },
        ],
      },
      'unknown_operator',
      'and[1].operator',
    ],
    [{ or: { field: 'a', operator: '==', value: 1 } }, 'invalid_condition', 'or'],
    [{ not: { and: [7] } }, 'invalid_condition', 'not.and[0]'],
    [{ and: ['a >'] }, 'syntax_error', 'and[0]'],
    [{ and: [1], or: [] }, 'invalid_condition', ''],
    [{}, 'invalid_condition', ''],
    [{ frobnicate: 1 }, 'unknown_operator', 'frobnicate'],
    [null, 'invalid_condition', ''],
    [42, 'invalid_condition', ''],
    [[{ field: 'a', operator: '==', value: 1 }], 'invalid_condition', ''],
  ])('%j → %s at %s', (cond, code, path) => {
    let err: unknown;
    try {
      compileCondition(cond, { dialect: 'object' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ExprError);
    expect((err as ExprError).code).toBe(code);
    expect((err as ExprError).path ?? '').toBe(path);
  });
});
