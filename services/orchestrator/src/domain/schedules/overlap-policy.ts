/**
 * What a fire does while earlier runs of its schedule are still active —
 * Temporal's schedule overlap policies, under our snake_case names.
 */

export const OVERLAP_POLICIES = ['skip', 'buffer_one', 'buffer_all', 'cancel_other', 'terminate_other', 'allow_all'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

export type OverlapDecision =
  /** Start the run now. */
  | { action: 'start' }
  /** Record the fire as skipped. */
  | { action: 'skip'; reason: string }
  /** Keep the fire; it starts when no run of the schedule is active any more. */
  | { action: 'buffer' }
  /**
   * Cancel the active runs first. `startNow` false (cancel_other): the fire
   * waits, buffered, until they have stopped; true (terminate_other): it
   * starts in the same step.
   */
  | { action: 'cancel_active'; startNow: boolean };

/**
 * @param active runs of this schedule not yet finished
 * @param buffered fires of this schedule already waiting (this one excluded)
 */
export function decideOverlap(policy: OverlapPolicy, active: number, buffered: number): OverlapDecision {
  // Buffered fires go first, in order: a new fire never overtakes one waiting.
  if (active === 0 && buffered === 0) return { action: 'start' };
  switch (policy) {
    case 'allow_all':
      return { action: 'start' };
    case 'skip':
      return { action: 'skip', reason: `overlap_policy skip: ${active} run(s) of this schedule still active` };
    case 'buffer_one':
      return buffered === 0 ? { action: 'buffer' } : { action: 'skip', reason: 'overlap_policy buffer_one: a fire is already buffered' };
    case 'buffer_all':
      return { action: 'buffer' };
    case 'cancel_other':
      return active > 0 ? { action: 'cancel_active', startNow: false } : { action: 'buffer' };
    case 'terminate_other':
      return { action: 'cancel_active', startNow: true };
  }
}

/** A buffered fire may start once nothing of its schedule is active (allow_all never buffers). */
export function bufferedMayStart(active: number): boolean {
  return active === 0;
}
