import { PlanGraphSchema } from '@af/plan';
import { NodeStates, type NodeState, type NodeStatus } from '../domain/run-state.js';
import { OutputMap } from '../domain/scope.js';
import { compileCondition } from '@af/expr';
import { Levels, toAppError, type Execution, type Level } from './execution.js';

const nodes = PlanGraphSchema.parse({
  nodes: ['a', 'b', 'c', 'd'].map((id, i) => ({ id, kind: 'tool', dependsOn: i ? [String.fromCharCode(96 + i)] : [] })),
}).nodes;

function execution(states: Record<string, NodeStatus>): Execution {
  const map = new NodeStates(
    Object.entries(states).map(([nodeId, status]): [string, NodeState] => [nodeId, { nodeId, status, attempt: 1, error: null, startedAt: null, finishedAt: null }]),
  );
  return { states: map, outputs: new OutputMap() } as unknown as Execution;
}

const set = (x: Execution, id: string, status: NodeStatus) => x.states.set(id, { nodeId: id, status, attempt: 1, error: null, startedAt: null, finishedAt: null });

describe('Levels.open', () => {
  const levels = new Levels();

  it('advances over the terminal nodes at the front of the plan as they settle, and remembers the count on the level', () => {
    const x = execution({ a: 'running' });
    const top: Level = { nodes, suffix: '', vars: {}, fallbacks: new Map() };
    expect(levels.open(x, top)).toBe(0);
    set(x, 'a', 'completed');
    set(x, 'b', 'skipped');
    expect(levels.open(x, top)).toBe(2);
    expect(top.terminal).toBe(2);
    set(x, 'c', 'failed');
    set(x, 'd', 'cancelled');
    expect(levels.open(x, top)).toBe(4);
  });

  it('counts a map iteration by its instance ids', () => {
    const x = execution({ 'a[0]': 'completed', 'b[0]': 'completed', a: 'pending', 'a[1]': 'pending' });
    const iteration: Level = { nodes, suffix: '[0]', vars: {}, fallbacks: new Map() };
    expect(levels.open(x, iteration)).toBe(2);
    expect(levels.open(x, { nodes, suffix: '[1]', vars: {}, fallbacks: new Map() })).toBe(0);
  });
});

describe('Levels.hasWaiting', () => {
  const levels = new Levels();

  it('finds a waiting node, and none once it settled or moved on', () => {
    const x = execution({ a: 'completed', b: 'completed', c: 'waiting', d: 'pending' });
    const top: Level = { nodes, suffix: '', vars: {}, fallbacks: new Map() };
    expect(levels.hasWaiting(x, top)).toBe(true);
    set(x, 'c', 'completed');
    expect(levels.hasWaiting(x, top)).toBe(false);
    set(x, 'd', 'waiting');
    expect(levels.hasWaiting(x, top)).toBe(true);
    set(x, 'd', 'running');
    expect(levels.hasWaiting(x, top)).toBe(false);
  });

  it('does not count a waiting node of another level, nor a waiting id that is no node of the level', () => {
    const x = execution({ 'c[0]': 'waiting', 'gate:policy-1': 'waiting' });
    expect(levels.hasWaiting(x, { nodes, suffix: '', vars: {}, fallbacks: new Map() })).toBe(false);
    expect(levels.hasWaiting(x, { nodes, suffix: '[0]', vars: {}, fallbacks: new Map() })).toBe(true);
  });

  it('finds a waiting node of a map iteration by its instance id only', () => {
    const x = execution({ 'a[2]': 'completed', 'b[2]': 'waiting', b: 'waiting' });
    expect(levels.hasWaiting(x, { nodes, suffix: '[2]', vars: {}, fallbacks: new Map() })).toBe(true);
    expect(levels.hasWaiting(x, { nodes, suffix: '[3]', vars: {}, fallbacks: new Map() })).toBe(false);
  });
});

describe('NodeStates', () => {
  const state = (nodeId: string, status: NodeStatus): NodeState => ({ nodeId, status, attempt: 1, error: null, startedAt: null, finishedAt: null });

  it('indexes the waiting states it starts with and every change after', () => {
    const s = new NodeStates([
      ['a', state('a', 'waiting')],
      ['b', state('b', 'pending')],
    ]);
    expect([...s.waiting]).toEqual(['a']);
    s.set('b', state('b', 'waiting')).set('a', state('a', 'completed'));
    expect([...s.waiting]).toEqual(['b']);
    s.delete('b');
    expect(s.waiting.size).toBe(0);
    s.set('c', state('c', 'waiting'));
    s.clear();
    expect(s.waiting.size).toBe(0);
    expect(s.size).toBe(0);
  });

  it('is a Map of the states as given', () => {
    const s = new NodeStates();
    s.set('a', state('a', 'running'));
    expect(s).toBeInstanceOf(Map);
    expect(s.get('a')?.status).toBe('running');
    expect(new NodeStates(null).size).toBe(0);
  });
});

describe('toAppError for condition limits', () => {
  it('turns a node condition over its step budget into a non-retryable FAILED_PRECONDITION naming the condition', () => {
    const cond = compileCondition('some(rows as a, some(rows as b, some(rows as c, c.v == -1)))');
    const rows = Array.from({ length: 60 }, (_, v) => ({ v }));
    let thrown: unknown;
    try {
      cond({ vars: { rows } });
    } catch (e) {
      thrown = e;
    }
    const app = toAppError(thrown);
    expect(app.code).toBe('FAILED_PRECONDITION');
    expect(app.retryable).toBe(false);
    expect(app.message).toBe('condition: condition evaluation exceeded its budget of 100000 steps (quantifiers over large collections multiply; narrow the collections or the nesting)');
    expect(app.violations[0]).toMatchObject({ field: 'condition', code: 'condition_budget_exceeded' });
  });
});
