/**
 * What a monitor cycle writes in the statement that completes its run (see
 * run-execution.store.ts `finish`): its watermarks, and `suppressed` on its
 * fire. Both are parts of that one statement, gated on the run row it fences
 * (`r`), so they commit exactly when the run's completion does — a cycle that
 * crashes before completing moves no watermark and its items are seen again;
 * one that completed never sees them twice.
 */
import type { StagedWatermark } from '../domain/monitors/monitor-run.js';

type Bind = (value: unknown) => string;

export interface MonitorCompletion {
  monitorId: string;
  watermarks: StagedWatermark[];
  suppressed: boolean;
}

export function monitorCompletionSql(p: Bind, c: MonitorCompletion): string[] {
  const monitor = p(c.monitorId);
  // The monitor must still exist and be the run owner's (a plan's metadata is the caller's to write).
  const owned = `EXISTS (SELECT 1 FROM schedules s WHERE s.id = ${monitor}::uuid AND s.user_id = (SELECT x.user_id FROM runs x WHERE x.id = $1::uuid))`;
  const out: string[] = [];
  if (c.watermarks.length) {
    out.push(`INSERT INTO agent_monitor_watermarks (monitor_id, step_name, watermark_type, watermark_value, last_checked_at, items_found_last, updated_at)
       SELECT ${monitor}::uuid, w.step, w.kind, w.value, now(), w.found, now()
         FROM unnest(${p(c.watermarks.map((w) => w.step))}::text[], ${p(c.watermarks.map((w) => w.kind))}::text[], ${p(c.watermarks.map((w) => w.value))}::text[], ${p(c.watermarks.map((w) => w.found))}::int[]) AS w(step, kind, value, found)
        WHERE EXISTS (SELECT 1 FROM r) AND ${owned}
       ON CONFLICT (monitor_id, step_name) DO UPDATE
          SET watermark_value = EXCLUDED.watermark_value, last_checked_at = EXCLUDED.last_checked_at, items_found_last = EXCLUDED.items_found_last, updated_at = now()
        WHERE agent_monitor_watermarks.watermark_type = EXCLUDED.watermark_type`);
  }
  if (c.suppressed) {
    out.push(`UPDATE schedule_fires SET status = 'suppressed', reason = 'suppress_if_empty: no detection step found anything'
        WHERE schedule_id = ${monitor}::uuid AND run_id = $1::uuid AND EXISTS (SELECT 1 FROM r)`);
  }
  return out;
}
