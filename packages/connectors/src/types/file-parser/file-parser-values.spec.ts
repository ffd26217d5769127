import { TypeMisses, typeValue } from './file-parser-values.js';

describe('typeValue', () => {
  it.each([
    ['  ACME  ', 'string', 'ACME'],
    ['', 'string', ''],
    ['18734562', 'number', 18734562],
    ['-500.25', 'number', -500.25],
    ['1,234,567.50', 'number', 1234567.5],
    ['1e3', 'number', 1000],
    ['50.00', 'integer', 50],
    ['42', 'integer', 42],
    ['X', 'boolean', true],
    ['true', 'boolean', true],
    ['1', 'boolean', true],
    ['No', 'boolean', false],
    ['0', 'boolean', false],
    ['2022-12-31', 'date', '2022-12-31'],
    ['2023-11-10T14:27:51-08:00', 'date', '2023-11-10T14:27:51-08:00'],
    ['   ', 'number', null],
    ['', 'date', null],
  ] as const)('%j as %s is %j', (raw, type, expected) => {
    expect(typeValue(raw, type)).toEqual(expected);
  });

  it.each([
    ['12a', 'number'],
    ['1,23', 'number'],
    ['.', 'number'],
    ['50.5', 'integer'],
    ['99999999999999999999', 'integer'],
    ['maybe', 'boolean'],
    ['2022-02-30', 'date'],
    ['12/31/2022', 'date'],
  ] as const)('%j does not fit %s', (raw, type) => {
    expect(typeValue(raw, type)).toBeUndefined();
  });

  it('types computed XPath values and treats missing ones as null', () => {
    expect(typeValue(5, 'integer')).toBe(5);
    expect(typeValue(5, 'string')).toBe('5');
    expect(typeValue(2.5, 'integer')).toBeUndefined();
    expect(typeValue(Number.NaN, 'number')).toBeUndefined();
    expect(typeValue(true, 'boolean')).toBe(true);
    expect(typeValue(true, 'number')).toBeUndefined();
    expect(typeValue(undefined, 'number')).toBeNull();
    expect(typeValue(null, 'string')).toBeNull();
  });
});

describe('TypeMisses', () => {
  it('returns null for misses and summarises them once per field', () => {
    const misses = new TypeMisses();
    expect(misses.value('12a', 'number', 'amount', 'record 2')).toBeNull();
    expect(misses.value('n/a', 'number', 'amount', 'record 5')).toBeNull();
    expect(misses.value('7', 'number', 'amount', 'record 6')).toBe(7);
    expect(misses.value('someday', 'date', 'when', 'line 3')).toBeNull();
    expect(misses.warnings()).toEqual([
      'field "amount": 2 values are not a number (first: "12a" in record 2); returned as null',
      'field "when": 1 value is not an ISO 8601 date (first: "someday" in line 3); returned as null',
    ]);
  });
});
