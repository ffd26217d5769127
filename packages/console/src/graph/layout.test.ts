import { describe, expect, it } from 'vitest';
import { layoutGraph, NODE_HEIGHT, NODE_WIDTH } from './layout';

describe('layoutGraph', () => {
  it('places a chain top to bottom, each step below the one it depends on', () => {
    const l = layoutGraph([{ id: 'a' }, { id: 'b' }, { id: 'c' }], [
      { from: 'a', to: 'b' },
      { from: 'b', to: 'c' },
    ]);
    const y = Object.fromEntries(l.nodes.map((n) => [n.id, n.y]));
    expect(y.a!).toBeLessThan(y.b!);
    expect(y.b!).toBeLessThan(y.c!);
    expect(l.nodes.every((n) => n.width === NODE_WIDTH && n.height === NODE_HEIGHT)).toBe(true);
    expect(l.edges.map((e) => [e.from, e.to])).toEqual([['a', 'b'], ['b', 'c']]);
    expect(l.edges.every((e) => e.points.length >= 2)).toBe(true);
  });

  it('puts parallel branches side by side without overlapping, and the join below both', () => {
    const l = layoutGraph([{ id: 'start' }, { id: 'left' }, { id: 'right' }, { id: 'join' }], [
      { from: 'start', to: 'left' },
      { from: 'start', to: 'right' },
      { from: 'left', to: 'join' },
      { from: 'right', to: 'join' },
    ]);
    const n = Object.fromEntries(l.nodes.map((p) => [p.id, p]));
    expect(n.left!.y).toBe(n.right!.y);
    expect(Math.abs(n.left!.x - n.right!.x)).toBeGreaterThanOrEqual(NODE_WIDTH);
    expect(n.join!.y).toBeGreaterThan(n.left!.y);
    expect(l.width).toBeGreaterThanOrEqual(2 * NODE_WIDTH);
    expect(l.height).toBeGreaterThanOrEqual(3 * NODE_HEIGHT);
  });

  it('drops edges to unknown steps and self loops, keeps duplicate ids once, and lays out steps without edges', () => {
    const l = layoutGraph([{ id: 'a' }, { id: 'a' }, { id: 'b' }], [
      { from: 'a', to: 'ghost' },
      { from: 'b', to: 'b' },
    ]);
    expect(l.nodes.map((n) => n.id)).toEqual(['a', 'b']);
    expect(l.edges).toEqual([]);
    const [a, b] = l.nodes;
    const overlap = a!.x < b!.x + b!.width && b!.x < a!.x + a!.width && a!.y < b!.y + b!.height && b!.y < a!.y + a!.height;
    expect(overlap).toBe(false);
  });

  it('keeps the edge kind (fallback, route) for drawing', () => {
    const l = layoutGraph([{ id: 'p' }, { id: 'f' }], [{ from: 'p', to: 'f', kind: 'fallback' }]);
    expect(l.edges[0]!.kind).toBe('fallback');
  });
});
