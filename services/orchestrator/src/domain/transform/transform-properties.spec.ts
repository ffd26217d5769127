/**
 * Large inputs and randomized properties. fast-check is not a dependency of
 * this service (Jest finds it only through pnpm's hidden hoisting, tsc does
 * not), so cases come from a small seeded generator: every run sees the same
 * cases and a failure names its seed.
 */
import { transformData } from './transform-data.js';
import { compareTotal, canonicalKey } from './value-order.js';

type Row = Record<string, unknown>;

/** mulberry32: a tiny deterministic PRNG in [0, 1). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const POOL: unknown[] = [
  0,
  1,
  -1,
  2.5,
  10,
  '10',
  '9',
  '2.5',
  'a',
  'B',
  'b',
  '',
  true,
  false,
  null,
  [1],
  [1, 2],
  { x: 1 },
  { x: '1' },
  NaN,
];

/** Rows with a mixed-type `v`, a nested `n.k`, sometimes missing, and a unique `id`. */
function randomRows(seed: number): Row[] {
  const r = prng(seed);
  const pick = () => POOL[Math.floor(r() * POOL.length)];
  const len = Math.floor(r() * 40);
  return Array.from({ length: len }, (_, id) => {
    const row: Row = { id };
    if (r() < 0.85) row.v = pick();
    if (r() < 0.7) row.n = { k: pick() };
    return row;
  });
}

const SEEDS = Array.from({ length: 200 }, (_, i) => i + 1);
const isNone = (v: unknown) => v === undefined || v === null || (typeof v === 'number' && Number.isNaN(v));
const nOf = (row: Row) => (row.n as Row | undefined)?.k;

describe('transformData: properties over random mixed-type rows', () => {
  it.each(['v', 'n.k'])(
    'sort by %s is an ordered, stable permutation with no-values last, in both directions',
    (field) => {
      const read = field === 'v' ? (row: Row) => row.v : nOf;
      const bad: string[] = [];
      for (const seed of SEEDS) {
        const rows = randomRows(seed);
        for (const direction of ['asc', 'desc']) {
          const out = transformData({ data: rows }, { operations: [{ type: 'sort', field, direction }] })
            .data as Row[];
          expect([...out].sort((a, b) => (a.id as number) - (b.id as number))).toEqual(rows);
          for (let i = 1; i < out.length; i++) {
            const a = read(out[i - 1]!);
            const b = read(out[i]!);
            const stable = (out[i - 1]!.id as number) < (out[i]!.id as number);
            let ok: boolean;
            if (isNone(a)) ok = isNone(b) && stable;
            else if (isNone(b)) ok = true;
            else {
              const c = compareTotal(a, b) * (direction === 'desc' ? -1 : 1);
              ok = c < 0 || (c === 0 && stable);
            }
            if (!ok) bad.push(`seed ${seed} ${direction}: rows ${i - 1} and ${i} out of order`);
          }
          const again = transformData(
            { data: out },
            { operations: [{ type: 'sort', field, direction }] },
          ).data;
          expect(again).toEqual(out);
        }
      }
      expect(bad).toEqual([]);
    },
  );

  it('limit(n) keeps the first min(n, length) rows', () => {
    for (const seed of SEEDS) {
      const rows = randomRows(seed);
      const n = seed % 45;
      const out = transformData({ data: rows }, { operations: [{ type: 'limit', value: n }] });
      expect(out.count).toBe(Math.min(n, rows.length));
      expect(out.data).toEqual(rows.slice(0, n));
    }
  });

  it('deduplicate is idempotent, keeps first occurrences and leaves unique keys', () => {
    for (const seed of SEEDS) {
      const rows = randomRows(seed);
      for (const op of [
        { type: 'deduplicate', field: 'v' },
        { type: 'deduplicate', fields: ['v', 'n.k'] },
      ]) {
        const once = transformData({ data: rows }, { operations: [op] }).data as Row[];
        expect(transformData({ data: once }, { operations: [op] }).data).toEqual(once);
        const key = (row: Row) =>
          canonicalKey(op.fields ? [row.v ?? null, nOf(row) ?? null] : (row.v ?? null));
        expect(new Set(once.map(key)).size).toBe(once.length);
        expect(new Set(rows.map(key)).size).toBe(once.length);
        expect(once.every((kept) => rows.find((row) => key(row) === key(kept)) === kept)).toBe(true);
      }
    }
  });

  it('each filter and its negation split the rows exactly', () => {
    const pairs: [string, string, unknown][] = [
      ['eq', 'ne', 1],
      ['in', 'not_in', ['a', 10, null]],
      ['contains', 'not_contains', 1],
    ];
    for (const seed of SEEDS) {
      const rows = randomRows(seed);
      for (const [yes, no, value] of pairs) {
        const a = transformData(
          { data: rows },
          { operations: [{ type: 'filter', field: 'v', operator: yes, value }] },
        );
        const b = transformData(
          { data: rows },
          { operations: [{ type: 'filter', field: 'v', operator: no, value }] },
        );
        expect(a.count + b.count).toBe(rows.length);
        expect(new Set([...a.data, ...b.data]).size).toBe(rows.length);
      }
    }
  });

  it('aggregate group counts add up to the row count, one row per distinct key', () => {
    for (const seed of SEEDS) {
      const rows = randomRows(seed);
      const out = transformData({ data: rows }, { operations: [{ type: 'aggregate', group_by: 'n.k' }] })
        .data as Row[];
      expect(out.reduce((s, g) => s + (g.count as number), 0)).toBe(rows.length);
      expect(out.length).toBe(new Set(rows.map((row) => canonicalKey(nOf(row) ?? null))).size);
    }
  });
});

