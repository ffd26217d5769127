/** The schedule routes in the API document (/api/docs). */
import { BackfillBodySchema, RunNowBodySchema, ScheduleDefinitionBodySchema } from './schedule.schemas.js';
import { MonitorBodySchema, SetWatermarkBodySchema } from '../monitors/monitor.schemas.js';
import * as A from './schedule.responses.js';

const BASE = '/api/agent-factory/schedules';
const MONITORS = '/api/agent-factory/monitors';
const DEFINITION =
  '{name, spec: {cron, timezone} | {interval, start_at?} | {at} — or, for a monitor, monitor: {interval, active_hours?: {start, end, timezone}, suppress_if_empty?} — target: {playbook_id, playbook_revision?, inputs?} | {plan, inputs?} | {agent_profile_id, inputs?} (the profile must be yours or shared with you: 404 otherwise; its query is query_template, then required), query_template? ({date}, {last_run_date}, {datetime}), approval_policy? (require|auto_approve), overlap_policy? (skip|buffer_one|buffer_all|cancel_other|terminate_other|allow_all), catchup_window?, jitter?, max_retries?, timeout_seconds?, paused?}; 400 names the field (spec.cron with the cron field and its position, spec.timezone, overlap_policy)';

export const SCHEDULE_ROUTES = [
  { method: 'post' as const, path: BASE, summary: `Create a schedule: ${DEFINITION}`, body: ScheduleDefinitionBodySchema, response: A.ScheduleAnswer, idempotent: true },
  { method: 'get' as const, path: BASE, summary: 'Your schedules (?page_size=&page_token=)', response: A.ScheduleList },
  { method: 'get' as const, path: `${BASE}/{id}`, summary: 'One schedule: definition, next fire, last run and its status, missed fires', response: A.ScheduleAnswer },
  { method: 'put' as const, path: `${BASE}/{id}`, summary: 'Replace the definition; the next fire is computed again', body: ScheduleDefinitionBodySchema, response: A.ScheduleAnswer },
  { method: 'delete' as const, path: `${BASE}/{id}`, summary: 'Delete a schedule and its fire history (runs stay)', status: '204' },
  { method: 'post' as const, path: `${BASE}/{id}/pause`, summary: 'Pause: no fire is dispatched until resumed', response: A.ScheduleAnswer },
  { method: 'post' as const, path: `${BASE}/{id}/resume`, summary: 'Resume; fires that fell while paused are not made up for', response: A.ScheduleAnswer },
  { method: 'post' as const, path: `${BASE}/{id}/run-now`, summary: 'One fire now ({overlap_policy?}); answers its fire time and run id', body: RunNowBodySchema, status: '202', response: A.Fired },
  { method: 'post' as const, path: `${BASE}/{id}/backfill`, summary: 'Queue the fires of a past range [start_time, end_time] (at most 1000; fires already recorded are not repeated)', body: BackfillBodySchema, status: '202', response: A.Backfilled },
  { method: 'get' as const, path: `${BASE}/{id}/fires`, summary: 'Recent fires, newest first: kind, status (queued, buffered, started, finished, suppressed, skipped, failed), run id, reason (?limit=)', response: A.FireList },
  { method: 'post' as const, path: MONITORS, summary: 'Create a monitor: {name, monitor_config: {interval (≥ 1m), active_hours?: {start, end, timezone}, suppress_if_empty?}, target, query_template?, approval_policy? (default auto_approve)}; an inline plan needs a detection step', body: MonitorBodySchema, response: A.MonitorAnswer, idempotent: true },
  { method: 'get' as const, path: MONITORS, summary: 'Your monitors', response: A.MonitorList },
  { method: 'get' as const, path: `${MONITORS}/{id}`, summary: 'One monitor', response: A.MonitorAnswer },
  { method: 'put' as const, path: `${MONITORS}/{id}`, summary: 'Replace a monitor (interval, active hours, …)', body: MonitorBodySchema, response: A.MonitorAnswer },
  { method: 'delete' as const, path: `${MONITORS}/{id}`, summary: 'Delete a monitor', status: '204' },
  { method: 'post' as const, path: `${MONITORS}/{id}/pause`, summary: 'Pause polling', response: A.MonitorAnswer },
  { method: 'post' as const, path: `${MONITORS}/{id}/resume`, summary: 'Resume polling', response: A.MonitorAnswer },
  { method: 'post' as const, path: `${MONITORS}/{id}/run-now`, summary: 'One check now, whatever the interval and active hours', status: '202', response: A.Fired },
  { method: 'get' as const, path: `${MONITORS}/{id}/stats`, summary: 'Dashboard figures over the last 500 fires: cycles, suppressed, found_last_cycle, skipped (of which outside_active_hours), failed, pending, last_fire_at, last_error', response: A.StatsAnswer },
  { method: 'get' as const, path: `${MONITORS}/{id}/watermarks`, summary: 'Current watermarks of every detection step: step_name, watermark_type (timestamp, cursor, hash, offset), watermark_value, metadata, last_checked_at, items_found_last', response: A.WatermarkList },
  { method: 'put' as const, path: `${MONITORS}/{id}/watermarks/{step}`, summary: "Set one step's watermark; 400 when the value does not fit its kind or the step keeps another kind (reset first)", body: SetWatermarkBodySchema, response: A.WatermarkAnswer },
  { method: 'post' as const, path: `${MONITORS}/{id}/reset-watermarks`, summary: 'Forget the watermarks (?step= one step): the next check sees everything as new', response: A.ResetAnswer, status: '200' },
];
