/**
 * The times a finished run reports on its `complete` frame:
 *
 * - `durationMs`: wall time, from the run's start (its creation) to its
 *   finish — waits for people, timers and child runs included;
 * - `activeMs`: the time orchestrators spent executing it — the leases that
 *   ended parked or stopped (`active_ms` of the run row) plus the last one.
 *
 * Clocks of different machines may disagree: neither is ever negative, and
 * active time never exceeds wall time.
 */
export interface RunTimes {
  durationMs: number;
  activeMs: number;
}

const ms = (n: number) => (Number.isFinite(n) && n > 0 ? Math.round(n) : 0);

export function runTimes(createdAt: Date | string, activeBefore: number | undefined, leaseStarted: number, now: number): RunTimes {
  const durationMs = ms(now - new Date(createdAt).getTime());
  const activeMs = Math.min(ms(activeBefore ?? 0) + ms(now - leaseStarted), durationMs);
  return { durationMs, activeMs };
}

/** The active time of one lease that ends now (added to the run row when it parks or stops). */
export function leaseActiveMs(leaseStarted: number, now: number): number {
  return ms(now - leaseStarted);
}
