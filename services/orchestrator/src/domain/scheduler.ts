/**
 * Pure scheduling decisions: which nodes may start now, and whether the run is
 * over. Nodes start as soon as their dependencies are done, not level by level.
 */
import type { PlanNode } from '@af/plan';
import { TERMINAL_NODE, type NodeState, type NodeStatus } from './run-state.js';

/** A graph the scheduler looks at: a plan, or a map node's body. */
export interface Graph {
  nodes: readonly PlanNode[];
}

/** Node states by node id (a Map, or a view of one map iteration's instances). */
export interface StateLookup {
  get(nodeId: string): NodeState | undefined;
}

export interface OutputLookup {
  get(nodeId: string): unknown;
}

/** A dependency is satisfied once it finished in any way that lets the run go on. */
const SATISFIED: ReadonlySet<NodeStatus> = new Set(['completed', 'skipped', 'failed']);

/** primary node id → the ids of its fallback nodes (errorPolicy.fallback and fallbackFor). */
export function fallbacksOf(plan: Graph): Map<string, string[]> {
  const map = new Map<string, string[]>();
  const add = (primary: string, fb: string) => {
    const list = map.get(primary) ?? [];
    if (!list.includes(fb)) list.push(fb);
    map.set(primary, list);
  };
  for (const node of plan.nodes) {
    for (const fb of node.errorPolicy?.fallback ?? []) add(node.id, fb);
    if (node.fallbackFor) add(node.fallbackFor, node.id);
  }
  return map;
}

/**
 * How many of `plan.nodes`, from the front, are terminal, starting the count
 * at `from` (a count made earlier: a terminal node never changes back). The
 * scans below start there: they skip the finished front of the level and look
 * only at the nodes after it.
 */
export function terminalPrefix(plan: Graph, states: StateLookup, from = 0): number {
  let i = from;
  while (i < plan.nodes.length && TERMINAL_NODE.has(states.get(plan.nodes[i]!.id)?.status ?? 'pending')) i++;
  return i;
}

/**
 * Nodes whose dependencies are all settled, that are still pending (or were
 * running when a previous owner died: they are replayed), excluding `inFlight`.
 * A fallback node is ready only once its primary failed; a dependency with
 * fallbacks is settled only once it completed or its fallbacks settled.
 * `from`: the nodes before it are terminal (terminalPrefix) and not looked at.
 */
export function readyNodes(
  plan: Graph,
  states: StateLookup,
  inFlight: ReadonlySet<string>,
  fallbacks: ReadonlyMap<string, string[]> = fallbacksOf(plan),
  from = 0,
): PlanNode[] {
  const status = (id: string) => states.get(id)?.status ?? 'pending';
  const settled = (id: string): boolean => {
    if (!SATISFIED.has(status(id))) return false;
    if (status(id) !== 'failed') return true;
    return (fallbacks.get(id) ?? []).every((fb) => TERMINAL_NODE.has(status(fb)));
  };
  const ready: PlanNode[] = [];
  for (let i = from; i < plan.nodes.length; i++) {
    const node = plan.nodes[i]!;
    if (inFlight.has(node.id)) continue;
    const s = status(node.id);
    if (s !== 'pending' && s !== 'running') continue;
    if (node.fallbackFor && status(node.fallbackFor) !== 'failed') continue;
    if (node.dependsOn.every(settled)) ready.push(node);
  }
  return ready;
}

/** Fallback nodes not needed because their primary completed (or was skipped). */
export function unneededFallbacks(_plan: Graph, states: StateLookup, fallbacks: ReadonlyMap<string, string[]>): string[] {
  const out: string[] = [];
  for (const [primary, fbs] of fallbacks) {
    const s = states.get(primary)?.status;
    if (s !== 'completed' && s !== 'skipped' && s !== 'cancelled') continue;
    for (const fb of fbs) if ((states.get(fb)?.status ?? 'pending') === 'pending') out.push(fb);
  }
  return out;
}

export type RunOutcome = { done: false } | { done: true; status: 'completed' | 'failed'; error?: string };

/**
 * The run is over when no node can make progress. It failed if a node failed
 * under an error policy of `stop` (the executor records that as `failed` and
 * marks the run), otherwise it completed. `from` as for readyNodes.
 */
export function runOutcome(plan: Graph, states: StateLookup, fatal?: string, from = 0): RunOutcome {
  if (fatal) return { done: true, status: 'failed', error: fatal };
  return terminalPrefix(plan, states, from) === plan.nodes.length ? { done: true, status: 'completed' } : { done: false };
}

/** Back-off before retry `attempt` (1-based count of retries so far). */
export function backoffMs(attempt: number, policy: { backoffMs: number; multiplier: number; maxBackoffMs: number }): number {
  return Math.min(policy.maxBackoffMs, Math.round(policy.backoffMs * policy.multiplier ** Math.max(0, attempt - 1)));
}

export const ROUTE_NOT_TAKEN = 'route_not_taken';

/**
 * Pending nodes to skip because a decided `route` did not take them: the
 * untaken targets, then — transitively — nodes all of whose dependencies were
 * skipped that way (a join with one taken branch still runs).
 */
export function routeSkips(plan: Graph, states: StateLookup, outputs: OutputLookup): string[] {
  const status = (id: string) => states.get(id)?.status ?? 'pending';
  const skip = new Set<string>();
  for (const node of plan.nodes) {
    if (node.kind !== 'route' || status(node.id) !== 'completed') continue;
    const taken = new Set(((outputs.get(node.id) as { taken?: unknown } | undefined)?.taken as string[] | undefined) ?? []);
    for (const target of [...(node.routes ?? []).flatMap((r) => r.to), ...(node.elseTo ?? [])]) {
      if (!taken.has(target) && status(target) === 'pending') skip.add(target);
    }
  }
  const skippedByRoute = (id: string) => skip.has(id) || (status(id) === 'skipped' && states.get(id)?.skipReason === ROUTE_NOT_TAKEN);
  for (let changed = true; changed; ) {
    changed = false;
    for (const node of plan.nodes) {
      if (status(node.id) !== 'pending' || skip.has(node.id) || node.dependsOn.length === 0) continue;
      if (node.dependsOn.every(skippedByRoute)) {
        skip.add(node.id);
        changed = true;
      }
    }
  }
  return plan.nodes.map((n) => n.id).filter((id) => skip.has(id));
}
