/**
 * The pure step of the dispatcher: a claimed schedule whose due time has
 * come yields the fires to record and its next fire (with jitter).
 */
import { catchUp, nextFire, type Timing } from './fire-time.js';
import { dueAt } from './jitter.js';

export interface Advance {
  /** Fires to record, oldest first (each inside the catch-up window and ≤ now). */
  fires: Date[];
  /** Fires skipped because they were older than the catch-up window. */
  missed: number;
  /** The next nominal fire and when it is due (null: the schedule has no more fires). */
  nextFireAt: Date | null;
  dueAt: Date | null;
}

/**
 * From the stored next fire, every fire due by `now` (at most `maxFires`;
 * the rest on the next claim), the missed count, and the next fire.
 */
export function advanceSchedule(input: { id: string; timing: Timing; nextFireAt: Date; now: Date; catchupWindowMs: number; jitterMs: number; maxFires?: number }): Advance {
  const max = input.maxFires ?? 100;
  const fires: Date[] = [];
  let missed = 0;
  let cursor: Date | null = input.nextFireAt;
  while (cursor && cursor.getTime() <= input.now.getTime() && fires.length < max) {
    const step = catchUp(input.timing, cursor, input.now, input.catchupWindowMs);
    missed += step.missed;
    if (!step.fire) {
      // Everything up to now was missed: the next fire is the first after the window's start that is still ahead.
      cursor = nextFire(input.timing, new Date(Math.max(input.now.getTime() - input.catchupWindowMs, cursor.getTime())));
      while (cursor && cursor.getTime() <= input.now.getTime()) cursor = nextFire(input.timing, cursor);
      break;
    }
    fires.push(step.fire);
    cursor = nextFire(input.timing, step.fire);
  }
  return { fires, missed, nextFireAt: cursor, dueAt: cursor ? dueAt(input.id, cursor, input.jitterMs) : null };
}

/** The first fire of a new (or resumed) schedule: strictly after `from`. */
export function firstFire(id: string, timing: Timing, from: Date, jitterMs: number): { nextFireAt: Date | null; dueAt: Date | null } {
  const next = nextFire(timing, from);
  return { nextFireAt: next, dueAt: next ? dueAt(id, next, jitterMs) : null };
}

/** Delay before attempt `attempt + 1` to start a fire's run: 1 s, 2 s, 4 s … capped at 5 min. */
export function startRetryDelayMs(attempt: number): number {
  return Math.min(1000 * 2 ** Math.max(0, attempt), 300_000);
}
