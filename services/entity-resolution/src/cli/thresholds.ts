/**
 * `--auto-threshold` and `--review-threshold` of `er resolve` / `af er resolve`:
 * where a deployment sits on the trade between recall and the review queue
 * (the bench's `ER_BENCH_REVIEW_SWEEP` measures it). Refused, naming the flag,
 * rather than clamped: a probability outside 0–1, an auto threshold below the
 * 0.7 floor, a review threshold above the auto threshold.
 */
import { DEFAULT_THRESHOLDS, MIN_AUTO_THRESHOLD, type Thresholds } from '../domain/decision.js';

const PROBABILITY = /^(0(\.\d*)?|\.\d+|1(\.0*)?)$/;

function probability(flag: string, text: string): number {
  if (!PROBABILITY.test(text.trim()))
    throw new Error(`${flag} ${text}: must be a probability between 0 and 1`);
  return Number(text);
}

/** The thresholds the flags give (defaults for an absent flag); throws an Error naming the flag. */
export function parseThresholdFlags(flags: { auto?: string; review?: string }): Thresholds {
  const auto =
    flags.auto === undefined ? DEFAULT_THRESHOLDS.auto : probability('--auto-threshold', flags.auto);
  if (auto < MIN_AUTO_THRESHOLD)
    throw new Error(
      `--auto-threshold ${flags.auto}: must be at least ${MIN_AUTO_THRESHOLD} (no automatic merge below it)`,
    );
  const review =
    flags.review === undefined
      ? Math.min(auto, DEFAULT_THRESHOLDS.review)
      : probability('--review-threshold', flags.review);
  if (review > auto)
    throw new Error(`--review-threshold ${flags.review}: must not exceed the auto threshold ${auto}`);
  return { auto, review };
}
