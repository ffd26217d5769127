import { formatFieldPath, getByDotPath, parseDotPath } from './dot-path.js';

describe('parseDotPath', () => {
  it.each([
    ['data.search.edges', ['data', 'search', 'edges']],
    ['node.owner.login', ['node', 'owner', 'login']],
    ['results[0].name', ['results', 0, 'name']],
    ['matrix[1][2]', ['matrix', 1, 2]],
    ['results.0.name', ['results', '0', 'name']],
    ['single', ['single']],
  ])('%s → %j', (path, segments) => {
    expect(parseDotPath(path)).toEqual(segments);
  });

  it.each(['', '.a', 'a.', 'a..b', 'a b', ' a', 'a[', 'a[x]', '[0].a', 'a.[0]'])('refuses %j', (path) => {
    expect(parseDotPath(path)).toBeUndefined();
  });
});

describe('getByDotPath', () => {
  const body = {
    data: { items: [{ name: 'a', tags: ['x', 'y'] }, { name: 'b' }] },
    zero: 0,
    nil: null,
  };

  it.each([
    ['data.items[0].name', 'a'],
    ['data.items.1.name', 'b'],
    ['data.items[0].tags[1]', 'y'],
    ['zero', 0],
    ['nil', null],
  ])('%s → %j', (path, value) => {
    expect(getByDotPath(body, path)).toEqual(value);
  });

  it.each([
    'missing',
    'data.items[5].name',
    'data.items.x',
    'zero.more',
    'nil.more',
    'data.items[0].name.length',
  ])('%s is undefined', (path) => {
    expect(getByDotPath(body, path)).toBeUndefined();
  });

  it('never follows prototype properties', () => {
    expect(getByDotPath({}, '__proto__')).toBeUndefined();
    expect(getByDotPath({}, 'constructor.name')).toBeUndefined();
    expect(getByDotPath([], 'length')).toBeUndefined();
  });

  it('accepts pre-split segments', () => {
    expect(getByDotPath(body, ['data', 'items', 0, 'name'])).toBe('a');
  });
});

describe('formatFieldPath', () => {
  it('joins keys with dots and indices in brackets', () => {
    expect(formatFieldPath(['endpoints', 'search', 'parameters', 0, 'name'])).toBe(
      'endpoints.search.parameters[0].name',
    );
    expect(formatFieldPath([])).toBe('');
  });
});
