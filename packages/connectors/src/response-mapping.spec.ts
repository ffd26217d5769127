import { applyResponseMapping } from './response-mapping.js';

describe('applyResponseMapping', () => {
  const body = {
    data: {
      search: {
        edges: [
          { node: { nameWithOwner: 'a/x', stargazerCount: 5, owner: { login: 'a' } } },
          { node: { nameWithOwner: 'b/y', owner: null } },
        ],
      },
    },
  };

  it('selects results_path and maps fields by dot path; missing values become null', () => {
    const result = applyResponseMapping(body, {
      results_path: 'data.search.edges',
      fields: { name: 'node.nameWithOwner', stars: 'node.stargazerCount', owner: 'node.owner.login' },
    });

    expect(result).toEqual({
      results: [
        { name: 'a/x', stars: 5, owner: 'a' },
        { name: 'b/y', stars: null, owner: null },
      ],
      count: 2,
    });
  });

  it('wraps an object at results_path into one record', () => {
    const result = applyResponseMapping(
      { result: { id: 7, name: 'Acme' } },
      { results_path: 'result', fields: { name: 'name' } },
    );

    expect(result).toEqual({ results: [{ name: 'Acme' }], count: 1 });
  });

  it('passes records through unchanged without fields, and wraps non-objects as { value }', () => {
    const result = applyResponseMapping({ items: [{ a: 1 }, 'two', 3, null] }, { results_path: 'items' });

    expect(result.results).toEqual([{ a: 1 }, { value: 'two' }, { value: 3 }, { value: null }]);
    expect(result.count).toBe(4);
  });

  it('uses the whole body without results_path: a list as records, an object as one record', () => {
    expect(applyResponseMapping([{ a: 1 }, { a: 2 }], undefined).count).toBe(2);
    expect(applyResponseMapping({ a: 1 }, { fields: { b: 'a' } }).results).toEqual([{ b: 1 }]);
  });

  it('supports array indices in field paths', () => {
    const result = applyResponseMapping([{ tags: ['x', 'y'] }], {
      fields: { second: 'tags[1]', first: 'tags.0' },
    });
    expect(result.results).toEqual([{ second: 'y', first: 'x' }]);
  });

  it('returns no records and no warning when results_path holds null', () => {
    expect(applyResponseMapping({ results: null }, { results_path: 'results' })).toEqual({
      results: [],
      count: 0,
    });
  });

  it('warns when results_path is missing from the response', () => {
    const result = applyResponseMapping({ other: [] }, { results_path: 'results' });

    expect(result).toEqual({
      results: [],
      count: 0,
      warnings: [expect.stringContaining('results_path "results" was not found')],
    });
  });

  it('warns when the selected value is a scalar', () => {
    expect(applyResponseMapping({ results: 'oops' }, { results_path: 'results' }).warnings).toEqual([
      expect.stringContaining('results_path "results" is a string'),
    ]);
    expect(applyResponseMapping(42, undefined).warnings).toEqual([
      expect.stringContaining('the response body is a number'),
    ]);
  });

  it('does not copy prototype keys into records', () => {
    const result = applyResponseMapping(JSON.parse('[{"__proto__": {"polluted": true}, "a": 1}]'), {
      fields: { p: '__proto__.polluted', a: 'a' },
    });

    expect(result.results).toEqual([{ p: true, a: 1 }]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps a mapped field named __proto__ as an own value instead of setting the record’s prototype', () => {
    const result = applyResponseMapping([{ a: { polluted: true } }, { b: 1 }], {
      fields: { ['__proto__']: 'a', b: 'b' },
    });

    const [first, second] = result.results as Array<Record<string, unknown>>;
    expect(Object.getPrototypeOf(first)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(first, '__proto__')?.value).toEqual({ polluted: true });
    expect(first?.polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(second, '__proto__')?.value).toBeNull();
    expect(Object.keys(second ?? {})).toEqual(['__proto__', 'b']);
  });

  it('maps every record to the same fields in declaration order, whatever each item holds', () => {
    const mapping = { fields: { z: 'z', a: 'deep.a', m: 'list[1]' } };
    const result = applyResponseMapping(
      [{ deep: { a: 1 }, list: [0, 'x'] }, { z: 'last' }, 'scalar'],
      mapping,
    );
    expect(result.results).toEqual([
      { z: null, a: 1, m: 'x' },
      { z: 'last', a: null, m: null },
      { z: null, a: null, m: null },
    ]);
    expect(result.results.map((r) => Object.keys(r))).toEqual([
      ['z', 'a', 'm'],
      ['z', 'a', 'm'],
      ['z', 'a', 'm'],
    ]);
    // A second call with the same mapping object reuses its compiled paths and gives the same answer.
    expect(applyResponseMapping([{ z: 0 }], mapping).results).toEqual([{ z: 0, a: null, m: null }]);
  });

  describe('pagination', () => {
    const page = {
      results: [{ a: 1 }],
      pagination: { last_indexes: { last_index: 'abc' }, more: true, n: 12 },
    };

    it('reads the next cursor and derives has_more from it', () => {
      const result = applyResponseMapping(
        page,
        { results_path: 'results' },
        { next_cursor_path: 'pagination.last_indexes.last_index' },
      );
      expect(result).toMatchObject({ has_more: true, next_cursor: 'abc', count: 1 });
    });

    it('reads an explicit has_more flag and numeric cursors', () => {
      const result = applyResponseMapping(
        page,
        { results_path: 'results' },
        { has_more_path: 'pagination.more', next_cursor_path: 'pagination.n' },
      );
      expect(result).toMatchObject({ has_more: true, next_cursor: '12' });
    });

    it('reports no more pages when the cursor is absent or empty', () => {
      expect(
        applyResponseMapping({ results: [] }, { results_path: 'results' }, { next_cursor_path: 'next' }),
      ).toEqual({ results: [], count: 0, has_more: false });
      expect(
        applyResponseMapping(
          { results: [], next: '' },
          { results_path: 'results' },
          { next_cursor_path: 'next' },
        ).has_more,
      ).toBe(false);
      expect(applyResponseMapping({ more: 'no' }, undefined, { has_more_path: 'more' }).has_more).toBe(false);
    });

    it('leaves has_more to the executor for runtime-driven pagination (pagination.type)', () => {
      const result = applyResponseMapping(
        page,
        { results_path: 'results' },
        {
          type: 'cursor',
          cursor_param: 'c',
          next_cursor_path: 'pagination.n',
        },
      );
      expect(result).toEqual({ results: [{ a: 1 }], count: 1 });
    });
  });
});
