/**
 * Dashboard figures of a monitor from its recent fires (the last `window`):
 * cycles run (suppressed ones included, and counted apart: nothing new was
 * found), skipped (overlap or outside active hours), failed to start, the
 * last error, and what the detection steps found in the last completed cycle
 * (their watermarks' items_found_last).
 */
import type { schedules } from '@af/contracts';

export function monitorStats(fires: readonly schedules.ScheduleFire[], window: number, watermarks: ReadonlyArray<{ itemsFoundLast: number }> = []) {
  const count = (p: (f: schedules.ScheduleFire) => boolean) => fires.filter(p).length;
  const failed = fires.filter((f) => f.status === 'failed');
  // Fires come newest first.
  const lastError = failed[0];
  return {
    window,
    fires: fires.length,
    cycles: count((f) => f.status === 'started' || f.status === 'finished' || f.status === 'suppressed'),
    suppressed: count((f) => f.status === 'suppressed'),
    found_last_cycle: watermarks.reduce((n, w) => n + w.itemsFoundLast, 0),
    skipped: count((f) => f.status === 'skipped'),
    outside_active_hours: count((f) => f.status === 'skipped' && f.reason === 'outside_active_hours'),
    failed: failed.length,
    pending: count((f) => f.status === 'queued' || f.status === 'buffered'),
    last_fire_at: fires[0]?.fireAt ?? null,
    last_error: lastError ? { fire_at: lastError.fireAt, reason: lastError.reason } : null,
  };
}
