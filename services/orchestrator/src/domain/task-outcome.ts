/**
 * A run's task outcome, beside its status: did it do its job? A run can end
 * `completed` with steps that failed under `on_error: skip`; `task_status`
 * says so.
 *
 * - `complete`: every step that ran succeeded (steps skipped by a false
 *   condition, a route not taken or a person's decision did not run).
 * - `partial`: the run finished, but some steps failed (their error policy let
 *   it go on) or were skipped `upstream_failed`; a cancelled run that had
 *   completed some steps.
 * - `error`: the run failed, or every step that ran failed (a cancelled run
 *   with nothing completed).
 * - `awaiting_approval`: the run is parked waiting on a person (set while it
 *   waits, not computed here).
 *
 * Steps are the plan's top-level nodes; a fallback node is not a step of its
 * own — a primary whose fallback completed counts as completed. A map is one
 * step, but a step its iterations lost (`fetch[1]` failed or skipped
 * upstream_failed under `continueOnError`) makes the run partial and is named.
 */
import type { PlanNode } from '@af/plan';
import type { TaskStatus } from './run-state.js';
import type { StateLookup } from './scheduler.js';
import { UPSTREAM_FAILED } from './upstream.js';

export { TASK_STATUSES, type TaskStatus } from './run-state.js';

export interface TaskOutcome {
  taskStatus: TaskStatus;
  stepsCompleted: number;
  stepsFailed: number;
  stepsSkipped: number;
  /** The failed (and upstream_failed) steps and why; the run's error when it failed otherwise. Null when nothing went wrong. */
  errorSummary: string | null;
}

/** Steps named one by one in the summary; the rest are counted. */
const SUMMARY_STEPS = 10;
const MESSAGE_MAX = 300;

const clip = (s: string) => (s.length > MESSAGE_MAX ? `${s.slice(0, MESSAGE_MAX - 1)}…` : s);

interface LevelTally {
  completed: number;
  skipped: number;
  failed: Array<{ id: string; why: string }>;
  /** `<id> skipped: <why>` of the steps skipped upstream_failed. */
  lost: string[];
}

/**
 * Counts one graph level (the plan, or one map iteration: `suffix` `[i]`):
 * its steps, leaving out fallback nodes — a failed primary whose fallback
 * completed counts as completed.
 */
function tally(nodes: readonly PlanNode[], states: StateLookup, suffix = ''): LevelTally {
  const get = (id: string) => states.get(id + suffix);
  const fallbackIds = new Set<string>();
  const fallbacksOf = new Map<string, string[]>();
  for (const n of nodes) {
    for (const fb of n.errorPolicy?.fallback ?? []) {
      fallbackIds.add(fb);
      fallbacksOf.set(n.id, [...(fallbacksOf.get(n.id) ?? []), fb]);
    }
    if (n.fallbackFor) {
      fallbackIds.add(n.id);
      fallbacksOf.set(n.fallbackFor, [...(fallbacksOf.get(n.fallbackFor) ?? []), n.id]);
    }
  }
  const t: LevelTally = { completed: 0, skipped: 0, failed: [], lost: [] };
  for (const n of nodes) {
    if (fallbackIds.has(n.id)) continue;
    const st = get(n.id);
    if (!st) continue;
    const standIn = (fallbacksOf.get(n.id) ?? []).some((fb) => get(fb)?.status === 'completed');
    if (st.status === 'completed' || (st.status === 'failed' && standIn)) t.completed++;
    else if (st.status === 'failed') {
      const last = [...(fallbacksOf.get(n.id) ?? [])].reverse().find((fb) => get(fb)?.status === 'failed');
      const why = (last ? get(last)?.error : null) ?? st.error ?? 'failed';
      t.failed.push({ id: n.id + suffix, why: clip(why) });
    } else if (st.status === 'skipped') {
      t.skipped++;
      if (st.skipReason === UPSTREAM_FAILED) t.lost.push(`${n.id + suffix} skipped: ${clip(st.error ?? UPSTREAM_FAILED)}`);
    }
  }
  return t;
}

