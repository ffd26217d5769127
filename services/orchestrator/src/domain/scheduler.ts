/**
 * Pure scheduling decisions: which nodes may start now, and whether the run is
 * over. Nodes start as soon as their dependencies are done, not level by level.
 */
import type { PlanGraph, PlanNode } from '@af/plan';
import { TERMINAL_NODE, type NodeState, type NodeStatus } from './run-state.js';

/** A dependency is satisfied once it finished in any way that lets the run go on. */
const SATISFIED: ReadonlySet<NodeStatus> = new Set(['completed', 'skipped', 'failed']);

/**
 * Nodes whose dependencies are all settled, that are still pending (or were
 * running when a previous owner died: they are replayed), excluding `inFlight`.
 */
export function readyNodes(plan: PlanGraph, states: ReadonlyMap<string, NodeState>, inFlight: ReadonlySet<string>): PlanNode[] {
  const ready: PlanNode[] = [];
  for (const node of plan.nodes) {
    if (inFlight.has(node.id)) continue;
    const state = states.get(node.id);
    if (state && state.status !== 'pending' && state.status !== 'running') continue;
    if (node.dependsOn.every((dep) => SATISFIED.has(states.get(dep)?.status ?? 'pending'))) ready.push(node);
  }
  return ready;
}

export type RunOutcome = { done: false } | { done: true; status: 'completed' | 'failed'; error?: string };

/**
 * The run is over when no node can make progress. It failed if a node failed
 * under an error policy of `stop` (the executor records that as `failed` and
 * marks the run), otherwise it completed.
 */
export function runOutcome(plan: PlanGraph, states: ReadonlyMap<string, NodeState>, fatal?: string): RunOutcome {
  if (fatal) return { done: true, status: 'failed', error: fatal };
  const allSettled = plan.nodes.every((n) => TERMINAL_NODE.has(states.get(n.id)?.status ?? 'pending'));
  return allSettled ? { done: true, status: 'completed' } : { done: false };
}

/** Back-off before retry `attempt` (1-based count of retries so far). */
export function backoffMs(attempt: number, policy: { backoffMs: number; multiplier: number; maxBackoffMs: number }): number {
  return Math.min(policy.maxBackoffMs, Math.round(policy.backoffMs * policy.multiplier ** Math.max(0, attempt - 1)));
}
