import { PlanGraphSchema, type PlanGraph } from '@af/plan';
import { differingFields, replanChanges, stableJson } from './replan.js';
import type { NodeState, NodeStatus } from './run-state.js';

const t = (id: string, dependsOn: string[] = [], extra: Record<string, unknown> = {}) => ({
  id,
  kind: 'tool',
  action: 'transform_data',
  inputs: { data: [1] },
  dependsOn,
  ...extra,
});
const plan = (nodes: unknown[]): PlanGraph => PlanGraphSchema.parse({ nodes });
const st = (entries: Record<string, NodeStatus | [NodeStatus, Partial<NodeState>]>) =>
  new Map(
    Object.entries(entries).map(([id, v]) => {
      const [status, extra] = Array.isArray(v) ? v : [v, {}];
      return [id, { nodeId: id, status, attempt: 1, error: null, startedAt: null, finishedAt: null, ...extra } as NodeState];
    }),
  );

describe('replanChanges', () => {
  const current = plan([t('a'), t('b', ['a']), t('c', ['b']), t('d', ['a'])]);

  it('locks completed nodes, keeps unchanged pending/running ones, resets changed or failed ones, adds and removes', () => {
    const next = plan([t('a'), t('b', ['a'], { inputs: { data: [2] } }), t('c', ['b']), t('e', ['a'])]);
    const r = replanChanges(current, next, st({ a: 'completed', b: 'failed', c: 'pending', d: 'running' }), new Set(['a']));
    expect(r).toEqual({
      change: { insert: ['e'], reset: ['b'], remove: ['d'], dropOutputs: [], locked: ['a'], cancelChildren: [] },
    });
  });

  it('refuses a plan that drops or changes a completed node, naming the node and the field', () => {
    const dropped = replanChanges(current, plan([t('b'), t('c', ['b'])]), st({ a: 'completed' }), new Set(['a']));
    expect(dropped).toEqual({
      violations: [{ field: 'plan.nodes', reason: 'drops completed node a: completed nodes are locked (keep it, unchanged)', code: 'locked_node' }],
    });
    const changed = replanChanges(current, plan([t('x'), t('a', [], { params: { k: 1 } })]), st({ a: 'completed' }), new Set(['a']));
    expect(changed).toEqual({
      violations: [{ field: 'plan.nodes[1]', reason: 'changes completed node a (params): completed nodes are locked', code: 'locked_node' }],
    });
  });

  it('a failed primary whose fallback stood in is locked too; documentation fields do not count as a change', () => {
    const cur = plan([t('p', [], { source: 'steps[0]' })]);
    const next = plan([t('p', [], { source: 'steps[3]', description: 'now documented' })]);
    expect(replanChanges(cur, next, st({ p: 'failed' }), new Set(['p']))).toEqual({
      change: { insert: [], reset: [], remove: [], dropOutputs: [], locked: ['p'], cancelChildren: [] },
    });
  });

  it('skipped and cancelled nodes run again; running or waiting nodes downstream of a reset or new node are reset too', () => {
    const cur = plan([t('a'), t('s'), t('w', ['a']), t('x', ['w'])]);
    const next = plan([t('a', [], { params: { v: 2 } }), t('s'), t('w', ['a']), t('x', ['w']), t('n'), t('y', ['n'])]);
    const r = replanChanges(cur, next, st({ a: 'failed', s: 'skipped', w: 'running', x: ['waiting', { childRunId: 'child-1' }] }), new Set());
    expect(r).toEqual({ change: { insert: ['n', 'y'], reset: ['a', 's', 'w', 'x'], remove: [], dropOutputs: [], locked: [], cancelChildren: ['child-1'] } });
  });

  it('an unchanged waiting node keeps its state (its approval, timer or child)', () => {
    const cur = plan([t('a'), { id: 'gate', kind: 'approval', dependsOn: ['a'] }]);
    const next = plan([t('a'), { id: 'gate', kind: 'approval', dependsOn: ['a'] }, t('after', ['gate'])]);
    expect(replanChanges(cur, next, st({ a: 'completed', gate: 'waiting' }), new Set(['a']))).toEqual({
      change: { insert: ['after'], reset: [], remove: [], dropOutputs: [], locked: ['a'], cancelChildren: [] },
    });
  });

  it('a changed or dropped map loses its iteration instances and items; a locked one keeps them; policy gates are never touched', () => {
    const map = (id: string, body: unknown[]) => ({ id, kind: 'map', body: { itemsFrom: '{xs}', nodes: body } });
    const cur = plan([map('m', [t('v')]), map('done', [t('u')])]);
    const next = plan([map('m', [t('v', [], { inputs: { data: [9] } })]), map('done', [t('u')])]);
    const states = st({ m: 'running', 'v[0]': 'completed', 'v[1]': ['waiting', { childRunId: 'c2' }], done: 'completed', 'u[0]': 'completed', 'policy:p@v[0]': 'waiting' });
    const outputs = new Set(['v[0]', 'm#items', 'done', 'done#items', 'u[0]']);
    expect(replanChanges(cur, next, states, outputs)).toEqual({
      change: { insert: [], reset: ['m'], remove: ['v[0]', 'v[1]'], dropOutputs: ['v[0]', 'm#items'], locked: ['done'], cancelChildren: ['c2'] },
    });
    const dropped = replanChanges(cur, plan([map('done', [t('u')])]), states, outputs);
    expect('change' in dropped && dropped.change.remove).toEqual(['m', 'v[0]', 'v[1]']);
  });
});

describe('node comparison', () => {
  it('stable JSON ignores key order', () => {
    expect(stableJson({ b: 1, a: [{ y: 1, x: 2 }] })).toBe(stableJson({ a: [{ x: 2, y: 1 }], b: 1 }));
    expect(stableJson({ a: undefined, b: 1 })).toBe(stableJson({ b: 1 }));
  });

  it('lists the fields that differ', () => {
    const [a, b] = plan([t('a', [], { params: { k: 1 } }), t('b')]).nodes;
    expect(differingFields(a!, { ...a!, params: { k: 2 }, dependsOn: ['z'] })).toEqual(['dependsOn', 'params']);
    expect(differingFields(a!, b!)).toEqual(['id', 'params']);
  });
});
