/**
 * Dashboard figures of a monitor from its recent fires (the last `window`):
 * cycles run, skipped (overlap or outside active hours), failed to start,
 * and the last error. Found / suppressed counts come with the detection actions.
 */
import type { schedules } from '@af/contracts';

export function monitorStats(fires: readonly schedules.ScheduleFire[], window: number) {
  const count = (p: (f: schedules.ScheduleFire) => boolean) => fires.filter(p).length;
  const failed = fires.filter((f) => f.status === 'failed');
  // Fires come newest first.
  const lastError = failed[0];
  return {
    window,
    fires: fires.length,
    cycles: count((f) => f.status === 'started' || f.status === 'finished'),
    skipped: count((f) => f.status === 'skipped'),
    outside_active_hours: count((f) => f.status === 'skipped' && f.reason === 'outside_active_hours'),
    failed: failed.length,
    pending: count((f) => f.status === 'queued' || f.status === 'buffered'),
    last_fire_at: fires[0]?.fireAt ?? null,
    last_error: lastError ? { fire_at: lastError.fireAt, reason: lastError.reason } : null,
  };
}
