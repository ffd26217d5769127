import { monitorStats } from './monitor-stats.js';

const fire = (fireAt: string, status: string, reason = '') => ({ fireAt, kind: 'scheduled', status, runId: '', attempt: 0, reason, dispatchedAt: '' });

describe('monitorStats', () => {
  it('counts cycles, skips, failures and names the latest error', () => {
    const stats = monitorStats(
      [
        fire('2026-01-01T04:00:00Z', 'suppressed', 'suppress_if_empty: no detection step found anything'),
        fire('2026-01-01T03:00:00Z', 'failed', 'plan.nodes.new_items.action: action_unavailable'),
        fire('2026-01-01T02:00:00Z', 'skipped', 'outside_active_hours'),
        fire('2026-01-01T01:30:00Z', 'skipped', 'overlap_policy skip: 1 run(s) of this schedule still active'),
        fire('2026-01-01T01:00:00Z', 'finished'),
        fire('2026-01-01T00:30:00Z', 'failed', 'older'),
        fire('2026-01-01T00:00:00Z', 'started'),
      ],
      500,
      [{ itemsFoundLast: 2 }, { itemsFoundLast: 1 }],
    );
    expect(stats).toEqual({
      window: 500,
      fires: 7,
      cycles: 3,
      suppressed: 1,
      found_last_cycle: 3,
      skipped: 2,
      outside_active_hours: 1,
      failed: 2,
      pending: 0,
      last_fire_at: '2026-01-01T04:00:00Z',
      last_error: { fire_at: '2026-01-01T03:00:00Z', reason: 'plan.nodes.new_items.action: action_unavailable' },
    });
  });

  it('is empty without fires', () => {
    expect(monitorStats([], 500)).toMatchObject({ fires: 0, cycles: 0, last_fire_at: null, last_error: null });
  });
});
