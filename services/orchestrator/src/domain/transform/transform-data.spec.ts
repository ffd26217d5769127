import { transformData } from './transform-data.js';

type Row = Record<string, unknown>;

const people: Row[] = [
  { id: 1, name: 'Ada', type: 'PERSON', score: 0.9, tags: ['math', 'code'], address: { city: 'London' } },
  { id: 2, name: 'ACME', type: 'ORG', score: '0.5', tags: [], address: { city: 'Paris' } },
  { id: 3, name: 'Bob', type: 'PERSON', score: null, address: { city: 'Paris' } },
  { id: 4, name: 'Ada', type: 'PERSON', score: 0.7, tags: ['code'] },
  { id: 5, name: 'Cy', type: 'ORG', score: 2, tags: ['x'], address: { city: 'Berlin' } },
];

const run = (operations: unknown[], data: unknown = people) => transformData({ data }, { operations });
const ids = (operations: unknown[], data: unknown = people) =>
  (run(operations, data).data as Row[]).map((r) => r.id);

/** Freezes a value and everything inside it, so any write throws. */
function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    Object.values(v).forEach(deepFreeze);
    Object.freeze(v);
  }
  return v;
}

describe('transformData: filter', () => {
  it.each<[string, string | undefined, unknown, unknown[]]>([
    ['eq', 'type', 'PERSON', [1, 3, 4]],
    ['eq', 'score', '2', [5]], // loose: a number equals its numeric string
    ['eq', 'score', null, [3]],
    ['eq', 'address.city', 'Paris', [2, 3]],
    ['ne', 'type', 'PERSON', [2, 5]],
    ['ne', 'address.city', 'Paris', [1, 4, 5]], // row 4 has no address: it is not Paris
    ['gt', 'score', 0.6, [1, 4, 5]], // null never compares
    ['gte', 'score', 0.5, [1, 2, 4, 5]], // '0.5' compares as a number
    ['lt', 'score', 0.8, [2, 4]],
    ['lte', 'score', 0.7, [2, 4]],
    ['gt', 'name', 'B', [3, 5]], // strings by code units
    ['lt', 'address.city', 'M', [1, 5]], // a missing field never passes lt
    ['contains', 'tags', 'code', [1, 4]],
    ['contains', 'name', 'd', [1, 4]],
    ['not_contains', 'tags', 'code', [2, 3, 5]],
    ['in', 'type', ['ORG', 'X'], [2, 5]],
    ['in', 'id', ['1', 3], [1, 3]],
    ['not_in', 'type', ['ORG'], [1, 3, 4]],
    ['exists', 'score', true, [1, 2, 4, 5]],
    ['exists', 'address', undefined, [1, 2, 3, 5]],
    ['exists', 'address', false, [4]],
    ['starts_with', 'name', 'A', [1, 2, 4]],
    ['ends_with', 'address.city', 'is', [2, 3]],
    ['contains', 'tags[*]', 'x', [5]],
    ['eq', 'tags[0]', 'code', [4]],
    ['eq', 'tags[-1]', 'code', [1, 4]],
  ])('%s on %s %j', (operator, field, value, expected) => {
    const op: Row = { type: 'filter', operator, field };
    if (value !== undefined) op.value = value;
    expect(ids([op])).toEqual(expected);
  });

  it('filters an array of scalars when no field is given', () => {
    expect(run([{ type: 'filter', operator: 'gt', value: 2 }], [1, 5, '3', 2, null]).data).toEqual([5, '3']);
    expect(
      run([{ type: 'filter', operator: 'starts_with', value: 'https:' }], ['https://a', 'http://b']).data,
    ).toEqual(['https://a']);
  });

  it('reads own properties only, never the prototype', () => {
    for (const field of [
      'constructor',
      '__proto__',
      'toString',
      'hasOwnProperty',
      'address.constructor',
      'tags.map',
      'name.constructor',
    ]) {
      expect(ids([{ type: 'filter', field, operator: 'exists', value: true }])).toEqual([]);
    }
    // `length` is an own property of arrays and strings, so it is readable.
    expect(ids([{ type: 'filter', field: 'tags.length', operator: 'gt', value: 0 }])).toEqual([1, 4, 5]);
    const own = JSON.parse('[{"id":1,"__proto__":{"x":1}},{"id":2}]') as unknown[];
    expect(ids([{ type: 'filter', field: '__proto__.x', operator: 'eq', value: 1 }], own)).toEqual([1]);
    expect(({} as Row).x).toBeUndefined();
  });

  it('negations are exact complements, so together they keep every row', () => {
    const pairs: [string, string, unknown][] = [
      ['eq', 'ne', 'Paris'],
      ['in', 'not_in', ['Paris', 'Berlin']],
      ['contains', 'not_contains', 'is'],
    ];
    for (const [yes, no, value] of pairs) {
      const a = ids([{ type: 'filter', field: 'address.city', operator: yes, value }]);
      const b = ids([{ type: 'filter', field: 'address.city', operator: no, value }]);
      expect([...a, ...b].sort()).toEqual([1, 2, 3, 4, 5]);
    }
  });
});

