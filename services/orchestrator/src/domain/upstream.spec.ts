import { compileWorkflowSteps, PlanGraphSchema, type PlanNode } from '@af/plan';
import type { NodeState, NodeStatus } from './run-state.js';
import { fallbacksOf } from './scheduler.js';
import { dataDependencies, skipsOnUpstreamFailure, UPSTREAM_FAILED, upstreamFailure } from './upstream.js';

const plan = (nodes: Array<Record<string, unknown>>) => PlanGraphSchema.parse({ nodes }).nodes;

const state = (nodeId: string, status: NodeStatus, extra: Partial<NodeState> = {}): NodeState => ({
  nodeId,
  status,
  attempt: 1,
  error: null,
  startedAt: null,
  finishedAt: null,
  ...extra,
});

const lookup = (...s: NodeState[]) => new Map(s.map((x) => [x.nodeId, x]));

function check(nodes: readonly PlanNode[], id: string, states: Map<string, NodeState>) {
  const node = nodes.find((n) => n.id === id)!;
  return upstreamFailure(node, dataDependencies(node, nodes), nodes, states, fallbacksOf({ nodes }));
}

describe('dataDependencies', () => {
  const nodes = plan([
    { id: 'search', kind: 'tool', outputKey: 'filings' },
    { id: 'count', kind: 'tool' },
    { id: 'save', kind: 'tool', dependsOn: ['search', 'count'], inputs: { rows: '{filings.results}' } },
    { id: 'notify', kind: 'tool', dependsOn: ['count'], params: { text: 'done' }, condition: '{count.n} > 0' },
    { id: 'gate', kind: 'approval', dependsOn: ['search'], inputs: { preview: '{filings}' } },
    { id: 'order_only', kind: 'tool', dependsOn: ['search'], inputs: { q: '{inputs.q}' } },
  ]);
  const deps = (id: string) => dataDependencies(nodes.find((n) => n.id === id)!, nodes);

  it('are the dependencies a node reads, by output key or id, in inputs, params and condition', () => {
    expect(deps('save')).toEqual(['search']);
    expect(deps('notify')).toEqual(['count']);
    expect(deps('gate')).toEqual(['search']);
  });

  it('leave out dependencies that only order the node (barriers, depends_on)', () => {
    expect(deps('order_only')).toEqual([]);
    expect(deps('search')).toEqual([]);
  });
});

describe('dataDependencies: JSON-Logic conditions (workflow executeIf, conditional steps)', () => {
  const jsonlogic = (logic: unknown) => ({ condition: JSON.stringify(logic), conditionDialect: 'jsonlogic' });
  const nodes = plan([
    { id: 'fetch', kind: 'tool' },
    { id: 'score', kind: 'tool', outputKey: 'scored' },
    { id: 'plain', kind: 'tool', dependsOn: ['fetch'], ...jsonlogic({ '==': [{ var: 'fetch.status' }, 'ok'] }) },
    { id: 'defaulted', kind: 'tool', dependsOn: ['fetch'], ...jsonlogic({ '>': [{ var: ['fetch.count', 0] }, 1] }) },
    {
      id: 'nested',
      kind: 'tool',
      dependsOn: ['fetch', 'score'],
      ...jsonlogic({ and: [{ '==': [{ var: 'inputs.mode' }, 'full'] }, { or: [false, { if: [{ var: 'scored.high' }, true, false] }] }] }),
    },
    { id: 'input_only', kind: 'tool', dependsOn: ['fetch'], ...jsonlogic({ '==': [{ var: 'mode' }, 'full'] }) },
    { id: 'item_relative', kind: 'tool', dependsOn: ['fetch'], ...jsonlogic({ some: [[1, 2], { '==': [{ var: 'fetch' }, 1] }, 'fetch'] }) },
    {
      id: 'conditional',
      kind: 'transform',
      action: 'evaluate_condition',
      dependsOn: ['fetch'],
      params: { condition: { '!': { var: 'fetch.rows' } }, conditionDialect: 'jsonlogic' },
    },
  ]);
  const deps = (id: string) => dataDependencies(nodes.find((n) => n.id === id)!, nodes);

  it('a var naming a step (as a string or as [path, default]) reads it', () => {
    expect(deps('plain')).toEqual(['fetch']);
    expect(deps('defaulted')).toEqual(['fetch']);
  });

  it('vars nested in and / or / if count, by output key too', () => {
    expect(deps('nested')).toEqual(['score']);
  });

  it('a var naming an input, or an item inside some/all/none, is not a step read', () => {
    expect(deps('input_only')).toEqual([]);
    expect(deps('item_relative')).toEqual([]);
  });

  it("a conditional step's JSON-Logic condition (a param) reads the steps it names", () => {
    expect(deps('conditional')).toEqual(['fetch']);
  });

  it('a compiled workflow step whose executeIf reads a failed step is skipped upstream_failed', () => {
    const r = compileWorkflowSteps([
      { id: 'lookup', plugin: 'crm', action: 'find_contact', params: { email: 'a@b.c' } },
      { id: 'notify', plugin: 'slack', action: 'post', params: { text: 'hi' }, dependencies: ['lookup'], executeIf: { '==': [{ var: 'lookup.data.vip' }, true] } },
      { id: 'audit', plugin: 'log', action: 'write', params: { text: 'done' }, dependencies: ['lookup'] },
    ]);
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const wf = r.plan.nodes;
    expect(wf.find((n) => n.id === 'notify')).toMatchObject({ conditionDialect: 'jsonlogic' });
    const s = lookup(state('lookup', 'failed', { error: 'CRM 503' }));
    expect(check(wf, 'notify', s)).toEqual({ upstream: 'lookup', message: "upstream step 'lookup' failed: CRM 503" });
    // Waiting for it without reading it is ordering only.
    expect(check(wf, 'audit', s)).toBeUndefined();
  });
});

