import { toWireEvent } from './run.mapper.js';

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
