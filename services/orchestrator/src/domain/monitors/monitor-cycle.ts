/**
 * One monitor cycle's decisions: whether to poll now (active hours), and what
 * the cycle's status is after its detection steps (`suppress_if_empty`).
 */
import { withinActiveHours, type ActiveHours } from './active-hours.js';

export type CycleStatus = 'outside_active_hours' | 'suppressed' | 'run';

export function shouldPoll(at: Date, activeHours: ActiveHours | null): boolean {
  return activeHours ? withinActiveHours(at, activeHours) : true;
}

/**
 * After the detection steps: with suppress_if_empty and no step finding
 * anything, the cycle is `suppressed` — downstream steps are skipped, no
 * journal entry or notification is written, only the watermarks' check times
 * move. Otherwise the whole playbook runs.
 */
export function cycleStatus(detectionCounts: readonly number[], suppressIfEmpty: boolean): 'suppressed' | 'run' {
  if (!suppressIfEmpty) return 'run';
  return detectionCounts.some((n) => n > 0) ? 'run' : 'suppressed';
}
