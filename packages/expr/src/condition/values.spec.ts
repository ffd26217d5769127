import {
  compareValues,
  contains,
  exists,
  isEmpty,
  isIn,
  looseEquals,
  strictEquals,
  truthy,
} from './values.js';

describe('condition value semantics', () => {
  it.each<[unknown, unknown, boolean]>([
    [1, 1, true],
    [1, '1', true],
    ['1.0', 1, true],
    [0, '', false],
    ['', 0, false],
    [' ', 0, false],
    [null, undefined, true],
    [null, 0, false],
    [undefined, '', false],
    [true, 'true', true],
    ['false', false, true],
    [true, 1, true],
    [0, false, true],
    [true, 'yes', false],
    [[1, 2], [1, '2'], true],
    [[1, 2], [1, 2, 3], false],
    [{ a: [1] }, { a: ['1'] }, true],
    [{ a: 1 }, { b: 1 }, false],
    [{ a: 1 }, [1], false],
    [new Date(5), new Date(5), true],
    [new Date(5), 5, false],
    [NaN, NaN, false],
  ])('looseEquals(%p, %p) = %s', (a, b, expected) => {
    expect(looseEquals(a, b)).toBe(expected);
    expect(looseEquals(b, a)).toBe(expected);
  });

  it.each<[unknown, unknown, boolean]>([
    [1, 1, true],
    [1, '1', false],
    [[1, { a: 2 }], [1, { a: 2 }], true],
    [[1], ['1'], false],
    [null, undefined, false],
  ])('strictEquals(%p, %p) = %s', (a, b, expected) => {
    expect(strictEquals(a, b)).toBe(expected);
  });

  it.each<[unknown, unknown, number | 'NaN']>([
    [1, 2, -1],
    ['2024-01-02', '2024-01-10', -1],
    ['b', 'a', 1],
    ['x', 'x', 0],
    ['10', 9, 1],
    [9, '10', -1],
    [new Date(10), new Date(5), 5],
    [null, 1, 'NaN'],
    [true, false, 'NaN'],
    ['abc', 1, 'NaN'],
    [[1], [2], 'NaN'],
    [undefined, undefined, 'NaN'],
  ])('compareValues(%p, %p) has sign %p', (a, b, expected) => {
    const c = compareValues(a, b);
    if (expected === 'NaN') expect(c).toBeNaN();
    else expect(Math.sign(c)).toBe(Math.sign(expected));
  });

  it.each<[unknown, boolean]>([
    [[], false],
    [[0], true],
    [0, false],
    ['', false],
    ['0', true],
    [{}, true],
    [null, false],
    [undefined, false],
  ])('truthy(%p) = %s', (v, expected) => {
    expect(truthy(v)).toBe(expected);
  });

  it.each<[unknown, boolean]>([
    [undefined, true],
    [null, true],
    ['', true],
    [[], true],
    [{}, true],
    [0, false],
    [false, false],
    [' ', false],
    [[null], false],
    [new Date(0), false],
  ])('isEmpty(%p) = %s', (v, expected) => {
    expect(isEmpty(v)).toBe(expected);
    expect(exists(v)).toBe(v !== undefined && v !== null);
  });

  it.each<[unknown, unknown, boolean, boolean]>([
    // needle, haystack, isIn, contains(haystack, needle)
    ['a', ['a', 'b'], true, true],
    ['1', [1], true, true],
    ['ell', 'hello', true, true],
    [3, 12345, false, true],
    [null, 'null', false, false],
    [{ a: 1 }, [{ a: 1 }], true, true],
    ['x', { x: 1 }, false, false],
    ['x', null, false, false],
  ])('isIn(%p, %p) = %s, contains = %s', (needle, haystack, inResult, containsResult) => {
    expect(isIn(needle, haystack)).toBe(inResult);
    expect(contains(haystack, needle)).toBe(containsResult);
  });
});
