/**
 * Cron expressions (five fields: minute hour day-of-month month day-of-week)
 * evaluated in an IANA time zone by `croner`. Parsing is ours only so far as
 * to say WHICH field is wrong and where: croner reports the first problem it
 * meets in its own words, without a column.
 */
import { Cron } from 'croner';

export const CRON_FIELDS = ['minute', 'hour', 'day-of-month', 'month', 'day-of-week'] as const;
export type CronField = (typeof CRON_FIELDS)[number];

export class CronSpecError extends Error {
  constructor(
    readonly reason: string,
    /** The offending field, when one is to blame. */
    readonly field?: CronField,
    /** 1-based column of that field in the expression. */
    readonly position?: number,
  ) {
    super(reason);
    this.name = 'CronSpecError';
  }
}

export class TimeZoneError extends Error {
  constructor(readonly timeZone: string) {
    super(`unknown time zone '${timeZone}': use an IANA name such as 'Europe/Berlin' or 'UTC'`);
    this.name = 'TimeZoneError';
  }
}

/** True when the runtime's ICU data knows `tz` (IANA names and 'UTC'). */
export function isTimeZone(tz: string): boolean {
  if (!tz || tz.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export function assertTimeZone(tz: string): void {
  if (!isTimeZone(tz)) throw new TimeZoneError(tz);
}

/** A parsed cron expression in one zone; `next(after)` is the first fire strictly after `after`. */
export interface CronSpec {
  readonly expression: string;
  readonly timeZone: string;
  next(after: Date): Date | null;
}

/**
 * Parse `expression` for `timeZone`. Errors quote the field, its 1-based
 * column and croner's reason: `hour '25' at position 3: Invalid value for hour: 25`.
 */
export function parseCron(expression: string, timeZone: string): CronSpec {
  assertTimeZone(timeZone);
  const text = expression.trim();
  if (text.length === 0 || text.length > 200) throw new CronSpecError('must be 1..200 characters');
  const parts = [...text.matchAll(/\S+/g)];
  if (parts.length !== CRON_FIELDS.length) {
    throw new CronSpecError(`must have exactly 5 space-separated fields (minute hour day-of-month month day-of-week), got ${parts.length}`);
  }
  // One field at a time, the others '*': the first field croner refuses is the one to name.
  for (const [i, part] of parts.entries()) {
    const probe = CRON_FIELDS.map((_, j) => (j === i ? part[0] : '*')).join(' ');
    try {
      new Cron(probe, { paused: true });
    } catch (err) {
      throw new CronSpecError(`${CRON_FIELDS[i]} '${part[0]}' at position ${part.index! + 1}: ${cronerReason(err)}`, CRON_FIELDS[i], part.index! + 1);
    }
  }
  let cron: Cron;
  try {
    // legacyMode (the default): day-of-month and day-of-week are OR-ed, as in Vixie cron.
    cron = new Cron(parts.map((p) => p[0]).join(' '), { paused: true, timezone: timeZone });
  } catch (err) {
    throw new CronSpecError(cronerReason(err));
  }
  // A date that never comes ('0 0 30 2 *') is refused now, not discovered at the first fire.
  if (!cron.nextRun(new Date(Date.UTC(2000, 0, 1)))) throw new CronSpecError('never fires (no date matches every field)');
  return {
    expression: text,
    timeZone,
    next: (after) => cron.nextRun(after) ?? null,
  };
}

function cronerReason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/^CronPattern:\s*/, '');
}
