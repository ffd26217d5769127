/**
 * Dry runs (`POST /playbooks/{id}/test`): the plan carries
 * `metadata.dry_run = {allow_side_effects}`. Unless side effects are allowed,
 * a node that would act outside the run is not executed: it is skipped with
 * reason `dry_run` and its would-be inputs are recorded on its
 * `node_complete` frame. What acts outside the run: a `tool` node whose
 * action the Action I/O registry marks side-effecting, or that the registry
 * does not know (a plugin action), and a `subflow` (its child run would not
 * be dry). Connector calls (`call_connector`, and the connector tools of
 * llm nodes) go to connector-runtime marked read-only: an endpoint that may
 * write (rest_api methods other than GET / HEAD, GraphQL mutations,
 * existing_tool plugin calls) is refused there before any request goes out,
 * and the node is skipped `dry_run` the same way (an llm node's tool call
 * gets the refusal as its answer). Transforms, llm, approval, route, map and
 * delay nodes run as usual.
 */
import { defaultActionRegistry, type PlanGraph, type PlanNode } from '@af/plan';

export const DRY_RUN = 'dry_run';

/** Run in-process; never act outside the run. */
const IN_PROCESS = new Set(['call_connector', 'transform_data']);

const registry = defaultActionRegistry();

/** Whether the plan is a dry run that refuses side effects. */
export function refusesSideEffects(plan: Pick<PlanGraph, 'metadata'>): boolean {
  const dry = plan.metadata?.dry_run;
  if (dry === true) return true;
  if (!dry || typeof dry !== 'object' || Array.isArray(dry)) return false;
  return (dry as Record<string, unknown>).allow_side_effects !== true;
}

/** Whether a dry run that refuses side effects must skip `node`. */
export function actsOutsideRun(node: Pick<PlanNode, 'kind' | 'action'>): boolean {
  if (node.kind === 'subflow') return true;
  if (node.kind !== 'tool') return false;
  const action = node.action ?? '';
  if (IN_PROCESS.has(action)) return false;
  const contract = registry.get(action);
  return !contract || contract.sideEffect === true || contract.category.startsWith('plugin:');
}

/** The would-be inputs for the frame, cut to a summary past `maxBytes` of JSON. */
export function wouldBeInputs(inputs: unknown, maxBytes = 16 * 1024): Record<string, unknown> {
  const text = JSON.stringify(inputs ?? {});
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return { would_be_inputs: inputs ?? {} };
  const keys = inputs && typeof inputs === 'object' ? Object.keys(inputs) : [];
  return { would_be_inputs_truncated: true, would_be_input_keys: keys, would_be_inputs_bytes: Buffer.byteLength(text, 'utf8') };
}
