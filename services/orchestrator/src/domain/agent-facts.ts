/**
 * What an agent run did, for its execution log: the connector endpoints its
 * steps called, how many entities its steps reported, and the outputs it
 * produced. Read from the plan, the node states and the node outputs when the
 * run finishes; pure.
 *
 * - a `call_connector` node that ran (completed or failed) is one call:
 *   `{connector, endpoint, node_id, status, results_count?}` — results_count
 *   is the length of the first array among `results`, `items`, `records`,
 *   `data` of its output;
 * - entities: the lengths of `entities` / `new_entities` / `resolved` arrays
 *   (or a numeric `entities_created` / `new_entity_count`) in completed
 *   outputs, summed;
 * - outputs: completed nodes whose action delivers something
 *   (OUTPUT_ACTIONS) as `{type: <action>, node_id, …ids}`, ids being the
 *   string fields of its output whose name ends in `id` / `_path` / `url`.
 */
import type { PlanNode } from '@af/plan';
import type { NodeState } from './run-state.js';

export interface ConnectorCall {
  connector: string;
  endpoint: string;
  node_id: string;
  status: 'completed' | 'failed';
  results_count?: number;
}

export interface AgentFacts {
  connectorsCalled: ConnectorCall[];
  entitiesDiscovered: number;
  outputsProduced: Array<Record<string, unknown>>;
}

export const OUTPUT_ACTIONS: ReadonlySet<string> = new Set([
  'save_to_workspace',
  'send_notification',
  'write_team_post',
  'create_todo',
  'export_file',
  'append_to_document',
  'write_file',
  'send_webhook',
  'write_journal_entry',
]);

const RESULT_ARRAYS = ['results', 'items', 'records', 'data'];
const ENTITY_ARRAYS = ['entities', 'new_entities', 'resolved'];
const ENTITY_COUNTS = ['entities_created', 'new_entity_count'];
const ID_FIELD = /(^id$|_id$|_path$|^path$|url$)/;

const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

export function agentFacts(nodes: readonly PlanNode[], states: ReadonlyMap<string, Pick<NodeState, 'status'>>, outputOf: (node: PlanNode) => unknown): AgentFacts {
  const connectorsCalled: ConnectorCall[] = [];
  const outputsProduced: Array<Record<string, unknown>> = [];
  let entitiesDiscovered = 0;
  for (const node of nodes) {
    const status = states.get(node.id)?.status;
    if (status !== 'completed' && status !== 'failed') continue;
    const out = status === 'completed' ? obj(outputOf(node)) : undefined;
    if (node.kind === 'tool' && node.action === 'call_connector') {
      const count = out ? RESULT_ARRAYS.map((k) => out[k]).find(Array.isArray) : undefined;
      connectorsCalled.push({
        connector: String(node.params.connector ?? ''),
        endpoint: String(node.params.endpoint ?? ''),
        node_id: node.id,
        status,
        ...(Array.isArray(count) ? { results_count: count.length } : {}),
      });
    }
    if (!out) continue;
    for (const k of ENTITY_ARRAYS) if (Array.isArray(out[k])) entitiesDiscovered += (out[k] as unknown[]).length;
    for (const k of ENTITY_COUNTS) if (typeof out[k] === 'number' && Number.isFinite(out[k])) entitiesDiscovered += Math.max(0, Math.trunc(out[k] as number));
    if (node.action && OUTPUT_ACTIONS.has(node.action)) {
      const ids = Object.fromEntries(Object.entries(out).filter(([k, v]) => ID_FIELD.test(k) && typeof v === 'string'));
      outputsProduced.push({ type: node.action, node_id: node.id, ...ids });
    }
  }
  return { connectorsCalled, entitiesDiscovered, outputsProduced };
}

/**
 * What an agent run's `complete` frame says about the agent (the planner
 * writes the journal entry of any agent run from it, whoever started the
 * run); empty for runs that are not an agent's.
 */
export function agentFramePayload(agent: { profileId: string; invokedBy: string; teamId: string | null } | null | undefined): Record<string, string> {
  if (!agent) return {};
  return { agent_profile_id: agent.profileId, invoked_by: agent.invokedBy, ...(agent.teamId ? { team_id: agent.teamId } : {}) };
}
