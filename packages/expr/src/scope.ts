/**
 * The evaluation scope and the resolution of a reference's root name,
 * including the built-in runtime variables of the playbook seed
 * (`{today}`, `{N_days_ago}`, `{execution_id}`, `{last_execution_date}`) and
 * the loop variables of the workflow seed (`{{current}}`, `{{index}}`).
 */
import { MISSING, walkPath, type PathSegment } from './path.js';

/** Everything a reference or condition can read. */
export interface Scope {
  /** Playbook inputs and step outputs by name (`output_key` / step id). */
  vars: Record<string, unknown>;
  /** Clock for `{today}` / `{N_days_ago}`; defaults to `new Date()` at resolution time. */
  now?: Date;
  executionId?: string;
  /** ISO date of the previous run; `null` (or absent) on the first run. */
  lastExecutionDate?: string | null;
  /** Current loop item (`{{current}}`). */
  current?: unknown;
  /** Current loop index (`{{index}}`). */
  index?: number;
  /** The node being resolved (`{node_id}`). */
  nodeId?: string;
}

const hasOwn = Object.prototype.hasOwnProperty;
const DAYS_AGO_RE = /^(\d+)_days_ago$/;
const FIXED_BUILTINS = new Set(['today', 'execution_id', 'last_execution_date', 'current', 'index']);
const DAY_MS = 86_400_000;

/**
 * Run variables: names the runtime fills when neither an input nor a step
 * output has the name — `{date}` (as `{today}`), `{datetime}`
 * (`YYYY-MM-DDTHH-MM-SS`, file-name safe), `{time}` (`HH-MM-SS`),
 * `{run_id}` (as `{execution_id}`) and `{node_id}`. Unlike the built-ins they
 * may also be input names (the input wins), so playbooks that already have a
 * `date` input keep their meaning. They are the variables of output
 * file-name templates.
 */
export const RUN_VARIABLES: readonly string[] = ['date', 'datetime', 'time', 'run_id', 'node_id'];
const RUN_VARIABLE_SET = new Set(RUN_VARIABLES);

/** True for a run variable (`date`, `datetime`, `time`, `run_id`, `node_id`). */
export function isRunVariable(root: string): boolean {
  return RUN_VARIABLE_SET.has(root);
}

function runVariable(scope: Scope, root: string): unknown {
  const base = scope.now ?? new Date();
  switch (root) {
    case 'date':
      return isoDay(scope.now, 0);
    case 'datetime':
      return base.toISOString().slice(0, 19).replace(/:/g, '-');
    case 'time':
      return base.toISOString().slice(11, 19).replace(/:/g, '-');
    case 'run_id':
      return scope.executionId ?? MISSING;
    case 'node_id':
      return scope.nodeId ?? MISSING;
  }
  return MISSING;
}

/** True for the names the runtime provides: today, N_days_ago, execution_id, last_execution_date, current, index. */
export function isBuiltin(root: string): boolean {
  return FIXED_BUILTINS.has(root) || DAYS_AGO_RE.test(root);
}

/** `YYYY-MM-DD` (UTC) of `now` minus `days`, or MISSING when the date is out of range. */
function isoDay(now: Date | undefined, days: number): string | typeof MISSING {
  const base = now ?? new Date();
  const t = base.getTime() - days * DAY_MS;
  // Date's range is ±8.64e15 ms; beyond it toISOString would throw a RangeError.
  if (!Number.isFinite(t) || Math.abs(t) > 8.64e15) return MISSING;
  return new Date(t).toISOString().slice(0, 10);
}

/**
 * The value a root name denotes in `scope`, or `MISSING`. Date built-ins
 * always win; `execution_id`, `last_execution_date`, `current` and `index`
 * come from the scope's own fields first and fall back to `vars`. A missing
 * `last_execution_date` is `null` (first run), not unresolved.
 */
export function resolveRoot(scope: Scope, root: string): unknown {
  switch (root) {
    case 'today':
      return isoDay(scope.now, 0);
    case 'execution_id':
      if (scope.executionId !== undefined) return scope.executionId;
      break;
    case 'last_execution_date':
      if (scope.lastExecutionDate !== undefined) return scope.lastExecutionDate;
      return hasOwn.call(scope.vars, root) ? scope.vars[root] : null;
    case 'current':
      if (scope.current !== undefined) return scope.current;
      break;
    case 'index':
      if (scope.index !== undefined) return scope.index;
      break;
    default: {
      const c = root.charCodeAt(0);
      if (c >= 48 && c <= 57) {
        const m = DAYS_AGO_RE.exec(root);
        if (m) return isoDay(scope.now, Number(m[1]));
      }
    }
  }
  const vars = scope.vars;
  if (vars !== null && typeof vars === 'object' && hasOwn.call(vars, root)) return vars[root];
  return RUN_VARIABLE_SET.has(root) ? runVariable(scope, root) : MISSING;
}

/** Resolve `root` + `path` in `scope`; `MISSING` when any step is absent. */
export function resolveInScope(scope: Scope, root: string, path: readonly PathSegment[]): unknown {
  const base = resolveRoot(scope, root);
  if (base === MISSING || path.length === 0) return base;
  return walkPath(base, path);
}
