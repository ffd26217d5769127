import { AppError } from '@af/service-kit';
import { PlanGraphSchema } from '@af/plan';
import { parsePlan, parsePlanCached, teamViolations } from './run-commands.js';

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

describe('teamViolations', () => {
  const graph = PlanGraphSchema.parse({
    nodes: [
      { id: 'gate', kind: 'approval', params: { team_ids: ['t-mine', 't-other'], allow_team_decisions: true } },
      { id: 'each', kind: 'map', params: { items: '{inputs.rows}' }, body: { nodes: [{ id: 'check', kind: 'approval', params: { team_ids: ['t-mine', 7] } }] } },
      { id: 'plain', kind: 'approval', dependsOn: ['gate'] },
    ],
  });

  it('names every team the owner is not a member of, map bodies included', () => {
    expect(teamViolations(graph.nodes, new Set(['t-mine']), 'plan.nodes')).toEqual([
      { field: 'plan.nodes.gate.params.team_ids[1]', reason: "you are not a member of team 't-other': only your own teams may decide your runs", code: 'not_team_member' },
      { field: 'plan.nodes.each.body.nodes.check.params.team_ids[1]', reason: "you are not a member of team '7': only your own teams may decide your runs", code: 'not_team_member' },
    ]);
  });

  it('accepts a plan whose teams are all the owner’s, and plans without teams', () => {
    expect(teamViolations(graph.nodes, new Set(['t-mine', 't-other', '7']), 'plan.nodes')).toHaveLength(1);
    expect(teamViolations([graph.nodes[2]!], new Set(), 'plan.nodes')).toEqual([]);
  });
});
