import { PlanGraphSchema, type PlanGraph } from '@af/plan';
import type { NodeState, NodeStatus } from './run-state.js';
import { backoffMs, fallbacksOf, readyNodes, routeSkips, runOutcome, terminalPrefix, unneededFallbacks } from './scheduler.js';

const plan = (edges: Record<string, string[]>): PlanGraph =>
  PlanGraphSchema.parse({ nodes: Object.entries(edges).map(([id, dependsOn]) => ({ id, kind: 'tool', dependsOn })) });

const states = (s: Record<string, NodeStatus>, attempt = 1) =>
  new Map<string, NodeState>(
    Object.entries(s).map(([nodeId, status]) => [nodeId, { nodeId, status, attempt, error: null, startedAt: null, finishedAt: null }]),
  );

const ids = (nodes: { id: string }[]) => nodes.map((n) => n.id);

describe('readyNodes', () => {
  const diamond = plan({ a: [], b: ['a'], c: ['a'], d: ['b', 'c'] });

  it('starts roots first', () => {
    expect(ids(readyNodes(diamond, states({ a: 'pending', b: 'pending', c: 'pending', d: 'pending' }), new Set()))).toEqual(['a']);
  });

  it('starts every node whose dependencies are done, not level by level', () => {
    const s = states({ a: 'completed', b: 'completed', c: 'running', d: 'pending' });
    expect(ids(readyNodes(diamond, s, new Set(['c'])))).toEqual([]);
    expect(ids(readyNodes(plan({ a: [], b: ['a'], c: [], e: ['c'] }), states({ a: 'completed', b: 'pending', c: 'running', e: 'pending' }), new Set(['c'])))).toEqual(['b']);
  });

  it('replays a node that was running when its previous owner died', () => {
    const s = states({ a: 'completed', b: 'running', c: 'completed', d: 'pending' });
    expect(ids(readyNodes(diamond, s, new Set()))).toEqual(['b']);
  });

  it('treats skipped and failed-but-continued dependencies as settled', () => {
    const s = states({ a: 'completed', b: 'skipped', c: 'failed', d: 'pending' });
    expect(ids(readyNodes(diamond, s, new Set()))).toEqual(['d']);
  });

  it('never offers finished or in-flight nodes', () => {
    const s = states({ a: 'completed', b: 'completed', c: 'completed', d: 'completed' });
    expect(readyNodes(diamond, s, new Set())).toEqual([]);
  });
});

describe('terminalPrefix', () => {
  const chain = plan({ a: [], b: ['a'], c: ['b'], d: ['c'] });

  it('counts the first nodes in a terminal state, up to the first open one', () => {
    expect(terminalPrefix(chain, states({}))).toBe(0);
    expect(terminalPrefix(chain, states({ a: 'completed', b: 'skipped', c: 'running', d: 'cancelled' }))).toBe(2);
    expect(terminalPrefix(chain, states({ a: 'failed', b: 'cancelled', c: 'completed', d: 'skipped' }))).toBe(4);
    expect(terminalPrefix(chain, states({ a: 'completed', b: 'waiting', c: 'completed' }))).toBe(1);
  });

  it('carries on from an earlier count without looking before it', () => {
    // Nodes before `from` are taken as counted: a terminal state is final.
    expect(terminalPrefix(chain, states({ a: 'pending', b: 'pending', c: 'completed', d: 'pending' }), 2)).toBe(3);
    expect(terminalPrefix(chain, states({ a: 'completed' }), 4)).toBe(4);
  });

  it('lets readyNodes and runOutcome skip the counted nodes and give the same answers', () => {
    const wide = plan({ a: [], b: [], c: ['a'], d: ['b'], e: ['c', 'd'] });
    const s = states({ a: 'completed', b: 'completed', c: 'completed', d: 'pending', e: 'pending' });
    const from = terminalPrefix(wide, s);
    expect(from).toBe(3);
    expect(ids(readyNodes(wide, s, new Set(), fallbacksOf(wide), from))).toEqual(ids(readyNodes(wide, s, new Set())));
    expect(ids(readyNodes(wide, s, new Set(), fallbacksOf(wide), from))).toEqual(['d']);
    expect(runOutcome(wide, s, undefined, from)).toEqual({ done: false });
    const all = states({ a: 'completed', b: 'completed', c: 'completed', d: 'skipped', e: 'completed' });
    expect(runOutcome(wide, all, undefined, terminalPrefix(wide, all))).toEqual({ done: true, status: 'completed' });
  });
});

