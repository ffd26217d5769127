import { PlanGraphSchema } from '@af/plan';
import type { NodeState, NodeStatus } from '../domain/run-state.js';
import { OutputMap } from '../domain/scope.js';
import { Levels, type Execution, type Level } from './execution.js';

const nodes = PlanGraphSchema.parse({
  nodes: ['a', 'b', 'c', 'd'].map((id, i) => ({ id, kind: 'tool', dependsOn: i ? [String.fromCharCode(96 + i)] : [] })),
}).nodes;

function execution(states: Record<string, NodeStatus>): Execution {
  const map = new Map<string, NodeState>(
    Object.entries(states).map(([nodeId, status]) => [nodeId, { nodeId, status, attempt: 1, error: null, startedAt: null, finishedAt: null }]),
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

  it('finds a waiting node after the terminal ones, and none once it settled', () => {
    const x = execution({ a: 'completed', b: 'completed', c: 'waiting', d: 'pending' });
    const top: Level = { nodes, suffix: '', vars: {}, fallbacks: new Map() };
    expect(levels.hasWaiting(x, top)).toBe(true);
    set(x, 'c', 'completed');
    expect(levels.hasWaiting(x, top)).toBe(false);
    expect(top.terminal).toBe(3);
  });

  it('finds a waiting node of a map iteration by its instance id only', () => {
    const x = execution({ 'a[2]': 'completed', 'b[2]': 'waiting', b: 'waiting' });
    expect(levels.hasWaiting(x, { nodes, suffix: '[2]', vars: {}, fallbacks: new Map() })).toBe(true);
    expect(levels.hasWaiting(x, { nodes, suffix: '[3]', vars: {}, fallbacks: new Map() })).toBe(false);
  });
});