describe('transformData: sort', () => {
  it.each<[string, string | undefined, unknown[]]>([
    ['score', 'asc', [2, 4, 1, 5, 3]], // '0.5' as a number; null last
    ['score', 'desc', [5, 1, 4, 2, 3]], // null still last
    ['score', undefined, [2, 4, 1, 5, 3]], // asc by default
    ['name', 'asc', [2, 1, 4, 3, 5]], // 'ACME' < 'Ada' by code units; the two Adas keep their order
    ['name', 'desc', [5, 3, 1, 4, 2]], // stable in desc too
    ['address.city', 'asc', [5, 1, 2, 3, 4]], // missing last
    ['address.city', 'desc', [2, 3, 1, 5, 4]],
    ['tags[0]', 'asc', [4, 1, 5, 2, 3]],
  ])('by %s %s', (field, direction, expected) => {
    const op: Row = { type: 'sort', field };
    if (direction) op.direction = direction;
    expect(ids([op])).toEqual(expected);
  });

  it('orders mixed types deterministically: booleans < numbers < strings < arrays < objects < no value', () => {
    const values = [true, 'b', 3, null, { a: 1 }, [1], '10', false, 'a', undefined, [0, 5], NaN];
    const rows = values.map((v, id) => (v === undefined ? { id } : { id, v }));
    const byId = (out: unknown[]) => (out as Row[]).map((r) => values[r.id as number]);
    expect(byId(run([{ type: 'sort', field: 'v' }], rows).data)).toEqual([
      false,
      true,
      3,
      '10',
      'a',
      'b',
      [0, 5],
      [1],
      { a: 1 },
      null,
      undefined,
      NaN,
    ]);
    expect(byId(run([{ type: 'sort', field: 'v', direction: 'desc' }], rows).data)).toEqual([
      { a: 1 },
      [1],
      [0, 5],
      'b',
      'a',
      '10',
      3,
      true,
      false,
      null,
      undefined,
      NaN,
    ]);
  });

  it('sorts scalars without a field, numeric strings by value', () => {
    expect(run([{ type: 'sort' }], ['10', 9, '9.5', 'x', -1]).data).toEqual([-1, 9, '9.5', '10', 'x']);
  });

  it('gives a multi-key sort by sorting the secondary key first (stability)', () => {
    expect(
      ids([
        { type: 'sort', field: 'name' },
        { type: 'sort', field: 'type' },
      ]),
    ).toEqual([2, 5, 1, 4, 3]);
  });
});

