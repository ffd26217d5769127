import { AppError } from '@af/service-kit';
import { parsePlan, parsePlanCached } from './run-commands.js';

const plan = (id: string) => ({ nodes: [{ id, kind: 'tool', action: 'transform_data', inputs: { data: [1] }, params: {} }] });

describe('parsePlanCached', () => {
  it('parses and validates like parsePlan, and returns the same frozen plan for the same plan text', () => {
    const first = parsePlanCached(plan('a'));
    expect(first).toEqual(parsePlan(plan('a')));
    expect(parsePlanCached(plan('a'))).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.nodes) && Object.isFrozen(first.nodes[0]!.inputs)).toBe(true);
    expect(() => {
      (first.nodes as unknown as unknown[]).push({});
    }).toThrow(TypeError);
    expect(parsePlanCached(plan('b'))).not.toBe(first);
  });

  it('refuses an invalid plan every time, naming the field', () => {
    const bad = { nodes: [{ id: 'x', kind: 'tool', dependsOn: ['missing'] }] };
    for (let i = 0; i < 2; i++) {
      const err = (() => {
        try {
          parsePlanCached(bad);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).violations[0]!.field).toMatch(/^plan\./);
    }
  });

  it('keeps a bounded number of plans (the least recently used goes first)', () => {
    const kept = parsePlanCached(plan('keep'));
    const dropped = parsePlanCached(plan('drop'));
    for (let i = 0; i < 200; i++) {
      parsePlanCached(plan(`n${i}`));
      if (i % 50 === 0) expect(parsePlanCached(plan('keep'))).toBe(kept);
    }
    expect(parsePlanCached(plan('keep'))).toBe(kept);
    const again = parsePlanCached(plan('drop'));
    expect(again).not.toBe(dropped);
    expect(again).toEqual(dropped);
  });
});
