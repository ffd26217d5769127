/**
 * What a reference root may name in a PlanGraph, shared by the structural
 * validator and the compilers: a node's output key, a plan input, a runtime
 * built-in (`today`, `N_days_ago`, `execution_id`, `last_execution_date`,
 * `current`, `index`) or a reserved root.
 */
import { isBuiltin, isRunVariable } from '@af/expr';

/**
 * Roots the orchestrator always binds: `input` (the run's input values as one
 * object — workflow seed `{{input.recipient}}`) and `var` (run variables,
 * `{{var.counter}}`).
 */
export const RESERVED_ROOTS: ReadonlySet<string> = new Set(['input', 'var']);

/** Built-in names offered as suggestions (the `N_days_ago` family is represented by one example). */
export const BUILTIN_SUGGESTIONS = ['today', '30_days_ago', 'execution_id', 'last_execution_date', 'date', 'datetime', 'time', 'run_id', 'node_id'] as const;

/** Built-ins, run variables (`date`, `datetime`, `time`, `run_id`, `node_id`) and reserved roots. */
export function isRuntimeRoot(root: string): boolean {
  return isBuiltin(root) || isRunVariable(root) || RESERVED_ROOTS.has(root);
}
