import { runEndOf } from './agent-run-end.consumer.js';

const runId = '7b0c6c1e-2f43-4d39-9a55-4f8f5f3a0c11';

describe('runEndOf', () => {
  it('reads the agent a complete frame names', () => {
    expect(runEndOf({ type: 'complete', runId, payload: { status: 'completed', agent_profile_id: 'p1', invoked_by: 'bob', team_id: 't1', run_context: 'scheduled', run_name: 'Nightly' } })).toEqual({
      runId,
      status: 'completed',
      agentProfileId: 'p1',
      invokedBy: 'bob',
      teamId: 't1',
      runContext: 'scheduled',
      runName: 'Nightly',
    });
  });

  it('a complete frame without an agent is still a run end (the log may know the run)', () => {
    expect(runEndOf({ type: 'complete', runId, payload: { status: 'cancelled' } })).toEqual({ runId, status: 'cancelled' });
  });

  it.each([[{ type: 'node_complete', runId, payload: {} }], [{ type: 'complete', runId: 'not-a-uuid', payload: {} }], [null], ['complete']])('ignores %j', (frame) => {
    expect(runEndOf(frame)).toBeUndefined();
  });
});