describe('upstreamFailure', () => {
  const nodes = plan([
    { id: 'a', kind: 'tool' },
    { id: 'b', kind: 'tool', dependsOn: ['a'], inputs: { x: '{a.items}' } },
    { id: 'c', kind: 'tool', dependsOn: ['b'], inputs: { x: '{b}' } },
    { id: 'd', kind: 'tool', dependsOn: ['c'], inputs: { x: '{c}' } },
    { id: 'barrier', kind: 'tool', dependsOn: ['a'], inputs: { x: 'static' } },
  ]);

  it('skips a node that reads a failed step, naming it and its error', () => {
    const s = lookup(state('a', 'failed', { error: 'FEC API 500' }));
    expect(check(nodes, 'b', s)).toEqual({ upstream: 'a', message: "upstream step 'a' failed: FEC API 500" });
  });

  it('lets a node run when it only waits for the failed step without reading it', () => {
    expect(check(nodes, 'barrier', lookup(state('a', 'failed', { error: 'x' })))).toBeUndefined();
  });

  it('lets a node run when what it reads completed', () => {
    expect(check(nodes, 'b', lookup(state('a', 'completed')))).toBeUndefined();
  });

  it('propagates along the chain, naming the skipped step and the failure at the root (one link long)', () => {
    const s = lookup(
      state('a', 'failed', { error: 'boom' }),
      state('b', 'skipped', { skipReason: UPSTREAM_FAILED, error: "upstream step 'a' failed: boom" }),
    );
    const c = check(nodes, 'c', s)!;
    expect(c).toEqual({ upstream: 'b', message: "upstream step 'b' was skipped because upstream step 'a' failed: boom" });
    s.set('c', state('c', 'skipped', { skipReason: UPSTREAM_FAILED, error: c.message }));
    expect(check(nodes, 'd', s)).toEqual({ upstream: 'c', message: "upstream step 'c' was skipped because upstream step 'a' failed: boom" });
  });

  it('does not treat deliberate skips as failures (condition, route, rejection): the reader runs', () => {
    for (const reason of ['condition_false', 'route_not_taken', 'rejected', 'timed_out']) {
      expect(check(nodes, 'b', lookup(state('a', 'skipped', { skipReason: reason })))).toBeUndefined();
    }
  });

  it('lets a node read a failed primary whose fallback completed (the fallback stands in)', () => {
    const withFallback = plan([
      { id: 'a', kind: 'tool', errorPolicy: { onError: 'fallback', fallback: ['a_fb'] } },
      { id: 'a_fb', kind: 'tool', fallbackFor: 'a' },
      { id: 'b', kind: 'tool', dependsOn: ['a'], inputs: { x: '{a}' } },
    ]);
    expect(check(withFallback, 'b', lookup(state('a', 'failed'), state('a_fb', 'completed')))).toBeUndefined();
    expect(check(withFallback, 'b', lookup(state('a', 'failed', { error: 'e1' }), state('a_fb', 'failed')))).toMatchObject({ upstream: 'a' });
  });

  describe('approval gates', () => {
    const gated = plan([
      { id: 'search', kind: 'tool' },
      { id: 'review', kind: 'approval', dependsOn: ['search'], inputs: { preview: '{search}' } },
      { id: 'send', kind: 'tool', dependsOn: ['review'], inputs: { text: 'static message' } },
    ]);

    it('an approval whose preview comes from a failed step is skipped upstream_failed', () => {
      expect(check(gated, 'review', lookup(state('search', 'failed', { error: 'down' })))).toEqual({
        upstream: 'search',
        message: "upstream step 'search' failed: down",
      });
    });

    it('nothing behind a gate skipped upstream_failed runs, even without reading it', () => {
      const s = lookup(state('search', 'failed', { error: 'down' }), state('review', 'skipped', { skipReason: UPSTREAM_FAILED, error: "upstream step 'search' failed: down" }));
      expect(check(gated, 'send', s)).toEqual({ upstream: 'review', message: "upstream step 'review' was skipped because upstream step 'search' failed: down" });
    });

    it('a gate skipped for another reason (rejected with on_reject: skip) does not stop the steps behind it', () => {
      expect(check(gated, 'send', lookup(state('review', 'skipped', { skipReason: 'rejected' })))).toBeUndefined();
    });
  });
});

describe('skipsOnUpstreamFailure', () => {
  it('holds for playbooks, workflows, planner plans and plans without provenance', () => {
    for (const frontEnd of ['playbook', 'workflow_steps', 'planner'] as const) expect(skipsOnUpstreamFailure({ provenance: { frontEnd } })).toBe(true);
    expect(skipsOnUpstreamFailure({})).toBe(true);
  });

  it('not for master-agent plans: a failed agent’s partial data reaches its dependants and the composer', () => {
    expect(skipsOnUpstreamFailure({ provenance: { frontEnd: 'master_agent' } })).toBe(false);
  });
});
