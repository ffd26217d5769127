import fc from 'fast-check';
import { PlanNodeSchema, type PlanNode } from '@af/plan';
import { LevelScopes, OutputMap, levelScope } from './scope.js';

const node = (id: string, outputKey?: string): PlanNode => PlanNodeSchema.parse({ id, kind: 'tool', ...(outputKey ? { outputKey } : {}) });

interface TestLevel {
  nodes: PlanNode[];
  suffix: string;
  vars: Record<string, unknown>;
  loop?: { current: unknown; index: number };
}

const full = (level: TestLevel, outputs: Map<string, unknown>) =>
  levelScope(level.nodes, level.suffix, level.vars, (id) => (outputs.has(id) ? { value: outputs.get(id) } : undefined), 'run-1', level.loop);

describe('OutputMap', () => {
  it('logs the keys set after construction, in order, not the initial entries', () => {
    const m = new OutputMap(new Map([['a', 1]]));
    m.set('b', 2).set('a', 3);
    expect(m.log).toEqual(['b', 'a']);
    expect([...m]).toEqual([
      ['a', 3],
      ['b', 2],
    ]);
  });
});

describe('LevelScopes', () => {
  it('equals a full levelScope after any sequence of outputs, with or without a loop, reusing the scope while nothing changed', () => {
    const ids = ['a', 'b', 'c', 'd'];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...ids, 'x', 'a#items'), fc.integer()), { maxLength: 30 }),
        fc.boolean(),
        fc.array(fc.tuple(fc.constantFrom(...ids), fc.integer()), { maxLength: 3 }),
        (sets, inLoop, initial) => {
          const suffix = inLoop ? '[2]' : '';
          const level: TestLevel = {
            nodes: [node('a'), node('b', 'bee'), node('c'), node('d', 'dee')],
            suffix,
            vars: { input: { q: 1 }, a: 'shadowed by a', bee: 'shadowed by b' },
            ...(inLoop ? { loop: { current: { n: 1 }, index: 2 } } : {}),
          };
          const outputs = new OutputMap(new Map(initial.map(([k, v]) => [k + suffix, v])));
          const scopes = new LevelScopes<TestLevel>();
          expect(scopes.scopeOf(level, outputs, 'run-1')).toEqual(full(level, outputs));
          for (const [key, value] of sets) {
            const before = scopes.scopeOf(level, outputs, 'run-1');
            outputs.set(key === 'a#items' || key === 'x' ? key : key + suffix, value);
            const after = scopes.scopeOf(level, outputs, 'run-1');
            expect(after).toEqual(full(level, outputs));
            // Unchanged level outputs: the same object; otherwise a new one (earlier scopes stay as they were).
            if (key === 'a#items' || key === 'x') expect(after.vars).toBe(before.vars);
            else expect(after).not.toBe(before);
            expect(scopes.scopeOf(level, outputs, 'run-1')).toBe(after);
          }
        },
      ),
    );
  });

  it('rebuilds in plan order when two nodes answer to one name', () => {
    const level: TestLevel = { nodes: [node('a', 'out'), node('b', 'out')], suffix: '', vars: {} };
    const outputs = new OutputMap();
    const scopes = new LevelScopes<TestLevel>();
    scopes.scopeOf(level, outputs, 'r');
    outputs.set('b', 'from b');
    outputs.set('a', 'from a');
    // Plan order: b (later in the plan) wins `out`, whatever the completion order.
    expect(scopes.scopeOf(level, outputs, 'r').vars.out).toBe('from b');
    expect(scopes.scopeOf(level, outputs, 'run-1')).toEqual(full(level, outputs));
  });

  it('keeps the scopes of different output maps (executions) apart', () => {
    const level: TestLevel = { nodes: [node('a')], suffix: '', vars: {} };
    const scopes = new LevelScopes<TestLevel>();
    const first = new OutputMap();
    first.set('a', 1);
    expect(scopes.scopeOf(level, first, 'r').vars.a).toBe(1);
    const second = new OutputMap();
    second.set('a', 2);
    expect(scopes.scopeOf(level, second, 'r').vars.a).toBe(2);
  });
});
