import { CliError } from './io.js';
import { parseKeyValues } from './key-values.js';

describe('parseKeyValues', () => {
  it('collects name=value pairs; values may contain =', () => {
    expect(parseKeyValues(['q=acme', 'filter=a=b', 'empty='], '--param')).toEqual({
      q: 'acme',
      filter: 'a=b',
      empty: '',
    });
    expect(parseKeyValues([], '--param')).toEqual({});
  });

  it('refuses pairs without a name, and repeated names, without echoing values', () => {
    expect(() => parseKeyValues(['sk-secret-value'], '--credential')).toThrow(
      new CliError('--credential #1 must be name=value'),
    );
    expect(() => parseKeyValues(['=x'], '--param')).toThrow('--param #1 must be name=value');
    expect(() => parseKeyValues(['a=1', 'a=2'], '--param')).toThrow('--param a is given twice');
  });
});
