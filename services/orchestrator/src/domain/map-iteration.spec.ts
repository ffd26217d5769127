import { PlanGraphSchema } from '@af/plan';
import { bodySinks, iterationResult, limitItems, readItems } from './map-iteration.js';

const body = (nodes: unknown[]) => PlanGraphSchema.parse({ nodes }).nodes;

describe('readItems', () => {
  it('takes an array, or the rows of a record set or transform output', () => {
    expect(readItems([1, 2])).toEqual({ items: [1, 2] });
    expect(readItems({ results: [{ a: 1 }], count: 1 })).toEqual({ items: [{ a: 1 }] });
    expect(readItems({ data: ['x'], count: 1 })).toEqual({ items: ['x'] });
  });

  it('says what it got instead of an array', () => {
    expect(readItems(undefined)).toEqual({ error: 'must resolve to an array, got nothing (the referenced output does not exist)' });
    expect(readItems(null)).toEqual({ error: 'must resolve to an array, got null' });
    expect(readItems('abc')).toEqual({ error: 'must resolve to an array, got a string' });
    expect(readItems({ total: 3 })).toEqual({ error: 'resolved to an object without a results or data array (keys: total); point it at an array' });
  });
});

describe('limitItems', () => {
  it('keeps at most maxIterations items, first first, and says how many there were', () => {
    expect(limitItems([1, 2, 3], 2)).toEqual({ items: [1, 2], total: 3, truncated: true });
    expect(limitItems([1, 2], 2)).toEqual({ items: [1, 2], total: 2, truncated: false });
    expect(limitItems([], 5)).toEqual({ items: [], total: 0, truncated: false });
  });
});

describe('iteration results', () => {
  const out = (values: Record<string, unknown>) => (id: string) => (id in values ? { value: values[id] } : undefined);

  it('is the output of the one result node', () => {
    const nodes = body([{ id: 'fetch', kind: 'tool' }, { id: 'shape', kind: 'tool', dependsOn: ['fetch'] }]);
    expect(bodySinks(nodes).map((n) => n.id)).toEqual(['shape']);
    expect(iterationResult(nodes, out({ fetch: 1, shape: { ok: true } }))).toEqual({ ok: true });
    expect(iterationResult(nodes, out({ fetch: 1 }))).toBeNull();
  });

  it('is an object by output key with several result nodes; fallback-only nodes never count', () => {
    const nodes = body([
      { id: 'a', kind: 'tool', outputKey: 'first' },
      { id: 'b', kind: 'tool', errorPolicy: { onError: 'fallback', fallback: ['b_fb'] } },
      { id: 'b_fb', kind: 'tool', fallbackFor: 'b' },
    ]);
    expect(bodySinks(nodes).map((n) => n.id)).toEqual(['a', 'b']);
    expect(iterationResult(nodes, out({ a: 1 }))).toEqual({ first: 1, b: null });
  });
});