describe('transformData: 10k rows', () => {
  const N = 10_000;
  const rows = Array.from({ length: N }, (_, id) => ({
    id,
    group: `g${id % 7}`,
    value: (id * 7919) % 10007,
    name: `n${id % 1000}`,
  }));

  it('sorts by value numerically and stably', () => {
    const out = transformData({ data: rows }, { operations: [{ type: 'sort', field: 'value' }] })
      .data as typeof rows;
    expect(out.map((r) => r.value)).toEqual(rows.map((r) => r.value).sort((a, b) => a - b));
    const byGroup = transformData(
      { data: rows },
      { operations: [{ type: 'sort', field: 'group', direction: 'desc' }] },
    ).data as typeof rows;
    expect(byGroup[0]!.group).toBe('g6');
    const unstable = byGroup.filter(
      (r, i) => i > 0 && r.group === byGroup[i - 1]!.group && r.id < byGroup[i - 1]!.id,
    );
    expect(unstable).toEqual([]);
    expect(byGroup.map((r) => r.group)).toEqual(
      rows
        .map((r) => r.group)
        .sort()
        .reverse(),
    );
  });

  it('filters, deduplicates, aggregates and limits like a reference loop', () => {
    const filtered = transformData(
      { data: rows },
      { operations: [{ type: 'filter', field: 'value', operator: 'gt', value: 5000 }] },
    );
    expect(filtered.count).toBe(rows.filter((r) => r.value > 5000).length);

    const deduped = transformData({ data: rows }, { operations: [{ type: 'deduplicate', field: 'name' }] })
      .data as typeof rows;
    expect(deduped.map((r) => r.id)).toEqual(Array.from({ length: 1000 }, (_, i) => i));

    const expected = new Map<string, { count: number; total: number; max: number }>();
    for (const r of rows) {
      const g = expected.get(r.group) ?? { count: 0, total: 0, max: -Infinity };
      expected.set(r.group, { count: g.count + 1, total: g.total + r.value, max: Math.max(g.max, r.value) });
    }
    const agg = transformData(
      { data: rows },
      {
        operations: [
          {
            type: 'aggregate',
            group_by: 'group',
            metrics: [
              { operator: 'count' },
              { operator: 'sum', field: 'value', as: 'total' },
              { operator: 'max', field: 'value' },
            ],
          },
        ],
      },
    ).data;
    expect(agg).toEqual([...expected].map(([group, g]) => ({ group, ...g })));

    const top = transformData(
      { data: rows },
      {
        operations: [
          { type: 'sort', field: 'value', direction: 'desc' },
          { type: 'limit', value: 3 },
          { type: 'map', mapping: { v: 'value' } },
        ],
      },
    );
    expect(top).toEqual({ data: [{ v: 10006 }, { v: 10005 }, { v: 10004 }], count: 3 });
  });
});
