import {
  coerceParameterValue,
  toHeaderValue,
  toQueryValues,
  type ParameterType,
} from './parameter-values.js';

describe('coerceParameterValue', () => {
  it.each<[ParameterType, unknown, unknown]>([
    ['string', 'acme', 'acme'],
    ['string', 42, '42'],
    ['string', true, 'true'],
    ['number', 1.5, 1.5],
    ['number', '2.25', 2.25],
    ['integer', 7, 7],
    ['integer', '2024', 2024],
    ['boolean', false, false],
    ['boolean', 'TRUE', true],
    ['date', '2024-02-29', '2024-02-29'],
    ['date', '2024-01-02T03:04:05Z', '2024-01-02T03:04:05Z'],
    ['date', '2024-01-02T03:04:05.123+02:00', '2024-01-02T03:04:05.123+02:00'],
    ['object', { a: 1 }, { a: 1 }],
    ['array', ['a', 1], ['a', 1]],
  ])('%s accepts %j', (type, input, output) => {
    expect(coerceParameterValue(type, input)).toEqual({ ok: true, value: output });
  });

  it.each<[ParameterType, unknown, string]>([
    ['string', { a: 1 }, 'expected a string, got an object'],
    ['string', Number.NaN, 'expected a string, got a non-finite number'],
    ['number', 'abc', 'expected a number'],
    ['number', '', 'expected a number'],
    ['number', ' 1', 'expected a number'],
    ['number', Number.POSITIVE_INFINITY, 'expected a number'],
    ['integer', 1.5, 'expected an integer, got a fractional number'],
    ['integer', '1.5', 'expected an integer'],
    ['boolean', 'yes', 'expected a boolean'],
    ['boolean', 1, 'expected a boolean, got a number'],
    ['date', '2023-02-29', 'expected a date'],
    ['date', '2024-13-01', 'expected a date'],
    ['date', '01/02/2024', 'expected a date'],
    ['date', '2024-01-02T25:00:00Z', 'expected a date'],
    ['object', ['a'], 'expected an object, got an array'],
    ['object', null, 'expected an object, got null'],
    ['array', 'a,b', 'expected an array'],
  ])('%s refuses %j', (type, input, reason) => {
    const result = coerceParameterValue(type, input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reason);
  });

  it('describes a refused value by kind, never echoing it', () => {
    const result = coerceParameterValue('number', 'secret-looking-value');
    expect(result.ok || result.reason).not.toContain('secret-looking-value');
  });
});

describe('toQueryValues', () => {
  it('repeats arrays, stringifies scalars and JSON-encodes objects', () => {
    expect(toQueryValues(['a', 2, true])).toEqual(['a', '2', 'true']);
    expect(toQueryValues(3)).toEqual(['3']);
    expect(toQueryValues({ a: 1 })).toEqual(['{"a":1}']);
    expect(toQueryValues([{ a: 1 }])).toEqual(['{"a":1}']);
  });
});

describe('toHeaderValue', () => {
  it('renders scalars as header text', () => {
    expect(toHeaderValue('abc')).toBe('abc');
    expect(toHeaderValue(42)).toBe('42');
    expect(toHeaderValue(false)).toBe('false');
    expect(toHeaderValue('tab\there Zoë')).toBe('tab\there Zoë');
  });

  it.each(['a\r\nX-Evil: 1', 'nul\u0000', 'del\u007f', 'emoji 🙂', 'Ā'])('refuses %j', (value) => {
    expect(toHeaderValue(value)).toBeUndefined();
  });
});
