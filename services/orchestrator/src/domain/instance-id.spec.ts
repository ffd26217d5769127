import { PlanGraphSchema } from '@af/plan';
import { bodyNodeIds, isInsideMap, itemsKey, iterationSuffix, locateNode, parseInstanceId } from './instance-id.js';

const plan = PlanGraphSchema.parse({
  nodes: [
    { id: 'src', kind: 'tool' },
    {
      id: 'outer',
      kind: 'map',
      dependsOn: ['src'],
      body: {
        itemsFrom: '{src}',
        nodes: [
          { id: 'a', kind: 'tool' },
          { id: 'inner', kind: 'map', dependsOn: ['a'], body: { itemsFrom: '{current.xs}', nodes: [{ id: 'b', kind: 'tool' }] } },
        ],
      },
    },
  ],
});
const outer = plan.nodes[1]!;
const inner = outer.body!.nodes[1]!;

describe('instance ids', () => {
  it('names iterations by index, nested maps adding one index per level', () => {
    expect(iterationSuffix('', 3)).toBe('[3]');
    expect(iterationSuffix('[3]', 0)).toBe('[3][0]');
    expect(itemsKey('inner[3]')).toBe('inner[3]#items');
  });

  it('parses plan ids and instance ids, and rejects anything else', () => {
    expect(parseInstanceId('src')).toEqual({ nodeId: 'src', indices: [], suffix: '' });
    expect(parseInstanceId('b[3][0]')).toEqual({ nodeId: 'b', indices: [3, 0], suffix: '[3][0]' });
    expect(parseInstanceId('inner[3]#items')).toBeNull();
    expect(parseInstanceId('b[x]')).toBeNull();
    expect(parseInstanceId('[1]')).toBeNull();
  });

  it('finds body nodes with the maps that enclose them', () => {
    expect(locateNode(plan.nodes, 'src')).toEqual({ node: plan.nodes[0], maps: [] });
    expect(locateNode(plan.nodes, 'b')!.maps.map((m) => m.id)).toEqual(['outer', 'inner']);
    expect(locateNode(plan.nodes, 'nope')).toBeUndefined();
    expect([...bodyNodeIds(outer)]).toEqual(['a', 'inner', 'b']);
  });

  it('tells which instances run inside one map instance', () => {
    expect(isInsideMap('a[0]', outer, '')).toBe(true);
    expect(isInsideMap('b[2][5]', outer, '')).toBe(true);
    expect(isInsideMap('b[2][5]', inner, '[2]')).toBe(true);
    expect(isInsideMap('b[1][5]', inner, '[2]')).toBe(false);
    expect(isInsideMap('a[0]', inner, '[0]')).toBe(false);
    expect(isInsideMap('src', outer, '')).toBe(false);
    expect(isInsideMap('outer[0]', outer, '')).toBe(false);
  });
});
