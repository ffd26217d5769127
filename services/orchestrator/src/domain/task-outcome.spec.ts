import { PlanGraphSchema } from '@af/plan';
import type { NodeState, NodeStatus } from './run-state.js';
import { outcomePayload, taskOutcome, waitsOnPerson } from './task-outcome.js';
import { UPSTREAM_FAILED } from './upstream.js';

const nodes = (ids: string[], extra: Array<Record<string, unknown>> = []) =>
  PlanGraphSchema.parse({ nodes: [...ids.map((id) => ({ id, kind: 'tool' })), ...extra] }).nodes;

type S = NodeStatus | [NodeStatus, Partial<NodeState>];
const states = (s: Record<string, S>) =>
  new Map<string, NodeState>(
    Object.entries(s).map(([nodeId, v]) => {
      const [status, extra] = Array.isArray(v) ? v : [v, {}];
      return [nodeId, { nodeId, status, attempt: 1, error: null, startedAt: null, finishedAt: null, ...extra }];
    }),
  );

const abc = nodes(['a', 'b', 'c']);

describe('taskOutcome', () => {
  it('complete: every step that ran succeeded', () => {
    expect(taskOutcome({ status: 'completed', error: null, nodes: abc, states: states({ a: 'completed', b: 'completed', c: 'completed' }) })).toEqual({
      taskStatus: 'complete',
      stepsCompleted: 3,
      stepsFailed: 0,
      stepsSkipped: 0,
      errorSummary: null,
    });
  });

  it('complete: steps skipped by the plan itself (condition, route, rejection) did not run and do not count against it', () => {
    const o = taskOutcome({
      status: 'completed',
      error: null,
      nodes: abc,
      states: states({ a: 'completed', b: ['skipped', { skipReason: 'condition_false' }], c: ['skipped', { skipReason: 'route_not_taken' }] }),
    });
    expect(o).toMatchObject({ taskStatus: 'complete', stepsCompleted: 1, stepsSkipped: 2, errorSummary: null });
  });

  it('partial: a step failed under on_error: skip, named with its error', () => {
    const o = taskOutcome({ status: 'completed', error: null, nodes: abc, states: states({ a: 'completed', b: ['failed', { error: 'FEC API returned 500' }], c: 'completed' }) });
    expect(o).toEqual({ taskStatus: 'partial', stepsCompleted: 2, stepsFailed: 1, stepsSkipped: 0, errorSummary: 'b failed: FEC API returned 500' });
  });

  it('partial: steps skipped upstream_failed are named with the failure they come from', () => {
    const o = taskOutcome({
      status: 'completed',
      error: null,
      nodes: abc,
      states: states({ a: ['failed', { error: 'boom' }], b: ['skipped', { skipReason: UPSTREAM_FAILED, error: "upstream step 'a' failed: boom" }], c: 'completed' }),
    });
    expect(o).toEqual({
      taskStatus: 'partial',
      stepsCompleted: 1,
      stepsFailed: 1,
      stepsSkipped: 1,
      errorSummary: "a failed: boom; b skipped: upstream step 'a' failed: boom",
    });
  });

  it('error: every step that ran failed, though the run completed', () => {
    const o = taskOutcome({
      status: 'completed',
      error: null,
      nodes: abc,
      states: states({ a: ['failed', { error: 'e1' }], b: ['failed', { error: 'e2' }], c: ['skipped', { skipReason: UPSTREAM_FAILED, error: 'x' }] }),
    });
    expect(o).toMatchObject({ taskStatus: 'error', stepsCompleted: 0, stepsFailed: 2, stepsSkipped: 1 });
    expect(o.errorSummary).toBe('a failed: e1; b failed: e2; c skipped: x');
  });

  it('error: the run failed; its own reason comes first unless it names a failed step', () => {
    const byStep = taskOutcome({ status: 'failed', error: 'node b failed: stop here', nodes: abc, states: states({ a: 'completed', b: ['failed', { error: 'stop here' }], c: 'cancelled' }) });
    expect(byStep).toMatchObject({ taskStatus: 'error', stepsCompleted: 1, stepsFailed: 1, errorSummary: 'b failed: stop here' });
    const contract = taskOutcome({ status: 'failed', error: 'the final output does not satisfy the output contract: /x is required', nodes: abc, states: states({ a: 'completed', b: 'completed', c: 'completed' }) });
    expect(contract).toMatchObject({ taskStatus: 'error', stepsCompleted: 3, stepsFailed: 0, errorSummary: 'the final output does not satisfy the output contract: /x is required' });
  });

  it('a failed primary whose fallback completed counts as completed; fallback nodes are not steps of their own', () => {
    const withFb = nodes(['a'], [
      { id: 'b', kind: 'tool', errorPolicy: { onError: 'fallback', fallback: ['b_fb'] } },
      { id: 'b_fb', kind: 'tool', fallbackFor: 'b' },
    ]);
    expect(taskOutcome({ status: 'completed', error: null, nodes: withFb, states: states({ a: 'completed', b: 'failed', b_fb: 'completed' }) })).toMatchObject({
      taskStatus: 'complete',
      stepsCompleted: 2,
      stepsFailed: 0,
      stepsSkipped: 0,
    });
    const both = taskOutcome({ status: 'completed', error: null, nodes: withFb, states: states({ a: 'completed', b: ['failed', { error: 'p' }], b_fb: ['failed', { error: 'fb down' }] }) });
    expect(both).toMatchObject({ taskStatus: 'partial', stepsFailed: 1, errorSummary: 'b failed: fb down' });
  });

  it('failures inside map iterations make a completed run partial and are named with their instance ids', () => {
    const withMap = PlanGraphSchema.parse({
      nodes: [
        {
          id: 'each',
          kind: 'map',
          body: { itemsFrom: '{ids}', continueOnError: true, nodes: [{ id: 'fetch', kind: 'tool' }, { id: 'use', kind: 'tool', dependsOn: ['fetch'] }] },
        },
      ],
    }).nodes;
    const s = states({
      each: 'completed',
      'fetch[0]': 'completed',
      'use[0]': 'completed',
      'fetch[1]': ['failed', { error: 'down' }],
      'use[1]': ['skipped', { skipReason: UPSTREAM_FAILED, error: "upstream step 'fetch' failed: down" }],
    });
    expect(taskOutcome({ status: 'completed', error: null, nodes: withMap, states: s, instances: s.values() })).toEqual({
      taskStatus: 'partial',
      stepsCompleted: 1,
      stepsFailed: 0,
      stepsSkipped: 0,
      errorSummary: "fetch[1] failed: down; use[1] skipped: upstream step 'fetch' failed: down",
    });
    const clean = states({ each: 'completed', 'fetch[0]': 'completed', 'use[0]': 'completed' });
    expect(taskOutcome({ status: 'completed', error: null, nodes: withMap, states: clean, instances: clean.values() }).taskStatus).toBe('complete');
  });

  it('cancelled: partial when some steps completed, error otherwise', () => {
    expect(taskOutcome({ status: 'cancelled', error: 'by user', nodes: abc, states: states({ a: 'completed', b: 'cancelled', c: 'cancelled' }) })).toMatchObject({
      taskStatus: 'partial',
      errorSummary: 'cancelled (by user)',
    });
    expect(taskOutcome({ status: 'cancelled', error: null, nodes: abc, states: states({ a: 'cancelled' }) })).toMatchObject({ taskStatus: 'error', errorSummary: 'cancelled' });
  });

  it('names at most ten steps, then counts the rest; long messages are clipped', () => {
    const ids = Array.from({ length: 13 }, (_, i) => `s${i}`);
    const o = taskOutcome({
      status: 'completed',
      error: null,
      nodes: nodes([...ids, 'ok']),
      states: states({ ...Object.fromEntries(ids.map((id) => [id, ['failed', { error: 'x'.repeat(500) }] as S])), ok: 'completed' }),
    });
    expect(o.stepsFailed).toBe(13);
    expect(o.errorSummary!.split('; ')).toHaveLength(11);
    expect(o.errorSummary).toMatch(/and 3 more$/);
    expect(o.errorSummary!.split('; ')[0]!.length).toBeLessThan(320);
  });

  it('outcomePayload uses the snake_case names of the wire and frames', () => {
    expect(outcomePayload({ taskStatus: 'partial', stepsCompleted: 1, stepsFailed: 1, stepsSkipped: 0, errorSummary: 'b failed: x' })).toEqual({
      task_status: 'partial',
      steps_completed: 1,
      steps_failed: 1,
      steps_skipped: 0,
      error_summary: 'b failed: x',
    });
  });
});

describe('waitsOnPerson', () => {
  const kinds: Record<string, 'approval' | 'delay' | 'subflow' | 'map' | 'human' | 'llm'> = { gate: 'approval', wait: 'delay', child: 'subflow', loop: 'map', task: 'human', ask: 'llm' };
  const kindOf = (id: string) => kinds[id];

  it('is true for a waiting approval, human task, clarification or policy gate', () => {
    expect(waitsOnPerson(['gate'], kindOf)).toBe(true);
    expect(waitsOnPerson(['task'], kindOf)).toBe(true);
    expect(waitsOnPerson(['ask'], kindOf)).toBe(true);
    expect(waitsOnPerson(['policy:p1@x'], kindOf)).toBe(true);
  });

  it('is false when only timers, child runs or map iterations are waited for', () => {
    expect(waitsOnPerson(['wait', 'child', 'loop'], kindOf)).toBe(false);
    expect(waitsOnPerson([], kindOf)).toBe(false);
  });
});
