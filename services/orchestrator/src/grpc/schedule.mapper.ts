/** Schedules and fires, domain → wire (instants as ISO strings, empty when absent). */
import type { schedules } from '@af/contracts';
import type { ScheduleView } from '../app/schedule-commands.js';
import type { StoredFire } from '../infra/schedule.store.js';
import type { StoredWatermark } from '../infra/monitor-watermark.store.js';

const iso = (d: Date | null) => (d ? d.toISOString() : '');

export function toWireSchedule(s: ScheduleView): schedules.Schedule {
  return {
    id: s.id,
    name: s.name,
    definition: s.definition as unknown as Record<string, unknown>,
    paused: s.paused,
    nextFireAt: iso(s.nextFireAt),
    lastRunAt: iso(s.lastRunAt),
    lastRunId: s.lastRunId ?? '',
    lastRunStatus: s.lastRunStatus ?? '',
    missedFires: String(s.missedFires),
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
  };
}

export function toWireFire(f: StoredFire): schedules.ScheduleFire {
  return {
    fireAt: iso(f.fireAt),
    kind: f.kind,
    status: f.status,
    runId: f.runId ?? '',
    attempt: f.attempt,
    reason: f.reason ?? '',
    dispatchedAt: iso(f.dispatchedAt),
  };
}

export function toWireWatermark(w: StoredWatermark): schedules.MonitorWatermark {
  return {
    stepName: w.stepName,
    watermarkType: w.kind,
    watermarkValue: w.value,
    metadata: w.metadata,
    lastCheckedAt: iso(w.lastCheckedAt),
    itemsFoundLast: w.itemsFoundLast,
    updatedAt: iso(w.updatedAt),
  };
}
