import { runFinishedNotice } from './run-finished.js';

const frame = (payload: Record<string, unknown>, type = 'complete') => ({ runId: 'r1', seq: 9, type, payload });

describe('runFinishedNotice', () => {
  it('tells the owner of a background run how it ended, with a link', () => {
    expect(
      runFinishedNotice(
        frame({ status: 'completed', requested_by: 'u1', run_context: 'background', run_name: 'Grants', steps_completed: 3, steps_failed: 0, routed_to: ['chat', 'document'] }),
        '/api/v1/runs/',
      ),
    ).toEqual({
      owner: 'u1',
      runId: 'r1',
      title: 'Grants completed',
      message: 'Your background run r1 completed (3 steps completed). Output delivered to chat, document.',
      priority: 'normal',
      actionUrl: '/api/v1/runs/r1',
    });
  });

  it('says a scheduled run failed, and why, at high priority', () => {
    const n = runFinishedNotice(frame({ status: 'failed', error: 'connector down', requested_by: 'u1', run_context: 'scheduled', steps_completed: 1, steps_failed: 1 }), '/runs');
    expect(n).toMatchObject({ title: 'Your run failed', priority: 'high' });
    expect(n!.message).toBe('Your scheduled run r1 ended failed (1 steps completed, 1 failed). Error: connector down');
  });

  it('tells nobody about interactive runs, other frames or frames without an owner', () => {
    expect(runFinishedNotice(frame({ status: 'completed', requested_by: 'u1', run_context: 'interactive' }), '/r')).toBeUndefined();
    expect(runFinishedNotice(frame({ status: 'completed', requested_by: 'u1', run_context: 'background' }, 'node_complete'), '/r')).toBeUndefined();
    expect(runFinishedNotice(frame({ status: 'completed', run_context: 'background' }), '/r')).toBeUndefined();
    expect(runFinishedNotice('nope', '/r')).toBeUndefined();
  });
});
