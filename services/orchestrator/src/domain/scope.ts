/**
 * The variables a node's `{…}` references see: run inputs (with the plan's
 * declared defaults), every finished node's output of its graph level under
 * its id and its outputKey, and — inside a map iteration — everything its map
 * node saw, plus `{current}` / `{index}` for the item.
 */
import type { PlanGraph, PlanNode } from '@af/plan';
import type { Scope } from '@af/expr';

export function runInputsWithDefaults(plan: PlanGraph, inputs: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...inputs };
  for (const input of plan.inputs) if (out[input.name] === undefined && input.default !== undefined) out[input.name] = input.default;
  return out;
}

/** What every top-level node sees before any output: the run inputs, also under the reserved root `input` (workflow_steps). */
export function runVars(plan: PlanGraph, inputs: Record<string, unknown>): Record<string, unknown> {
  const runInputs = runInputsWithDefaults(plan, inputs);
  return { input: runInputs, ...runInputs };
}

/**
 * The scope of one graph level: `base` (what the level inherits) plus the
 * outputs of its nodes, looked up by instance id (`id + suffix`).
 */
export function levelScope(
  nodes: readonly PlanNode[],
  suffix: string,
  base: Record<string, unknown>,
  output: (instanceId: string) => { value: unknown } | undefined,
  runId: string,
  loop?: { current: unknown; index: number },
): Scope {
  const vars: Record<string, unknown> = { ...base };
  for (const node of nodes) {
    const found = output(node.id + suffix);
    if (!found) continue;
    vars[node.id] = found.value;
    if (node.outputKey) vars[node.outputKey] = found.value;
  }
  return { vars, executionId: runId, ...(loop ? { current: loop.current, index: loop.index } : {}) };
}

/** `buildScope` of a top-level node: run inputs and the plan's finished outputs. */
export function buildScope(plan: PlanGraph, inputs: Record<string, unknown>, outputs: ReadonlyMap<string, unknown>, runId: string): Scope {
  return levelScope(plan.nodes, '', runVars(plan, inputs), (id) => (outputs.has(id) ? { value: outputs.get(id) } : undefined), runId);
}
