import fc from 'fast-check';
import { PlanNodeSchema, type PlanNode } from '@af/plan';
import { interpolate } from '@af/expr';
import { LevelScopes, OutputMap, levelScope, runVars } from './scope.js';

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

  it('never changes a scope someone holds: borrowed until released, from scopeOf for good — whatever outputs arrive', () => {
    const ids = ['a', 'b', 'c'];
    type Op = { op: 'set'; key: string; value: number } | { op: 'borrow' } | { op: 'pin' } | { op: 'release'; pick: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ op: fc.constant('set' as const), key: fc.constantFrom(...ids, 'x'), value: fc.integer() }),
      fc.record({ op: fc.constant('borrow' as const) }),
      fc.record({ op: fc.constant('pin' as const) }),
      fc.record({ op: fc.constant('release' as const), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.boolean(), (ops, inLoop) => {
        const suffix = inLoop ? '[1]' : '';
        const level: TestLevel = { nodes: [node('a'), node('b', 'bee'), node('c')], suffix, vars: { input: { q: 1 } } };
        const base = structuredClone(level.vars);
        const outputs = new OutputMap();
        const scopes = new LevelScopes<TestLevel>();
        const held: Array<{ scope: { vars: Record<string, unknown> }; snapshot: Record<string, unknown>; release?: () => void }> = [];
        for (const o of ops) {
          if (o.op === 'set') outputs.set(o.key === 'x' ? 'x' : o.key + suffix, o.value);
          else if (o.op === 'borrow') {
            const b = scopes.borrow(level, outputs, 'run-1');
            expect(b.scope).toEqual(full(level, outputs));
            held.push({ scope: b.scope, snapshot: structuredClone(b.scope.vars), release: b.release });
          } else if (o.op === 'pin') {
            const scope = scopes.scopeOf(level, outputs, 'run-1');
            expect(scope).toEqual(full(level, outputs));
            held.push({ scope, snapshot: structuredClone(scope.vars) });
          } else {
            const borrowed = held.filter((h) => h.release);
            if (!borrowed.length) continue;
            const h = borrowed[o.pick % borrowed.length]!;
            h.release!();
            h.release!(); // a second release changes nothing
            held.splice(held.indexOf(h), 1);
          }
          for (const h of held) expect(h.scope.vars).toEqual(h.snapshot);
        }
        // The level's inherited variables are never written to.
        expect(level.vars).toEqual(base);
      }),
    );
  });

  it('updates a released scope in place for the next node instead of copying the variables (a chain)', () => {
    const level: TestLevel = { nodes: [node('a'), node('b'), node('c')], suffix: '', vars: { input: {} } };
    const outputs = new OutputMap();
    const scopes = new LevelScopes<TestLevel>();
    const first = scopes.borrow(level, outputs, 'r');
    first.release();
    outputs.set('a', 1);
    const second = scopes.borrow(level, outputs, 'r');
    expect(second.scope.vars).toBe(first.scope.vars);
    expect(second.scope.vars).toEqual({ input: {}, a: 1 });
    // Still borrowed: the next output makes a new scope and leaves this one as it was.
    outputs.set('b', 2);
    const third = scopes.borrow(level, outputs, 'r');
    expect(third.scope.vars).not.toBe(second.scope.vars);
    expect(second.scope.vars).toEqual({ input: {}, a: 1 });
    expect(third.scope.vars).toEqual({ input: {}, a: 1, b: 2 });
    second.release();
    third.release();
  });

  it('knows which instance ids belong to a level', () => {
    const scopes = new LevelScopes<TestLevel>();
    const top: TestLevel = { nodes: [node('a'), node('b')], suffix: '', vars: {} };
    const iteration: TestLevel = { nodes: [node('a')], suffix: '[3]', vars: {} };
    expect(scopes.hasInstance(top, 'a')).toBe(true);
    expect(scopes.hasInstance(top, 'a[3]')).toBe(false);
    expect(scopes.hasInstance(top, 'c')).toBe(false);
    expect(scopes.hasInstance(iteration, 'a[3]')).toBe(true);
    expect(scopes.hasInstance(iteration, 'a')).toBe(false);
  });
});

describe('runVars', () => {
  const plan = { nodes: [], inputs: [{ name: 'region', type: 'string', required: false, default: 'eu' }] } as never;

  it('gives the run inputs (with defaults) at the top and under input', () => {
    expect(runVars(plan, { q: 1 })).toEqual({ input: { q: 1, region: 'eu' }, q: 1, region: 'eu' });
  });

  it('gives last_execution_date as an ISO time, null for a first run, and lets the built-in win over an input', () => {
    const at = new Date('2026-11-20T08:00:00.000Z');
    expect(runVars(plan, {}, at).last_execution_date).toBe('2026-11-20T08:00:00.000Z');
    expect(runVars(plan, {}, '2026-11-20T08:00:00Z').last_execution_date).toBe('2026-11-20T08:00:00.000Z');
    expect(runVars(plan, {}, null).last_execution_date).toBeNull();
    expect(runVars(plan, { last_execution_date: 'forged' }, at).last_execution_date).toBe('2026-11-20T08:00:00.000Z');
    const scope = levelScope([], '', runVars(plan, {}, at), () => undefined, 'run-1');
    expect(interpolate('{last_execution_date}', scope)).toBe('2026-11-20T08:00:00.000Z');
  });
});
