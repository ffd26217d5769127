/** Success answers of the schedule and monitor routes (the OpenAPI document; the views build them). */
import { z } from 'zod';

const instant = z.string();
const base = {
  id: z.string(),
  name: z.string(),
  paused: z.boolean(),
  next_fire_at: instant.nullable(),
  last_run_at: instant.nullable(),
  last_run_id: z.string().nullable(),
  last_run_status: z.string().nullable(),
  missed_fires: z.number(),
  created_at: instant,
  updated_at: instant,
};

export const ScheduleView = z.object({ ...base, definition: z.record(z.string(), z.unknown()) });
export const MonitorView = z.object({ ...base, definition: z.record(z.string(), z.unknown()), monitor_config: z.unknown() });
export const FireView = z.object({
  fire_at: instant,
  kind: z.string(),
  status: z.string(),
  run_id: z.string().nullable(),
  attempt: z.number(),
  reason: z.string().nullable(),
  dispatched_at: instant.nullable(),
});
export const WatermarkView = z.object({
  step_name: z.string(),
  watermark_type: z.string(),
  watermark_value: z.string(),
  metadata: z.record(z.string(), z.unknown()),
  last_checked_at: instant,
  items_found_last: z.number(),
  updated_at: instant,
});

export const ScheduleAnswer = z.object({ schedule: ScheduleView });
export const ScheduleList = z.object({ schedules: z.array(ScheduleView), next_page_token: z.string().nullable() });
export const FireList = z.object({ fires: z.array(FireView) });
export const Fired = z.object({ fire_at: instant, run_id: z.string() });
export const Backfilled = z.object({ queued_fire_times: z.array(instant), already_recorded: z.number() });
export const MonitorAnswer = z.object({ monitor: MonitorView });
export const MonitorList = z.object({ monitors: z.array(MonitorView) });
export const WatermarkList = z.object({ watermarks: z.array(WatermarkView) });
export const WatermarkAnswer = z.object({ watermark: WatermarkView });
export const ResetAnswer = z.object({ reset: z.number() });
export const StatsAnswer = z.object({
  stats: z.object({
    window: z.number(),
    fires: z.number(),
    cycles: z.number(),
    suppressed: z.number(),
    found_last_cycle: z.number(),
    skipped: z.number(),
    outside_active_hours: z.number(),
    failed: z.number(),
    pending: z.number(),
    last_fire_at: instant.nullable(),
    last_error: z.object({ fire_at: instant, reason: z.string() }).nullable(),
  }),
});
