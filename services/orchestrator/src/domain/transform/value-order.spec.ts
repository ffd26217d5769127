import { canonicalKey, compareTotal, toFiniteNumber } from './value-order.js';

describe('compareTotal', () => {
  it.each<[unknown, unknown, -1 | 0 | 1]>([
    [false, true, -1],
    [true, 0, -1],
    [2, '10', -1],
    ['10', 10, 0],
    [-0, 0, 0],
    ['1e3', 999, 1],
    ['10', 'a', -1],
    ['B', 'a', -1], // code units, not locale
    ['2024-01-02', '2024-10-01', -1],
    ['z', [], -1],
    [[], [1], -1],
    [[1], [1, 2], -1],
    [[1, 2], [2], -1],
    [[1, 'a'], [1, 'a'], 0],
    [[{ a: 1 }], [{ a: 1 }], 0],
    [[1], {}, -1],
    [{ a: 1 }, { a: 2 }, -1],
    [{ a: 1, b: 2 }, { b: 2, a: 1 }, 0],
    [{}, null, -1],
    [null, undefined, 0],
    [NaN, null, 0],
    [new Date(1), new Date(2), -1],
  ])('%j vs %j → %i', (a, b, expected) => {
    expect(Math.sign(compareTotal(a, b))).toBe(expected);
    expect(Math.sign(compareTotal(b, a))).toBe(-expected || 0);
  });
});

describe('canonicalKey', () => {
  it('is equal exactly for equal values', () => {
    const same: [unknown, unknown][] = [
      [
        { a: 1, b: [1, { c: 'x' }] },
        { b: [1, { c: 'x' }], a: 1 },
      ],
      [null, undefined],
      [0, -0],
      [{ a: 1, u: undefined }, { a: 1 }],
    ];
    for (const [a, b] of same) expect(canonicalKey(a)).toBe(canonicalKey(b));
    const different: [unknown, unknown][] = [
      [1, '1'],
      [true, 'true'],
      [['a,b'], ['a', 'b']],
      [{ 'a:1': 1 }, { a: '1:1' }],
      [[], {}],
      ['', null],
      [[null], []],
      ['n', null],
    ];
    for (const [a, b] of different) expect(canonicalKey(a)).not.toBe(canonicalKey(b));
  });
});

describe('toFiniteNumber', () => {
  it.each<[unknown, number | undefined]>([
    [3, 3],
    [' 2.5 ', 2.5],
    ['', undefined],
    ['  ', undefined],
    ['abc', undefined],
    [Infinity, undefined],
    [NaN, undefined],
    [true, undefined],
    [null, undefined],
    [[1], undefined],
  ])('%j → %j', (v, expected) => {
    expect(toFiniteNumber(v)).toBe(expected);
  });
});