describe('runOutcome', () => {
  const chain = plan({ a: [], b: ['a'] });

  it('is not done while nodes are pending', () => {
    expect(runOutcome(chain, states({ a: 'completed', b: 'pending' }))).toEqual({ done: false });
  });

  it('completes when every node settled', () => {
    expect(runOutcome(chain, states({ a: 'completed', b: 'skipped' }))).toEqual({ done: true, status: 'completed' });
  });

  it('fails with the fatal message', () => {
    expect(runOutcome(chain, states({ a: 'failed', b: 'pending' }), 'node a failed: boom')).toEqual({
      done: true,
      status: 'failed',
      error: 'node a failed: boom',
    });
  });
});

describe('backoffMs', () => {
  it('grows exponentially up to the cap', () => {
    const p = { backoffMs: 100, multiplier: 2, maxBackoffMs: 500 };
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(n, p))).toEqual([100, 200, 400, 500, 500]);
  });
});

describe('fallbacks', () => {
  const withFallback = PlanGraphSchema.parse({
    nodes: [
      { id: 'enrich', kind: 'tool', errorPolicy: { onError: 'fallback', fallback: ['enrich_fb'] } },
      { id: 'enrich_fb', kind: 'tool', fallbackFor: 'enrich' },
      { id: 'use', kind: 'tool', dependsOn: ['enrich'] },
    ],
  });

  it('finds fallbacks from both errorPolicy.fallback and fallbackFor', () => {
    expect([...fallbacksOf(withFallback)]).toEqual([['enrich', ['enrich_fb']]]);
  });

  it('does not start a fallback while its primary has not failed', () => {
    expect(ids(readyNodes(withFallback, states({ enrich: 'pending', enrich_fb: 'pending', use: 'pending' }), new Set()))).toEqual(['enrich']);
    expect(ids(readyNodes(withFallback, states({ enrich: 'running', enrich_fb: 'pending', use: 'pending' }), new Set(['enrich'])))).toEqual([]);
  });

  it('starts the fallback once the primary failed, and holds dependents until it settles', () => {
    expect(ids(readyNodes(withFallback, states({ enrich: 'failed', enrich_fb: 'pending', use: 'pending' }), new Set()))).toEqual(['enrich_fb']);
    expect(ids(readyNodes(withFallback, states({ enrich: 'failed', enrich_fb: 'completed', use: 'pending' }), new Set()))).toEqual(['use']);
  });

  it('marks fallbacks unneeded when the primary completed', () => {
    const s = states({ enrich: 'completed', enrich_fb: 'pending', use: 'pending' });
    expect(unneededFallbacks(withFallback, s, fallbacksOf(withFallback))).toEqual(['enrich_fb']);
    expect(ids(readyNodes(withFallback, s, new Set()))).toEqual(['use']);
  });
});

describe('routeSkips', () => {
  const routed = PlanGraphSchema.parse({
    nodes: [
      { id: 'decide', kind: 'route', routes: [{ condition: '{x} > 1', to: ['big'] }], elseTo: ['small'] },
      { id: 'big', kind: 'tool', dependsOn: ['decide'] },
      { id: 'small', kind: 'tool', dependsOn: ['decide'] },
      { id: 'after_small', kind: 'tool', dependsOn: ['small'] },
      { id: 'join', kind: 'tool', dependsOn: ['big', 'small'] },
    ],
  });

  it('skips nothing before the route decided', () => {
    expect(routeSkips(routed, states({ decide: 'running', big: 'pending', small: 'pending', after_small: 'pending', join: 'pending' }), new Map())).toEqual([]);
  });

  it('skips untaken targets and what depends only on them; a join with a taken branch runs', () => {
    const s = states({ decide: 'completed', big: 'pending', small: 'pending', after_small: 'pending', join: 'pending' });
    const outputs = new Map<string, unknown>([['decide', { route: 0, taken: ['big'] }]]);
    expect(routeSkips(routed, s, outputs)).toEqual(['small', 'after_small']);
  });

  it('propagates through already-skipped branches', () => {
    const s = states({ decide: 'completed', big: 'completed', small: 'skipped', after_small: 'pending', join: 'pending' });
    s.set('small', { ...s.get('small')!, skipReason: 'route_not_taken' });
    expect(routeSkips(routed, s, new Map([['decide', { route: 0, taken: ['big'] }]]))).toEqual(['after_small']);
  });
});
