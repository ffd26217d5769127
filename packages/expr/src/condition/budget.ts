/**
 * Bounds on condition evaluation. A condition is user text evaluated
 * synchronously inside a service, so its cost must be bounded by something
 * other than the data it reads: `some(a, some(b, some(c, …)))` costs
 * |a|·|b|·|c|… and no timeout can interrupt a synchronous loop.
 *
 *   - quantifier nesting (`some`/`all`/`none` inside another's predicate) is
 *     capped when the condition is compiled (`quantifier_depth_exceeded`);
 *   - every evaluation has a step budget (`condition_budget_exceeded`): one
 *     step per quantifier element, per array element an `in`/`contains`
 *     scans, per element a deep `==` or a `[*]` projection visits.
 *
 * Evaluation is synchronous and never calls user code, so one module-level
 * counter serves every evaluation: each compiled condition sets it on entry
 * and restores it on exit. Outside an evaluation the counter is infinite and
 * charging it is a no-op.
 */
import { ExprError } from '../expr-error.js';

/** Limits applied to every condition compiled afterwards. */
export interface ConditionLimits {
  /** How many `some`/`all`/`none` may nest inside one another's predicate. */
  maxQuantifierDepth: number;
  /** Steps one evaluation may take (see the module comment); `Infinity` turns counting off. */
  maxSteps: number;
}

/** The defaults: 3 nested quantifiers, 100,000 steps per evaluation. */
export const DEFAULT_CONDITION_LIMITS: Readonly<ConditionLimits> = Object.freeze({ maxQuantifierDepth: 3, maxSteps: 100_000 });

let limits: ConditionLimits = { ...DEFAULT_CONDITION_LIMITS };

/**
 * Change the process-wide limits (a service calls this once at start-up from
 * its configuration). Conditions compiled before keep the limits they were
 * compiled with.
 */
export function configureConditionLimits(next: Partial<ConditionLimits>): ConditionLimits {
  const merged = { ...limits, ...next };
  if (!Number.isInteger(merged.maxQuantifierDepth) || merged.maxQuantifierDepth < 0) {
    throw new RangeError(`maxQuantifierDepth must be a non-negative integer, got ${merged.maxQuantifierDepth}`);
  }
  if (!(merged.maxSteps === Infinity || (Number.isInteger(merged.maxSteps) && merged.maxSteps > 0))) {
    throw new RangeError(`maxSteps must be a positive integer or Infinity, got ${merged.maxSteps}`);
  }
  limits = merged;
  return { ...limits };
}

/** The limits in force. */
export function conditionLimits(): ConditionLimits {
  return { ...limits };
}

/** Steps left in the evaluation under way; Infinity outside any evaluation. */
let left = Infinity;
/** The budget of the evaluation under way (for the error message). */
let budgetOfCurrent = Infinity;

/** Spend `n` steps of the current evaluation; throws `condition_budget_exceeded` past the budget. */
export function charge(n: number): void {
  // Kept tiny so the JIT inlines it into the evaluator's loops; the error is built out of line.
  if ((left -= n) < 0) exceeded();
}

function exceeded(): never {
  const budget = budgetOfCurrent;
  // Nothing more may be charged to this evaluation while the error unwinds.
  left = -Infinity;
  throw new ExprError(
    'condition_budget_exceeded',
    `condition evaluation exceeded its budget of ${budget} steps (quantifiers over large collections multiply; narrow the collections or the nesting)`,
  );
}

/** Wrap `fn` so that each call runs with a fresh budget of `maxSteps`. */
export function withBudget<S, R>(maxSteps: number, fn: (scope: S) => R): (scope: S) => R {
  if (maxSteps === Infinity) return fn;
  return (scope: S): R => {
    const savedLeft = left;
    const savedBudget = budgetOfCurrent;
    left = maxSteps;
    budgetOfCurrent = maxSteps;
    try {
      return fn(scope);
    } finally {
      left = savedLeft;
      budgetOfCurrent = savedBudget;
    }
  };
}