const INSTANCE = /^([^[\]#]+)((?:\[\d+\])+)$/;

/**
 * Failures inside map iterations (instances `<id>[i]`, which the step counts
 * leave out): a map that completed with `continueOnError` still makes the run
 * partial when one of its iterations lost a step.
 */
function iterationTally(nodes: readonly PlanNode[], instances: Iterable<{ nodeId: string }>, states: StateLookup): Pick<LevelTally, 'failed' | 'lost'> {
  const bodyOf = new Map<string, readonly PlanNode[]>();
  const visit = (list: readonly PlanNode[]) => {
    for (const n of list) {
      if (!n.body) continue;
      for (const b of n.body.nodes) bodyOf.set(b.id, n.body.nodes);
      visit(n.body.nodes);
    }
  };
  visit(nodes);
  const levels = new Map<string, { body: readonly PlanNode[]; suffix: string }>();
  for (const { nodeId } of instances) {
    const m = INSTANCE.exec(nodeId);
    const body = m ? bodyOf.get(m[1]!) : undefined;
    if (!m || !body) continue;
    levels.set(`${m[2]}|${body[0]!.id}`, { body, suffix: m[2]! });
  }
  const out: Pick<LevelTally, 'failed' | 'lost'> = { failed: [], lost: [] };
  for (const { body, suffix } of levels.values()) {
    const t = tally(body, states, suffix);
    out.failed.push(...t.failed);
    out.lost.push(...t.lost);
  }
  return out;
}

/**
 * The outcome of a finished run from its node states. `status`: how the run
 * ended; `error`: the run's error, if it failed; `instances`: the states of
 * map iteration instances, if any (their failures are named too).
 */
export function taskOutcome(input: {
  status: 'completed' | 'failed' | 'cancelled';
  error: string | null;
  nodes: readonly PlanNode[];
  states: StateLookup;
  instances?: Iterable<{ nodeId: string }>;
}): TaskOutcome {
  const { status, nodes, states } = input;
  const { completed, skipped, failed, lost } = tally(nodes, states);
  const inner = input.instances ? iterationTally(nodes, input.instances, states) : { failed: [], lost: [] };
  let taskStatus: TaskStatus;
  if (status === 'failed') taskStatus = 'error';
  else if (failed.length > 0 && completed === 0) taskStatus = 'error';
  else if (status === 'cancelled') taskStatus = completed > 0 ? 'partial' : 'error';
  else taskStatus = failed.length + lost.length + inner.failed.length + inner.lost.length > 0 ? 'partial' : 'complete';

  const parts: string[] = [];
  // A run that failed for a reason of its own (output contract, policy, a step under `stop`) says so first.
  if (status === 'failed' && input.error && !failed.some((f) => input.error!.includes(`node ${f.id} `))) parts.push(clip(input.error));
  if (status === 'cancelled') parts.push(input.error ? `cancelled (${input.error})` : 'cancelled');
  const listed = [...[...failed, ...inner.failed].map((f) => `${f.id} failed: ${f.why}`), ...lost, ...inner.lost];
  parts.push(...listed.slice(0, SUMMARY_STEPS));
  if (listed.length > SUMMARY_STEPS) parts.push(`and ${listed.length - SUMMARY_STEPS} more`);
  return {
    taskStatus,
    stepsCompleted: completed,
    stepsFailed: failed.length,
    stepsSkipped: skipped,
    errorSummary: parts.length ? parts.join('; ') : null,
  };
}

/** The wire / frame fields of an outcome (snake_case, as the seeds name them). */
export function outcomePayload(o: TaskOutcome): Record<string, unknown> {
  return {
    task_status: o.taskStatus,
    steps_completed: o.stepsCompleted,
    steps_failed: o.stepsFailed,
    steps_skipped: o.stepsSkipped,
    error_summary: o.errorSummary,
  };
}

/**
 * Whether a parked run waits on a person: a waiting approval, human task,
 * clarification or policy gate — anything waiting but a delay's timer, a
 * subflow's child run or a map's iterations. `waiting`: the waiting instance
 * ids; `kindOf`: the plan node kind of an instance (undefined for policy gates).
 */
export function waitsOnPerson(waiting: Iterable<string>, kindOf: (instanceId: string) => PlanNode['kind'] | undefined): boolean {
  for (const id of waiting) {
    const kind = kindOf(id);
    if (kind !== 'delay' && kind !== 'subflow' && kind !== 'map') return true;
  }
  return false;
}
