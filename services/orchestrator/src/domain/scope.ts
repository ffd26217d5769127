/**
 * The variables a node's `{…}` references see: run inputs (with the plan's
 * declared defaults) and every finished node's output under its id and its
 * outputKey.
 */
import type { PlanGraph } from '@af/plan';
import type { Scope } from '@af/expr';

export function runInputsWithDefaults(plan: PlanGraph, inputs: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...inputs };
  for (const input of plan.inputs) if (out[input.name] === undefined && input.default !== undefined) out[input.name] = input.default;
  return out;
}

export function buildScope(
  plan: PlanGraph,
  inputs: Record<string, unknown>,
  outputs: ReadonlyMap<string, unknown>,
  runId: string,
): Scope {
  const runInputs = runInputsWithDefaults(plan, inputs);
  // `input` is the reserved root workflow_steps use for the run's inputs.
  const vars: Record<string, unknown> = { input: runInputs, ...runInputs };
  for (const node of plan.nodes) {
    if (!outputs.has(node.id)) continue;
    const value = outputs.get(node.id);
    vars[node.id] = value;
    if (node.outputKey) vars[node.outputKey] = value;
  }
  return { vars, executionId: runId };
}
