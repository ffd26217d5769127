/** Schedules and fires as the HTTP API shows them (snake_case; instants ISO 8601 or null). */
import type { schedules } from '@af/contracts';

const orNull = (s: string) => (s === '' ? null : s);

export function scheduleView(s: schedules.Schedule) {
  return {
    id: s.id,
    name: s.name,
    definition: s.definition ?? {},
    paused: s.paused,
    next_fire_at: orNull(s.nextFireAt),
    last_run_at: orNull(s.lastRunAt),
    last_run_id: orNull(s.lastRunId),
    last_run_status: orNull(s.lastRunStatus),
    missed_fires: Number(s.missedFires),
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}

export function fireView(f: schedules.ScheduleFire) {
  return {
    fire_at: f.fireAt,
    kind: f.kind,
    status: f.status,
    run_id: orNull(f.runId),
    attempt: f.attempt,
    reason: orNull(f.reason),
    dispatched_at: orNull(f.dispatchedAt),
  };
}
