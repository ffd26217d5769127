import { orchestrator } from '@af/contracts';
import { taskStatusName, toWireEvent, toWireRun, toWireRunSummary } from './run.mapper.js';

describe('toWireEvent', () => {
  const frame = { runId: 'r1', seq: 7, type: 'plan_generated', nodeId: 'a', payload: { version: 2 } };

  it('sends a frame that came through the outbox (PostgreSQL time text) with an ISO 8601 timestamp', () => {
    expect(toWireEvent({ ...frame, timestamp: '2026-03-04 05:06:07.089+00' })).toEqual({
      runId: 'r1',
      seq: '7',
      type: 'plan_generated',
      timestamp: '2026-03-04T05:06:07.089Z',
      nodeId: 'a',
      payload: { version: 2 },
    });
  });

  it('keeps a frame read from the event log (already ISO) as it is', () => {
    expect(toWireEvent({ ...frame, timestamp: '2026-03-04T05:06:07.089Z' }).timestamp).toBe('2026-03-04T05:06:07.089Z');
    const { nodeId: _n, ...runLevel } = frame;
    expect(toWireEvent({ ...runLevel, timestamp: '2026-03-04T05:06:07.089Z' }).nodeId).toBe('');
  });
});

describe('toWireRunSummary', () => {
  it('leaves inputs, nodes and outputs out of a list row', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const run = {
      id: 'r1',
      userId: 'u',
      status: 'completed' as const,
      runContext: 'interactive',
      plan: { nodes: [] },
      planVersion: 1,
      inputs: { blob: 'x'.repeat(1_000) },
      error: null,
      createdAt: now,
      updatedAt: now,
      parentRunId: null,
      parentNodeId: null,
      depth: 0,
      outputContract: null,
      goalCondition: null,
      goalConditionResults: null,
      rollback: null,
      policies: null,
      policyTimer: null,
    };
    const wire = toWireRunSummary(run as never);
    expect(wire.inputs).toEqual({});
    expect(wire.nodes).toEqual([]);
    expect(wire.outputs).toEqual({});
    expect(wire).toMatchObject({ id: 'r1', status: orchestrator.RunStatus.RUN_STATUS_COMPLETED, createdAt: now.toISOString() });
  });

  it('carries the task outcome on list rows and GetRun, and no task status while none is known', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const base = { id: 'r1', userId: 'u', status: 'completed' as const, runContext: 'interactive', plan: { nodes: [] }, planVersion: 1, inputs: {}, error: null, createdAt: now, updatedAt: now };
    const outcome = { taskStatus: 'partial' as const, stepsCompleted: 2, stepsFailed: 1, stepsSkipped: 1, errorSummary: 'b failed: x' };
    const expected = { taskStatus: orchestrator.TaskStatus.TASK_STATUS_PARTIAL, stepsCompleted: 2, stepsFailed: 1, stepsSkipped: 1, errorSummary: 'b failed: x' };
    expect(toWireRunSummary({ ...base, ...outcome } as never)).toMatchObject(expected);
    expect(toWireRun({ ...base, ...outcome, nodes: [], iterations: [], instanceOutputs: {}, outputs: {} } as never)).toMatchObject(expected);
    expect(toWireRunSummary({ ...base, status: 'running' } as never)).toMatchObject({ taskStatus: orchestrator.TaskStatus.TASK_STATUS_UNSPECIFIED, errorSummary: '' });
  });
});

describe('taskStatusName', () => {
  it('names each task status as the filter takes it; UNSPECIFIED is no task status', () => {
    expect(taskStatusName(orchestrator.TaskStatus.TASK_STATUS_AWAITING_APPROVAL)).toBe('awaiting_approval');
    expect(taskStatusName(orchestrator.TaskStatus.TASK_STATUS_ERROR)).toBe('error');
    expect(taskStatusName(orchestrator.TaskStatus.TASK_STATUS_UNSPECIFIED)).toBe('unspecified');
  });
});

describe('toWireRun', () => {
  it('names each top-level node\'s kind and action (the journal reads them)', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const run = {
      id: 'r1',
      userId: 'u',
      status: 'completed' as const,
      runContext: 'interactive',
      plan: { nodes: [{ id: 'find', kind: 'tool', action: 'call_connector', dependsOn: [] }, { id: 'answer', kind: 'llm', action: 'llm_analyze', dependsOn: ['find'] }] },
      planVersion: 1,
      inputs: {},
      error: null,
      createdAt: now,
      updatedAt: now,
      nodes: [
        { nodeId: 'find', status: 'completed', attempt: 1, error: null, startedAt: now, finishedAt: now },
        { nodeId: 'answer', status: 'completed', attempt: 1, error: null, startedAt: now, finishedAt: now },
      ],
      outputs: {},
      iterations: [],
    };
    const wire = toWireRun(run as never);
    expect(wire.nodes.map((n) => [n.nodeId, n.kind, n.action])).toEqual([
      ['find', 'tool', 'call_connector'],
      ['answer', 'llm', 'llm_analyze'],
    ]);
  });
});

describe('the run plan (GET /runs/{id} draws any run from it)', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const base = { id: 'r1', userId: 'u', status: 'running' as const, runContext: 'interactive', planVersion: 2, inputs: {}, error: null, createdAt: now, updatedAt: now };
  const node = (id: string, extra: Record<string, unknown> = {}) => ({ id, kind: 'tool', action: 'transform_data', inputs: {}, params: {}, dependsOn: [], ...extra });

  it('lists the steps in plan order with dependency, fallback and route edges', () => {
    const plan = {
      nodes: [
        node('fetch', { errorPolicy: { onError: 'fallback', fallback: ['cached'] } }),
        node('cached', { fallbackFor: 'fetch' }),
        node('gate', { kind: 'route', action: undefined, dependsOn: ['fetch'], routes: [{ condition: '{fetch.count} > 0', to: ['save'] }], elseTo: ['skip'] }),
        node('save', { dependsOn: ['gate'] }),
        node('skip', { kind: 'approval', action: undefined, dependsOn: ['gate'] }),
      ],
    };
    const wire = toWireRun({ ...base, plan, nodes: [], iterations: [], instanceOutputs: {}, outputs: {} } as never);
    expect(wire.plan).toEqual({
      nodes: [
        { id: 'fetch', kind: 'tool', action: 'transform_data' },
        { id: 'cached', kind: 'tool', action: 'transform_data' },
        { id: 'gate', kind: 'route', action: '' },
        { id: 'save', kind: 'tool', action: 'transform_data' },
        { id: 'skip', kind: 'approval', action: '' },
      ],
      edges: [
        { from: 'fetch', to: 'cached', kind: 'fallback' },
        { from: 'fetch', to: 'gate', kind: 'depends_on' },
        { from: 'gate', to: 'save', kind: 'route' },
        { from: 'gate', to: 'skip', kind: 'route' },
        { from: 'gate', to: 'save', kind: 'depends_on' },
        { from: 'gate', to: 'skip', kind: 'depends_on' },
      ],
    });
  });

  it('is left out of list rows', () => {
    const wire = toWireRunSummary({ ...base, plan: { nodes: [node('a')] } } as never);
    expect(wire.plan).toBeUndefined();
  });
});
