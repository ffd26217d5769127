import { findCycle, kahnLevels, kahnStages, parallelGroups, PlanCycleError, type PlanNode } from '../index.js';

const n = (id: string, dependsOn: string[] = []): PlanNode => ({ id, kind: 'capability', inputs: {}, params: {}, dependsOn });

describe('kahnLevels (seed multi-agent-rag "How Kahn\'s Algorithm Creates Stages")', () => {
  it('parallel pattern: independent agents share stage 1', () => {
    expect(kahnLevels({ nodes: [n('rag'), n('web'), n('composer', ['rag', 'web'])] })).toEqual([['rag', 'web'], ['composer']]);
  });

  it('sequential pattern: one agent per stage', () => {
    expect(kahnLevels({ nodes: [n('rag'), n('code', ['rag']), n('mail', ['code'])] })).toEqual([['rag'], ['code'], ['mail']]);
  });

  it('diamond pattern: fan-out then fan-in', () => {
    expect(kahnLevels({ nodes: [n('code', ['rag', 'web']), n('web'), n('rag'), n('composer', ['code'])] })).toEqual([['web', 'rag'], ['code'], ['composer']]);
  });

  it('keeps input order inside a stage and ignores duplicate edges', () => {
    expect(kahnLevels({ nodes: [n('b'), n('a'), n('c', ['a', 'a', 'b'])] })).toEqual([['b', 'a'], ['c']]);
  });

  it('a cycle is an error naming the cycle path', () => {
    const plan = { nodes: [n('root'), n('a', ['root', 'c']), n('b', ['a']), n('c', ['b']), n('after', ['c'])] };
    expect(() => kahnLevels(plan)).toThrow(PlanCycleError);
    try {
      kahnLevels(plan);
    } catch (e) {
      expect((e as PlanCycleError).cycle).toEqual(['a', 'b', 'c', 'a']);
      expect((e as PlanCycleError).message).toBe('circular dependency: a → b → c → a');
    }
  });

  it('a self-dependency is a cycle of one', () => {
    expect(() => kahnLevels({ nodes: [n('a', ['a'])] })).toThrow('circular dependency: a → a');
  });

  it('kahnStages reports blocked nodes instead of throwing', () => {
    const deps: Record<string, string[]> = { a: ['b'], b: ['a'], c: [], d: ['a'] };
    const r = kahnStages(['a', 'b', 'c', 'd'], (id) => deps[id]!);
    expect(r).toEqual({ levels: [['c']], blocked: ['a', 'b', 'd'] });
    expect(findCycle(r.blocked, (id) => deps[id]!)).toEqual(['a', 'b', 'a']);
  });

  it('parallelGroups lists only stages with more than one node (workflow seed parallelGroups)', () => {
    expect(parallelGroups({ nodes: [n('step1'), n('step2', ['step1']), n('step3', ['step1']), n('step4', ['step2', 'step3'])] })).toEqual([{ level: 1, nodes: ['step2', 'step3'] }]);
  });
});
