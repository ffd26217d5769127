/**
 * How large a plan may be. Validation, compilation and execution all grow
 * with the number of nodes (a 12,000-step playbook under the 1 MiB body cap
 * once took 90 s and 3.6 GB), so every front-end counts first — right after
 * YAML/JSON parsing, before any schema or link check — and refuses a
 * document over the cap with one issue naming the field and the limit.
 *
 * Counting is iterative (no recursion on user-controlled depth) and linear
 * in the document, which the body / YAML size caps already bound.
 */
import type { PlanIssue } from '../issues/plan-issue.js';

/** Default cap on nodes per plan (map bodies and inline subflow plans included). */
export const DEFAULT_PLAN_MAX_NODES = 1_000;

let maxNodes = DEFAULT_PLAN_MAX_NODES;

/** Set the process-wide cap (a service calls this once from its configuration, e.g. PLAN_MAX_NODES). */
export function configurePlanLimits(limits: { maxNodes: number }): void {
  if (!Number.isInteger(limits.maxNodes) || limits.maxNodes < 1) {
    throw new RangeError(`maxNodes must be a positive integer, got ${limits.maxNodes}`);
  }
  maxNodes = limits.maxNodes;
}

/** The cap in force. */
export function planMaxNodes(): number {
  return maxNodes;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Items of the arrays at `listKeys` in `root`, and of the same arrays inside
 * every item, recursively (without recursion); stops once past `stopAfter`.
 * `nested(item)` yields further containers inside an item whose lists count too.
 */
function countNested(
  roots: readonly unknown[],
  listKeys: readonly string[],
  stopAfter: number,
  nested: (item: Record<string, unknown>) => unknown[] = () => [],
): number {
  let count = 0;
  const stack: unknown[] = [...roots];
  while (stack.length > 0) {
    const container = stack.pop();
    if (!isRecord(container)) continue;
    for (const key of listKeys) {
      const list = container[key];
      if (!Array.isArray(list)) continue;
      count += list.length;
      if (count > stopAfter) return count;
      for (const item of list) {
        if (!isRecord(item)) continue;
        stack.push(item);
        for (const inner of nested(item)) stack.push(inner);
      }
    }
  }
  return count;
}

/** Nodes of a plan as given (unparsed): its nodes, map bodies' nodes and inline subflow plans' nodes. */
export function countPlanNodes(plan: unknown, stopAfter = Infinity): number {
  return countNested([plan], ['nodes'], stopAfter, (node) => {
    const out: unknown[] = [];
    if (isRecord(node.body)) out.push(node.body);
    if (isRecord(node.params) && isRecord(node.params.plan)) out.push(node.params.plan);
    return out;
  });
}

/**
 * Steps of a playbook document as parsed (unvalidated), counted as the nodes
 * they become: a step is one, a parallel step is its `parallel_steps` (the
 * group itself runs nothing, and sub-steps do not nest).
 */
export function countPlaybookSteps(doc: unknown): number {
  const steps = isRecord(doc) ? doc.steps : undefined;
  if (!Array.isArray(steps)) return 0;
  let count = 0;
  for (const step of steps) {
    const sub = isRecord(step) ? step.parallel_steps : undefined;
    count += Array.isArray(sub) ? sub.length : 1;
  }
  return count;
}

/** Steps of `workflow_steps` (an array or an agent row): nested `steps`, `loopSteps` and `fallbackSteps` count too. */
export function countWorkflowSteps(json: unknown, stopAfter = Infinity): number {
  const root = Array.isArray(json) ? { workflow_steps: json } : json;
  return countNested([root], ['workflow_steps', 'steps', 'loopSteps', 'fallbackSteps'], stopAfter);
}

/** The one issue for a document over the cap: code `too_many_nodes`, naming `field` and the limit. */
export function tooManyNodesIssue(field: string, what: string, count: number, limit: number): PlanIssue {
  return {
    code: 'too_many_nodes',
    field,
    message: `${count} ${what}; the limit is ${limit} (PLAN_MAX_NODES)`,
  };
}

/** `too_many_nodes` when `plan` (unparsed) holds more than `limit` nodes. */
export function planSizeIssue(plan: unknown, limit = maxNodes): PlanIssue | undefined {
  const n = countPlanNodes(plan);
  return n > limit ? tooManyNodesIssue('nodes', 'nodes (map bodies and inline subflow plans included)', n, limit) : undefined;
}

/** `too_many_nodes` when a parsed playbook document holds more than `limit` steps. */
export function playbookSizeIssue(doc: unknown, limit = maxNodes): PlanIssue | undefined {
  const n = countPlaybookSteps(doc);
  return n > limit ? tooManyNodesIssue('steps', 'steps (parallel_steps included)', n, limit) : undefined;
}

/** `too_many_nodes` when `workflow_steps` hold more than `limit` steps. */
export function workflowSizeIssue(json: unknown, limit = maxNodes): PlanIssue | undefined {
  const n = countWorkflowSteps(json);
  const field = Array.isArray(json) ? 'steps' : 'workflow_steps';
  return n > limit ? tooManyNodesIssue(field, 'steps (loop, parallel and fallback steps included)', n, limit) : undefined;
}

/** `too_many_nodes` when a master plan (`{execution_plan: [...] | {agents: [...]}}`) has more than `limit` agents. */
export function masterPlanSizeIssue(doc: unknown, limit = maxNodes): PlanIssue | undefined {
  const plan = isRecord(doc) ? doc.execution_plan : undefined;
  const agents = Array.isArray(plan) ? plan : isRecord(plan) && Array.isArray(plan.agents) ? plan.agents : [];
  const field = Array.isArray(plan) ? 'execution_plan' : 'execution_plan.agents';
  return agents.length > limit ? tooManyNodesIssue(field, 'agents', agents.length, limit) : undefined;
}
