import { AppError } from '@af/service-kit';
import { configurePlanLimits, DEFAULT_PLAN_MAX_NODES, PlanGraphSchema } from '@af/plan';
import { parsePlan, parsePlanCached, RunCommands, teamViolations } from './run-commands.js';

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

describe('size limits at StartRun', () => {
  const neverCalled = new Proxy({}, { get: () => () => { throw new Error('the repository must not be reached'); } }) as never;
  const errorOf = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      return e as AppError;
    }
    throw new Error('expected an error');
  };

  it('refuses inputs over RUN_INPUT_MAX_BYTES with PAYLOAD_TOO_LARGE naming inputs, before anything is stored', async () => {
    const commands = new RunCommands(neverCalled, undefined, { runInputMaxBytes: 1024 });
    const err = await errorOf(commands.start({ userId: 'u', plan: plan('a'), inputs: { blob: 'x'.repeat(2_000) }, runContext: '', idempotencyKey: 'k' }));
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('PAYLOAD_TOO_LARGE');
    expect(err.message).toBe('inputs is 2011 bytes of JSON; the limit is 1024 bytes (RUN_INPUT_MAX_BYTES)');
    expect(err.violations).toEqual([{ field: 'inputs', reason: 'is 2011 bytes of JSON; the limit is 1024 bytes (RUN_INPUT_MAX_BYTES)', code: 'payload_too_large' }]);
  });

  it('defaults to 256 KiB', async () => {
    const commands = new RunCommands(neverCalled);
    const err = await errorOf(commands.start({ userId: 'u', plan: plan('a'), inputs: { blob: 'x'.repeat(1_900_000) }, runContext: '', idempotencyKey: 'k' }));
    expect(err.code).toBe('PAYLOAD_TOO_LARGE');
    expect(err.message).toContain('the limit is 262144 bytes');
  });

  it('refuses a plan over PLAN_MAX_NODES naming plan.nodes and the limit, map bodies included', () => {
    configurePlanLimits({ maxNodes: 3 });
    try {
      const big = { nodes: [{ id: 'm', kind: 'map', params: {}, body: { nodes: ['a', 'b', 'c'].map((id) => plan(id).nodes[0]) } }] };
      const err = (() => {
        try {
          parsePlan(big);
        } catch (e) {
          return e as AppError;
        }
        throw new Error('expected an error');
      })();
      expect(err.code).toBe('INVALID_ARGUMENT');
      expect(err.violations).toEqual([{ field: 'plan.nodes', reason: '4 nodes (map bodies and inline subflow plans included); the limit is 3 (PLAN_MAX_NODES)', code: 'too_many_nodes' }]);
    } finally {
      configurePlanLimits({ maxNodes: DEFAULT_PLAN_MAX_NODES });
    }
  });
});