describe('transformData: aggregate', () => {
  const agg = (op: Row, data: unknown = people) => run([{ type: 'aggregate', ...op }], data).data;

  it.each<[string, Row, unknown[]]>([
    ['count of all rows (no params)', {}, [{ count: 5 }]],
    ['count of rows with a field', { operator: 'count', field: 'address' }, [{ count: 4 }]],
    [
      'count by type (shorthand value = group)',
      { operator: 'count', value: 'type' },
      [
        { type: 'PERSON', count: 3 },
        { type: 'ORG', count: 2 },
      ],
    ],
    ['max over a field', { operator: 'max', field: 'score' }, [{ max: 2 }]],
    ['min keeps the original value', { operator: 'min', field: 'score' }, [{ min: '0.5' }]],
    ['max of strings', { operator: 'max', field: 'name' }, [{ max: 'Cy' }]],
    ['min of nothing is null', { operator: 'min', field: 'nope' }, [{ min: null }]],
    ['sum of nothing is 0', { operator: 'sum', field: 'nope' }, [{ sum: 0 }]],
    ['avg of nothing is null', { operator: 'avg', field: 'nope' }, [{ avg: null }]],
    [
      'missing and null group together',
      { value: 'address.city' },
      [
        { address: { city: 'London' }, count: 1 },
        { address: { city: 'Paris' }, count: 2 },
        { address: { city: null }, count: 1 },
        { address: { city: 'Berlin' }, count: 1 },
      ],
    ],
  ])('%s', (_name, op, expected) => {
    expect(agg(op)).toEqual(expected);
  });

  it('sums and averages numbers and numeric strings, skipping the rest', () => {
    expect(agg({ operator: 'sum', field: 'score' })).toEqual([{ sum: expect.closeTo(4.1, 12) }]);
    expect(agg({ operator: 'avg', field: 'score', value: 'type' })).toEqual([
      { type: 'PERSON', avg: expect.closeTo(0.8, 12) },
      { type: 'ORG', avg: expect.closeTo(1.25, 12) },
    ]);
    expect(
      agg({ operator: 'sum', field: 'v' }, [{ v: 1 }, { v: 'x' }, { v: true }, { v: [2] }, { v: ' 3 ' }, {}]),
    ).toEqual([{ sum: 4 }]);
  });

  it('takes group_by and several named metrics, nesting dotted group paths', () => {
    const out = agg({
      group_by: ['type', 'address.city'],
      metrics: [
        { operator: 'count' },
        { operator: 'max', field: 'score', as: 'top' },
        { operator: 'sum', field: 'id', as: 'ids' },
      ],
    });
    expect(out).toEqual([
      { type: 'PERSON', address: { city: 'London' }, count: 1, top: 0.9, ids: 1 },
      { type: 'ORG', address: { city: 'Paris' }, count: 1, top: '0.5', ids: 2 },
      { type: 'PERSON', address: { city: 'Paris' }, count: 1, top: null, ids: 3 },
      { type: 'PERSON', address: { city: null }, count: 1, top: 0.7, ids: 4 },
      { type: 'ORG', address: { city: 'Berlin' }, count: 1, top: 2, ids: 5 },
    ]);
    expect(agg({ group_by: 'type' })).toEqual([
      { type: 'PERSON', count: 3 },
      { type: 'ORG', count: 2 },
    ]);
    expect(agg({ group_by: ['a.x', 'a.y'] }, [{ a: { x: 1, y: 2 } }])).toEqual([
      { a: { x: 1, y: 2 }, count: 1 },
    ]);
  });

  it('groups strictly by kind: 1 and "1" are different groups', () => {
    expect(
      agg({ value: 'k' }, [{ k: 1 }, { k: '1' }, { k: 1 }, { k: { a: 1, b: 2 } }, { k: { b: 2, a: 1 } }]),
    ).toEqual([
      { k: 1, count: 2 },
      { k: '1', count: 1 },
      { k: { a: 1, b: 2 }, count: 2 },
    ]);
  });

  it('returns one row for empty input without grouping, none with grouping', () => {
    expect(agg({}, [])).toEqual([{ count: 0 }]);
    expect(
      agg(
        {
          group_by: [],
          metrics: [
            { operator: 'sum', field: 'x' },
            { operator: 'max', field: 'x' },
          ],
        },
        [],
      ),
    ).toEqual([{ sum: 0, max: null }]);
    expect(agg({ value: 'type' }, [])).toEqual([]);
  });

  it('sums long columns without drift (compensated summation)', () => {
    const rows = Array.from({ length: 10_000 }, () => ({ v: 0.1 }));
    expect(agg({ operator: 'sum', field: 'v' }, rows)).toEqual([{ sum: 1000 }]);
  });
});

