/**
 * The decision for one record given its best candidate: merge at or above
 * the auto threshold, a review item in the band below it, a new entity
 * otherwise. No auto-merge below 0.7, whatever the configuration says.
 */
import type { ResolvableType } from './record.js';

export type Decision = 'auto_merge' | 'flag_review' | 'create_new';

/** The floor under every auto-merge threshold. */
export const MIN_AUTO_THRESHOLD = 0.7;

export interface Thresholds {
  /** Probability at or above which a record merges without review (default 0.9). */
  auto: number;
  /** Probability at or above which (and below `auto`) a pair goes to the review queue (default 0.4). */
  review: number;
}

/**
 * The probability is calibrated (of the generated records' review items between 0.4 and 0.5, 47 %
 * are matches at 100k records), so the review threshold is a policy: how unlikely a match is still
 * worth a person's look. At 0.4 rather than 0.5, 100,000 generated records keep 98.2 % of true
 * pairs with review for 2.7 % of records left open (97.9 % for 2.5 %); the bench's
 * `ER_BENCH_REVIEW_SWEEP` reports the trade at other thresholds.
 */
export const DEFAULT_THRESHOLDS: Thresholds = { auto: 0.9, review: 0.4 };

/** Thresholds with the floor applied and `review ≤ auto`. */
export function effectiveThresholds(t: Partial<Thresholds> = {}): Thresholds {
  const auto = Math.min(1, Math.max(MIN_AUTO_THRESHOLD, t.auto ?? DEFAULT_THRESHOLDS.auto));
  const review = Math.min(auto, Math.max(0, t.review ?? DEFAULT_THRESHOLDS.review));
  return { auto, review };
}

export function decide(
  probability: number,
  conflict: boolean,
  thresholds: Thresholds = DEFAULT_THRESHOLDS,
): Decision {
  const t = effectiveThresholds(thresholds);
  if (probability >= t.auto && !conflict) return 'auto_merge';
  if (probability >= t.review && !conflict) return 'flag_review';
  return 'create_new';
}

/**
 * The share of the auto threshold's distance to 1 that a bridge may take, per entity type: a
 * bridge joins two existing entities, so it needs several times the odds a merge does. People a
 * tenth (0.99 for the default 0.9): a namesake without a state is compatible with any cluster of
 * the name. Organisations three tenths (0.97): an organisation's namesakes are its siblings, which
 * another legal form or EIN already keeps apart (`incompatible` in resolve-one.ts). Measured on
 * the seeded generator (seed 7, medium): organisations at 0.97 raised auto recall by 0.005 at
 * 10k, 100k and 1M records at the same auto precision, and closed 0.1 points of review items;
 * at 0.95 precision fell by 0.0004 at 10k. People at 0.97 cost 0.0004 of precision at 100k.
 */
export const BRIDGE_SHARE: Readonly<Record<ResolvableType, number>> = { PERSON: 0.1, ORG: 0.3 };

/**
 * The probability at or above which a record of `type` that merges into one cluster also joins
 * another it matches: the auto threshold's distance to 1 cut to `BRIDGE_SHARE` of it.
 */
export function bridgeThreshold(t: Thresholds, type: ResolvableType): number {
  const auto = effectiveThresholds(t).auto;
  return 1 - (1 - auto) * BRIDGE_SHARE[type];
}
