import { orchestrator } from '@af/contracts';
import { toWireEvent, toWireRunSummary } from './run.mapper.js';

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
});