describe('transformData: deduplicate, limit, map', () => {
  it.each<[string, Row, unknown[]]>([
    ['by one field, keeping the first', { field: 'name' }, [1, 2, 3, 5]],
    ['by several fields', { fields: ['name', 'type'] }, [1, 2, 3, 5]],
    ['by a nested field (missing equals null)', { field: 'address.city' }, [1, 2, 4, 5]],
    ['by whole rows', {}, [1, 2, 3, 4, 5]],
  ])('deduplicate %s', (_name, op, expected) => {
    expect(ids([{ type: 'deduplicate', ...op }])).toEqual(expected);
  });

  it('deduplicates whole rows structurally, strictly by kind', () => {
    const rows = [{ a: 1, b: 2 }, { b: 2, a: 1 }, { a: 1 }, { a: '1' }, { a: 1, c: undefined }, 1, '1', 1];
    expect(run([{ type: 'deduplicate' }], rows).data).toEqual([{ a: 1, b: 2 }, { a: 1 }, { a: '1' }, 1, '1']);
  });

  it.each<[Row, unknown[]]>([
    [{ value: 2 }, [1, 2]],
    [{ n: 0 }, []],
    [{ value: 10 }, [1, 2, 3, 4, 5]],
  ])('limit %j', (op, expected) => {
    expect(ids([{ type: 'limit', ...op }])).toEqual(expected);
  });

  it('maps rows onto new names; missing paths become null', () => {
    const out = run([
      { type: 'map', mapping: { who: 'name', city: 'address.city', first_tag: 'tags[0]', 'odd key': 'id' } },
    ]).data;
    expect(out[0]).toEqual({ who: 'Ada', city: 'London', first_tag: 'math', 'odd key': 1 });
    expect(out[2]).toEqual({ who: 'Bob', city: 'Paris', first_tag: null, 'odd key': 3 });
    expect(out[3]).toEqual({ who: 'Ada', city: null, first_tag: 'code', 'odd key': 4 });
    expect(run([{ type: 'map', mapping: { all_tags: 'tags[*]' } }]).data[1]).toEqual({ all_tags: [] });
  });
});

describe('transformData: pipeline and inputs', () => {
  it('runs the seed playbook pipeline (filter → deduplicate → sort → limit) in order', () => {
    const operations = [
      { type: 'filter', field: 'type', operator: 'eq', value: 'PERSON' },
      { type: 'deduplicate', field: 'name' },
      { type: 'sort', field: 'score', direction: 'desc' },
      { type: 'limit', value: 25 },
    ];
    expect(run(operations)).toEqual({ data: [people[0], people[2]], count: 2 });
    expect(
      run([
        { type: 'limit', value: 1 },
        { type: 'sort', field: 'id', direction: 'desc' },
      ]).count,
    ).toBe(1);
  });

  it('accepts an array, a record set and another transform output', () => {
    const ops = [{ type: 'filter', field: 'type', operator: 'eq', value: 'ORG' }];
    const first = run(ops);
    expect(first).toEqual({ data: [people[1], people[4]], count: 2 });
    expect(run(ops, { results: people, count: 5 })).toEqual(first);
    expect(run([{ type: 'limit', value: 1 }], first)).toEqual({ data: [people[1]], count: 1 });
  });

  it('passes data through when there are no operations', () => {
    expect(transformData({ data: people }, {})).toEqual({ data: people, count: 5 });
    expect(transformData({ data: [] }, { operations: [] })).toEqual({ data: [], count: 0 });
    expect(transformData({ data: [1] }, { operations: null })).toEqual({ data: [1], count: 1 });
  });

  it('never mutates its inputs or params', () => {
    const data = deepFreeze(structuredClone(people));
    const operations = deepFreeze([
      { type: 'sort', field: 'score', direction: 'desc' },
      { type: 'deduplicate', field: 'name' },
      { type: 'map', mapping: { n: 'name', s: 'score' } },
      { type: 'aggregate', group_by: 'n', metrics: [{ operator: 'max', field: 's' }] },
    ]);
    const out = transformData(deepFreeze({ data }), deepFreeze({ operations }));
    expect(out.count).toBe(4);
    expect(data).toEqual(people);
  });
});
