/**
 * monitor_config.active_hours: a monitor polls only between `start` and `end`
 * (HH:MM, 24 h) on the wall clock of `timezone`. A window whose end is before
 * its start runs overnight (22:00–06:00). The start is inside the window, the
 * end is not.
 */

export interface ActiveHours {
  start: string;
  end: string;
  timezone: string;
}

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Minutes after midnight of `HH:MM`, or null when it is not a 24 h time. */
export function parseHhmm(text: string): number | null {
  const m = HHMM.exec(text);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/** Minutes after local midnight of `at` in `timeZone`. */
export function localMinutes(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return get('hour') * 60 + get('minute');
}

export function withinActiveHours(at: Date, hours: ActiveHours): boolean {
  const start = parseHhmm(hours.start);
  const end = parseHhmm(hours.end);
  if (start === null || end === null) throw new Error(`active_hours must be HH:MM, got ${hours.start}–${hours.end}`);
  if (start === end) return true;
  const now = localMinutes(at, hours.timezone);
  return start < end ? now >= start && now < end : now >= start || now < end;
}
