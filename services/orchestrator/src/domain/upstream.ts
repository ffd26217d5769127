/**
 * Upstream failures. A step that reads the output of a step that failed (and
 * no fallback stood in for it), or of a step that was itself skipped for that
 * reason, does not run with empty inputs: it is skipped with reason
 * `upstream_failed`, naming the step it reads. The upstream step's error
 * policy decides whether the run goes on (`skip`: it does, and this step is
 * skipped; `stop`: the run already failed).
 *
 * Approval and human steps are gates: when one is skipped `upstream_failed`
 * (its preview or inputs came from a failed step, so a person would be asked
 * about data that does not exist), every step that waits for it is skipped the
 * same way, whether or not it reads the gate's output — nothing behind a gate
 * runs without the gate having been passed.
 *
 * Only failures propagate. A step skipped because its condition was false, a
 * route not taken, an approval rejected with `on_reject: skip` or timed out is
 * the plan's own decision: a step reading it still runs and reads it as empty.
 *
 * Master-agent plans are the exception (skipsOnUpstreamFailure): there a
 * failed agent's partial result is meant to reach the agents that depend on
 * it and the composer, which compose what is there.
 */
import { referencedRoots, type PlanGraph, type PlanNode } from '@af/plan';
import type { StateLookup } from './scheduler.js';

export const UPSTREAM_FAILED = 'upstream_failed';

/** Whether steps of this plan are skipped when what they read failed (all but master-agent plans). */
export function skipsOnUpstreamFailure(plan: Pick<PlanGraph, 'provenance'>): boolean {
  return plan.provenance?.frontEnd !== 'master_agent';
}

const SKIPPED_PREFIX = /^upstream step '[^']*' was skipped because /;

const GATES: ReadonlySet<PlanNode['kind']> = new Set(['approval', 'human']);

/**
 * Ids of the dependencies of `node` whose outputs it reads (by node id or
 * output key): `{step.path}` references, and the variables of conditions in
 * every dialect (a JSON-Logic `{"var": "step.path"}` of a workflow `executeIf`
 * reads `step`); see referencedRoots.
 */
export function dataDependencies(node: PlanNode, level: readonly PlanNode[]): string[] {
  if (node.dependsOn.length === 0) return [];
  const roots = referencedRoots(node);
  if (roots.size === 0) return [];
  const byId = new Map(level.map((n) => [n.id, n]));
  return node.dependsOn.filter((dep) => {
    const d = byId.get(dep);
    return !!d && (roots.has(d.id) || roots.has(d.outputKey ?? d.id));
  });
}

export interface UpstreamFailure {
  /** The dependency that failed or was skipped `upstream_failed`. */
  upstream: string;
  /** Names the step whose failure it comes from and why (stored as the skipped node's error). */
  message: string;
}

/**
 * Why `node` must be skipped `upstream_failed`, or undefined when it may run.
 * `reads`: its data dependencies (dataDependencies); `states`: the level's
 * node states by plan node id; `fallbacks`: primary → fallback ids.
 */
export function upstreamFailure(
  node: PlanNode,
  reads: readonly string[],
  level: readonly PlanNode[],
  states: StateLookup,
  fallbacks: ReadonlyMap<string, readonly string[]>,
): UpstreamFailure | undefined {
  for (const dep of node.dependsOn) {
    const st = states.get(dep);
    if (!st) continue;
    const isRead = reads.includes(dep);
    if (st.status === 'failed' && isRead) {
      // A fallback that completed stands in for its primary: its output is there to read.
      if ((fallbacks.get(dep) ?? []).some((fb) => states.get(fb)?.status === 'completed')) continue;
      return { upstream: dep, message: `upstream step '${dep}' failed${st.error ? `: ${st.error}` : ''}` };
    }
    if (st.status === 'skipped' && st.skipReason === UPSTREAM_FAILED) {
      const isGate = GATES.has(level.find((n) => n.id === dep)?.kind ?? 'tool');
      if (!isRead && !isGate) continue;
      // Name the skipped step and the failure at the root of the chain (the message stays one link long).
      const root = st.error?.replace(SKIPPED_PREFIX, '') ?? 'an upstream step failed';
      return { upstream: dep, message: `upstream step '${dep}' was skipped because ${root}` };
    }
  }
  return undefined;
}
