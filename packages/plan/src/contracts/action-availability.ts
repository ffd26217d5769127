/**
 * Which actions of a plan this deployment can run, decided before the run
 * starts: a tool node runs in the orchestrator itself (connector calls, data
 * transforms), or in the service that serves its action over ActionService.
 * An action that nothing serves is an `action_unavailable` violation naming
 * the node, the action and the service that owns it — never a run that is
 * certain to fail.
 */
import type { PlanNode } from '../ir.js';
import type { ActionIORegistry } from './action-registry.js';

/**
 * Tool actions the orchestrator runs itself; every other tool action goes
 * through ActionService. The monitor actions are here because the orchestrator
 * keeps the monitors' watermarks (detect_new_data reads its source through
 * connector-runtime).
 */
export const IN_PROCESS_TOOL_ACTIONS: readonly string[] = ['call_connector', 'transform_data', 'detect_new_data', 'get_monitor_watermark', 'set_monitor_watermark'];

/** The service that owns (serves, when deployed) the built-in actions of each registry category. */
export const CATEGORY_OWNERS: Readonly<Record<string, string>> = {
  connector: 'orchestrator',
  transform: 'orchestrator',
  llm: 'orchestrator',
  knowledge_graph: 'entity-resolution',
  search: 'entity-resolution',
  entity: 'entity-resolution',
  graph_analysis: 'entity-resolution',
  persistence: 'output-router',
  team: 'output-router',
  notification: 'output-router',
  task: 'output-router',
  file: 'output-router',
  monitor: 'orchestrator',
  journal: 'planner',
};

/**
 * Actions whose data lives elsewhere than their category's: the web is
 * reached by connector-runtime; new entities are found where the knowledge
 * graph is, new files, folder changes and team posts where the workspace is.
 */
const ACTION_OWNERS: Readonly<Record<string, string>> = {
  search_web: 'connector-runtime',
  crawl_url: 'connector-runtime',
  detect_new_entities: 'entity-resolution',
  // Files, folders and team posts are the output router's workspace.
  detect_new_files: 'output-router',
  detect_folder_changes: 'output-router',
  detect_new_team_posts: 'output-router',
  // The document index (vectors, BM25) lives in entity-resolution; output-router only stores the files.
  find_file_by_vectors: 'entity-resolution',
};

/** The service that owns `action` (`plugin:<name>` tools: connector-runtime), or undefined when the registry does not know it. */
export function actionOwner(action: string, registry: ActionIORegistry): string | undefined {
  if (ACTION_OWNERS[action]) return ACTION_OWNERS[action];
  const category = registry.get(action)?.category;
  if (category === undefined) return undefined;
  if (category.startsWith('plugin:')) return 'connector-runtime';
  return CATEGORY_OWNERS[category];
}

/** One tool call a plan will make: where it is, what it names, and the name it is served under. */
export interface PlannedAction {
  /** The field a violation names: `<source>.action` (e.g. `steps[2].action`) or `nodes.<id>.action`. */
  field: string;
  nodeId: string;
  /** The action as the document names it. */
  action: string;
  /** The plugin the node names (`params.plugin`), if any. */
  plugin?: string;
  /** The ActionService name (`plugin:<plugin>.<action>` for plugin tools). */
  served: string;
}

export interface ActionViolation {
  field: string;
  reason: string;
  code: 'action_unavailable';
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Every tool action a plan names: its nodes, map bodies, inline subflow plans and rollback actions. */
export function plannedActions(plan: { nodes?: readonly PlanNode[] } | unknown, prefix = 'nodes', bySource = true): PlannedAction[] {
  const out: PlannedAction[] = [];
  const nodes = isRecord(plan) && Array.isArray(plan.nodes) ? (plan.nodes as unknown[]) : [];
  for (const raw of nodes) {
    if (!isRecord(raw)) continue;
    const id = String(raw.id ?? '');
    const at = bySource && typeof raw.source === 'string' && raw.source && prefix === 'nodes' ? raw.source : `${prefix}.${id}`;
    const params = isRecord(raw.params) ? raw.params : {};
    if ((raw.kind ?? 'tool') === 'tool' && typeof raw.action === 'string' && raw.action) {
      out.push(planned(`${at}.action`, id, raw.action, params.plugin));
    }
    const rollback = isRecord(raw.errorPolicy) && isRecord(raw.errorPolicy.rollback) ? raw.errorPolicy.rollback : undefined;
    if (rollback && (rollback.kind ?? 'tool') === 'tool' && typeof rollback.action === 'string' && rollback.action) {
      out.push(planned(`${at}.errorPolicy.rollback.action`, id, rollback.action, rollback.plugin ?? (isRecord(rollback.params) ? rollback.params.plugin : undefined)));
    }
    if (isRecord(raw.body)) out.push(...plannedActions(raw.body, `${prefix}.${id}.body.nodes`, bySource));
    if (isRecord(params.plan)) out.push(...plannedActions(params.plan, `${prefix}.${id}.params.plan.nodes`, bySource));
  }
  return out;
}

function planned(field: string, nodeId: string, action: string, plugin: unknown): PlannedAction {
  if (typeof plugin === 'string' && plugin) return { field, nodeId, action, plugin, served: `plugin:${plugin}.${action}` };
  return { field, nodeId, action, served: action };
}

/** The served names a plan needs from ActionService (the in-process actions left out). */
export function servedActionNames(plan: unknown): string[] {
  return [...new Set(plannedActions(plan).filter((a) => !runsInProcess(a)).map((a) => a.served))];
}

const runsInProcess = (a: PlannedAction): boolean => !a.plugin && IN_PROCESS_TOOL_ACTIONS.includes(a.action);

/**
 * The `action_unavailable` violations of a plan: tool actions neither run by
 * the orchestrator itself nor served (`isServed(servedName)`) by a service
 * of this deployment. Each names the field, the action and its owner. Fields
 * name a node's source step (`steps[2].action`) when it has one, unless
 * `bySource` is false (then always `nodes.<id>.action`).
 */
export function unavailableActions(plan: unknown, isServed: (served: string) => boolean, registry: ActionIORegistry, bySource = true): ActionViolation[] {
  const out: ActionViolation[] = [];
  for (const a of plannedActions(plan, 'nodes', bySource)) {
    if (runsInProcess(a)) continue;
    if (isServed(a.served)) continue;
    out.push({ field: a.field, reason: unavailableReason(a, registry), code: 'action_unavailable' });
  }
  return out;
}

function unavailableReason(a: PlannedAction, registry: ActionIORegistry): string {
  if (a.plugin) {
    return `action '${a.action}' of plugin '${a.plugin}' is not available in this deployment: no registered plugin '${a.plugin}' has a tool '${a.action}' (plugin tools are served by connector-runtime, which must be in ACTION_SERVICES)`;
  }
  const owner = actionOwner(a.action, registry);
  if (!owner) return `action '${a.action}' is not available in this deployment: no service of ACTION_SERVICES serves it and it is not a built-in action`;
  return `action '${a.action}' is not available in this deployment: it is served by ${owner}, which is not among the services this deployment is configured with (ACTION_SERVICES)`;
}
