/**
 * Rollback (workflow seed "Rollback Support"): when a node whose error policy
 * has `rollbackOnError` fails, the `errorPolicy.rollback` actions of the nodes
 * that completed are run in reverse order of completion, each once, then the
 * run fails. Pure: which nodes, in which order, run as what.
 *
 * A rollback action is one of
 *   { connector, endpoint, inputs? | params? }      a connector call (call_connector)
 *   { plugin, action, params? }                     the workflow_steps form (params are the wired values)
 *   { action, kind?, params?, inputs? }             any node action (kind defaults to tool)
 * and its `{…}` references see what the node saw plus the node's own output.
 */
import type { PlanNode } from '@af/plan';

export interface RollbackState {
  /** Instance id of the node whose failure started the rollback. */
  failedNodeId: string;
  error: string;
  /** Instance ids to roll back, in the order they are rolled back. */
  order: string[];
}

/** Completed instances with a rollback action, latest completion first. `completions` maps instance id → seq of its node_complete. */
export function rollbackOrder(completions: ReadonlyMap<string, number>, hasRollback: (instanceId: string) => boolean): string[] {
  return [...completions.entries()]
    .filter(([id]) => hasRollback(id))
    .sort((a, b) => b[1] - a[1])
    .map(([id]) => id);
}

/** What problems `rollback` has as an action (empty = runnable). */
export function rollbackProblems(rollback: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const str = (k: string) => typeof rollback[k] === 'string' && (rollback[k] as string).length > 0;
  const obj = (k: string) => rollback[k] === undefined || (typeof rollback[k] === 'object' && rollback[k] !== null && !Array.isArray(rollback[k]));
  if (rollback.connector !== undefined || rollback.endpoint !== undefined) {
    if (!str('connector')) problems.push('connector must be a non-empty string');
    if (!str('endpoint')) problems.push('endpoint must be a non-empty string');
  } else if (!str('action')) {
    problems.push('needs an action (or connector and endpoint)');
  }
  if (!obj('params')) problems.push('params must be an object');
  if (!obj('inputs')) problems.push('inputs must be an object');
  return problems;
}

/** The node a rollback action runs as; throws when the action is malformed. */
export function rollbackNode(node: PlanNode, rollback: Record<string, unknown>): PlanNode {
  const problems = rollbackProblems(rollback);
  if (problems.length) throw new Error(`errorPolicy.rollback of ${node.id}: ${problems.join('; ')}`);
  const params = (rollback.params as Record<string, unknown> | undefined) ?? {};
  const inputs = (rollback.inputs as Record<string, unknown> | undefined) ?? undefined;
  const base = { id: `${node.id}.rollback`, dependsOn: [] as string[], ...(node.source ? { source: `${node.source}.rollback` } : {}) };
  if (rollback.connector !== undefined) {
    return { ...base, kind: 'tool', action: 'call_connector', params: { connector: rollback.connector, endpoint: rollback.endpoint }, inputs: inputs ?? params } as PlanNode;
  }
  if (typeof rollback.plugin === 'string') {
    return { ...base, kind: 'tool', action: rollback.action as string, params: { plugin: rollback.plugin }, inputs: inputs ?? params } as PlanNode;
  }
  const kind = typeof rollback.kind === 'string' ? rollback.kind : 'tool';
  return { ...base, kind, action: rollback.action as string, params, inputs: inputs ?? {} } as PlanNode;
}
