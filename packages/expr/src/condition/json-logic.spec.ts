import { ExprError } from '../expr-error.js';
import { collectLogicVariables, compileCondition, evaluateJsonLogic } from './compile-condition.js';
import type { JsonLogic } from './json-logic.types.js';

const data = {
  a: 5,
  s: 'hello',
  n: null,
  flag: true,
  list: [1, 2, 3],
  empty: [],
  notArray: { x: 1 },
  threshold: 2,
  items: [
    { score: 0.9, status: 'ok', tags: ['x'] },
    { score: 0.4, status: 'bad', tags: [] },
  ],
  groups: [{ members: [{ age: 30 }, { age: 17 }] }, { members: [{ age: 40 }] }],
  metadata: { runContextSnapshot: { facets: { planKnobs: { value: { hookIntensity: 0.7 } } } } },
};

describe('JSON-Logic evaluation', () => {
  it.each<[JsonLogic, unknown]>([
    [{ var: 'a' }, 5],
    [{ var: ['a'] }, 5],
    [{ var: ['missing', 'dflt'] }, 'dflt'],
    [{ var: ['missing', { var: 'a' }] }, 5],
    [{ var: 'list.1' }, 2],
    [{ var: 'list[-1]' }, 3],
    [{ var: 'items.0.status' }, 'ok'],
    [{ var: 'items[*].status' }, ['ok', 'bad']],
    [{ var: 'missing' }, undefined],
    [{ var: 1 }, undefined],
    [{ var: 'a b.c' }, undefined],
    [{ var: 'constructor' }, undefined],
    [{ var: 's.length' }, 5],
    [{ var: 'metadata.runContextSnapshot.facets.planKnobs.value.hookIntensity' }, 0.7],
    [{ and: [true, { var: 'a' }] }, true],
    [{ and: [true, { var: 'n' }] }, false],
    [{ and: [] }, true],
    [{ or: [] }, false],
    [{ or: [false, { var: 'empty' }] }, false],
    [{ or: [false, { var: 'list' }, { var: 'boom' }] }, true],
    [{ '!': [{ var: 'empty' }] }, true],
    [{ '!': { var: 'list' } }, false],
    [{ '!!': [{ var: 's' }] }, true],
    [{ '!!': [[]] }, false],
    [{ '==': [1, '1'] }, true],
    [{ '==': [null, { var: 'missing' }] }, true],
    [
      {
        '==': [
          [1, 2],
          [1, '2'],
        ],
      },
      true,
    ],
    [{ '===': [1, '1'] }, false],
    [
      {
        '===': [
          [1, 2],
          [1, 2],
        ],
      },
      true,
    ],
    [{ '!=': [1, 2] }, true],
    [{ '!==': [1, 1] }, false],
    [{ '<': [1, 2] }, true],
    [{ '<': [1, 2, 3] }, true],
    [{ '<': [1, 1, 3] }, false],
    [{ '<=': [1, 1, 3] }, true],
    [{ '<=': [1, 4, 3] }, false],
    [{ '>': [{ var: 'a' }, 4] }, true],
    [{ '>=': [{ var: 'a' }, 5] }, true],
    [{ '>': ['b', 'a'] }, true],
    [{ '>': [{ var: 'a' }, { var: 'threshold' }] }, true],
    [{ in: ['ell', { var: 's' }] }, true],
    [{ in: [2, { var: 'list' }] }, true],
    [{ in: [9, { var: 'list' }] }, false],
    [{ in: [1, { var: 'notArray' }] }, false],
    [{ between: [{ var: 'a' }, 5, 6] }, true],
    [{ between: [{ var: 'a' }, 1, 5] }, false],
    [
      { between: [{ var: 'metadata.runContextSnapshot.facets.planKnobs.value.hookIntensity' }, 0.6, 0.8] },
      true,
    ],
    [{ exists: { var: 'n' } }, false],
    [{ exists: [{ var: 'a' }] }, true],
    [{ is_empty: { var: 'empty' } }, true],
    [{ contains: [{ var: 'list' }, 3] }, true],
    [{ literal: { var: 'a' } }, { var: 'a' }],
    [
      [1, { var: 'a' }],
      [1, 5],
    ],
    [{ some: [{ var: 'items' }, { '>=': [{ var: 'score' }, 0.8] }] }, true],
    [{ some: [{ var: 'items' }, { '==': [{ var: 'item.status' }, 'gone'] }] }, false],
    [{ all: [{ var: 'items' }, { '>': [{ var: 'item.score' }, 0.3] }] }, true],
    [{ all: [{ var: 'items' }, { '>': [{ var: 'score' }, 0.5] }] }, false],
    [{ none: [{ var: 'items' }, { '==': [{ var: 'status' }, 'gone'] }] }, true],
    [{ some: [{ var: 'list' }, { '>': [{ var: '' }, 2] }] }, true],
    [{ some: [{ var: 'list' }, { '>': [{ var: 'item' }, { var: 'threshold' }] }] }, true],
    [{ all: [{ var: 'list' }, { '>': [{ var: 'item' }, { var: 'threshold' }] }] }, false],
    [{ some: [{ var: 'items' }, { some: [{ var: 'tags' }, { '==': [{ var: '' }, 'x'] }] }] }, true],
    [
      {
        some: [
          { var: 'groups' },
          { all: [{ var: 'g.members' }, { '>=': [{ var: 'm.age' }, 18] }, 'm'] },
          'g',
        ],
      },
      true,
    ],
    [{ some: [{ var: 'empty' }, true] }, false],
    [{ all: [{ var: 'empty' }, true] }, false],
    [{ none: [{ var: 'empty' }, true] }, true],
    [{ some: [{ var: 'missing' }, true] }, false],
    [{ all: [{ var: 'n' }, true] }, false],
    [{ none: [{ var: 'missing' }, true] }, true],
  ])('%j → %j', (logic, expected) => {
    expect(evaluateJsonLogic(logic, data)).toEqual(expected);
  });

  it('returns the data itself for var ""', () => {
    expect(evaluateJsonLogic({ var: '' }, 7)).toBe(7);
    expect(evaluateJsonLogic({ var: 'x' }, null)).toBeUndefined();
    expect(evaluateJsonLogic({ var: 'x' }, 'str')).toBeUndefined();
  });

  it('passes scope built-ins through', () => {
    expect(evaluateJsonLogic({ var: 'today' }, {}, { now: new Date('2020-01-02T00:00:00Z') })).toBe(
      '2020-01-02',
    );
  });

  it.each<[JsonLogic, string]>([
    [{ some: [{ var: 'notArray' }, true] }, 'some[0]'],
    [{ all: [{ var: 'a' }, true] }, 'all[0]'],
    [{ none: [{ var: 's' }, true] }, 'none[0]'],
    [{ and: [true, { some: [{ var: 'notArray' }, true] }] }, 'and[1].some[0]'],
  ])('quantifier over a non-array: %j → invalid_condition at %s', (logic, path) => {
    expect(() => evaluateJsonLogic(logic, data)).toThrow(
      expect.objectContaining({ code: 'invalid_condition', path }),
    );
  });

  it.each<[unknown, string, string]>([
    [{ frob: [1] }, 'unknown_operator', 'frob'],
    [{ and: [{ '==': [1] }] }, 'invalid_condition', 'and[0].=='],
    [{ '==': [1, 2, 3] }, 'invalid_condition', '=='],
    [{ '>': [1, 2, 3] }, 'invalid_condition', '>'],
    [{ between: [1, 2] }, 'invalid_condition', 'between'],
    [{ '!': [1, 2] }, 'invalid_condition', '!'],
    [{ some: [[1], true, 5] }, 'invalid_condition', 'some[2]'],
    [{ some: [[1]] }, 'invalid_condition', 'some'],
    [{ var: { a: 1 } }, 'invalid_condition', 'var'],
    [{ var: ['a', 1, 2] }, 'invalid_condition', 'var'],
    [{ a: 1, b: 2 }, 'invalid_condition', ''],
    [{}, 'invalid_condition', ''],
    [JSON.parse('{"__proto__": [1]}'), 'unknown_operator', '__proto__'],
    [{ constructor: [1] }, 'unknown_operator', 'constructor'],
  ])('%j → %s at %s', (logic, code, path) => {
    let err: unknown;
    try {
      compileCondition(logic, { dialect: 'jsonlogic' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ExprError);
    expect(err).toMatchObject({ code, path });
  });

  it.each<[unknown]>([[Number.NaN], [{ '==': [1, Infinity] }], [{ x: () => 1 }], [undefined]])(
    'rejects non-JSON input %p',
    (logic) => {
      expect(() => compileCondition(logic, { dialect: 'jsonlogic' })).toThrow(ExprError);
    },
  );

  it('treats strings as literals in the jsonlogic dialect', () => {
    expect(compileCondition('a > 1', { dialect: 'jsonlogic' }).ast).toBe('a > 1');
    expect(compileCondition('', { dialect: 'jsonlogic' })({ vars: {} })).toBe(false);
  });

  it('collects root variables, skipping element-relative ones', () => {
    expect(
      collectLogicVariables({
        and: [
          { some: [{ var: 'items' }, { '>': [{ var: 'item.score' }, { var: 'threshold' }] }] },
          { all: [{ var: 'xs' }, { '==': [{ var: 'x.y' }, { var: '' }] }, 'x'] },
          { var: ['a.0', { var: 'b' }] },
          { literal: { var: 'nope' } },
          { var: 'a.0' },
        ],
      }),
    ).toEqual(['items', 'threshold', 'xs', 'a.0', 'b']);
  });
});
