/**
 * When a schedule fires: a cron expression in a zone, a fixed interval from
 * an anchor, or one time only. Every function is "strictly after `after`", so
 * the fire just dispatched is never returned again.
 */
import type { CronSpec } from './cron-spec.js';

export type Timing =
  | { kind: 'cron'; cron: CronSpec }
  | { kind: 'interval'; everyMs: number; anchor: Date }
  | { kind: 'once'; at: Date };

/** The first fire strictly after `after`, or null when there is none (a one-off already passed, a cron that ended). */
export function nextFire(timing: Timing, after: Date): Date | null {
  switch (timing.kind) {
    case 'cron':
      return timing.cron.next(after);
    case 'interval': {
      const anchor = timing.anchor.getTime();
      const t = after.getTime();
      if (t < anchor) return new Date(anchor);
      // Whole periods since the anchor, so a late dispatcher does not drift the grid.
      const k = Math.floor((t - anchor) / timing.everyMs) + 1;
      return new Date(anchor + k * timing.everyMs);
    }
    case 'once':
      return timing.at.getTime() > after.getTime() ? timing.at : null;
  }
}

/** Up to `limit` fires in (from, to], oldest first: what a backfill of that range starts. */
export function firesBetween(timing: Timing, from: Date, to: Date, limit: number): Date[] {
  const out: Date[] = [];
  let cursor = from;
  while (out.length < limit) {
    const next = nextFire(timing, cursor);
    if (!next || next.getTime() > to.getTime()) break;
    out.push(next);
    cursor = next;
  }
  return out;
}

export interface CatchUp {
  /** The fire to dispatch now: the oldest due one inside the window (null: nothing is due). */
  fire: Date | null;
  /** Fires older than the window, skipped (counted up to `countLimit`). */
  missed: number;
}

/**
 * What to do with a schedule whose stored next fire is `stored` at `now`.
 * Fires older than `now - windowMs` were missed (every replica was down)
 * and are skipped, as Temporal's catch-up window does; the oldest fire inside
 * the window is dispatched, later ones on the following ticks.
 */
export function catchUp(timing: Timing, stored: Date, now: Date, windowMs: number, countLimit = 1000): CatchUp {
  if (stored.getTime() > now.getTime()) return { fire: null, missed: 0 };
  const oldestAllowed = now.getTime() - windowMs;
  if (stored.getTime() >= oldestAllowed) return { fire: stored, missed: 0 };
  let missed = 1;
  let cursor: Date | null = stored;
  // Counted, bounded: a minutely schedule down for a year must not loop half a million times.
  while (missed < countLimit) {
    cursor = nextFire(timing, cursor);
    if (!cursor || cursor.getTime() >= oldestAllowed) break;
    missed++;
  }
  if (missed >= countLimit) cursor = nextFire(timing, new Date(oldestAllowed - 1));
  const fire = cursor && cursor.getTime() <= now.getTime() ? cursor : null;
  return { fire, missed };
}
