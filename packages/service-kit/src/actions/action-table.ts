/**
 * Which service of this deployment serves which action: built from the
 * ListActions answers of the services a process is configured with
 * (ACTION_SERVICES). The orchestrator routes tool nodes by it; the planner
 * refuses, up front, playbooks naming an action it does not hold. Control flow
 * and pure transforms never appear here; they run in the orchestrator.
 */
export interface ActionServiceEntry {
  /** The configured name (`output-router=…`), used until the service first answers. */
  name: string;
  address: string;
}

export interface ServedAction {
  action: string;
  /** The name the service gives itself in ListActions. */
  service: string;
  address: string;
  version: string;
  sideEffects: boolean;
  /** The action's I/O contract when the service describes it (plugin tools do): category, description, inputs, params, outputs. */
  contract?: Record<string, unknown>;
}

export interface ListedAction {
  name: string;
  version: string;
  sideEffects: boolean;
  contract?: Record<string, unknown>;
}

export interface ListedActions {
  entry: ActionServiceEntry;
  service: string;
  actions: ListedAction[];
}

/** The ActionService name prefix of plugin tools: `plugin:<plugin>.<tool>`. */
export const PLUGIN_ACTION_PREFIX = 'plugin:';

/** The ActionService name of tool `tool` of plugin `plugin`. */
export function pluginActionName(plugin: string, tool: string): string {
  return `${PLUGIN_ACTION_PREFIX}${plugin}.${tool}`;
}

/** The plugin and tool of a plugin action name, or undefined for any other name. */
export function parsePluginActionName(name: string): { plugin: string; tool: string } | undefined {
  if (!name.startsWith(PLUGIN_ACTION_PREFIX)) return undefined;
  const rest = name.slice(PLUGIN_ACTION_PREFIX.length);
  // Plugin names may contain dots (`orchestrator.tools.web`); tool names never do.
  const dot = rest.lastIndexOf('.');
  if (dot < 1 || dot === rest.length - 1) return undefined;
  return { plugin: rest.slice(0, dot), tool: rest.slice(dot + 1) };
}

/**
 * The routing rule: the ActionService name a tool node is served under. A
 * node whose params name a plugin (`params.plugin`, as `{plugin, action}`
 * workflow steps and playbook steps naming a plugin tool compile to) runs
 * `plugin:<plugin>.<action>`; any other node runs its action by name.
 */
export function servedActionName(node: { action?: string | undefined; params?: Record<string, unknown> | undefined }): string {
  const plugin = node.params?.plugin;
  const action = node.action ?? '';
  return typeof plugin === 'string' && plugin !== '' ? pluginActionName(plugin, action) : action;
}

export interface ActionTable {
  byAction: ReadonlyMap<string, ServedAction>;
  /** Actions more than one service offers: the first configured service serves them. */
  conflicts: Array<{ action: string; services: string[] }>;
}

/** The table from the services that answered, in configuration order (the first one listed wins a conflict). */
export function buildActionTable(listed: ListedActions[]): ActionTable {
  const byAction = new Map<string, ServedAction>();
  const offered = new Map<string, string[]>();
  for (const l of listed) {
    for (const a of l.actions) {
      offered.set(a.name, [...(offered.get(a.name) ?? []), l.service]);
      if (byAction.has(a.name)) continue;
      byAction.set(a.name, { action: a.name, service: l.service, address: l.entry.address, version: a.version, sideEffects: a.sideEffects, ...(a.contract ? { contract: a.contract } : {}) });
    }
  }
  const conflicts = [...offered].filter(([, s]) => s.length > 1).map(([action, services]) => ({ action, services }));
  return { byAction, conflicts };
}

const NAME = /^[a-z][a-z0-9-]{0,62}$/;
const ADDRESS = /^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:.]+\]:\d{1,5}$/;

/**
 * Parses ACTION_SERVICES: comma-separated `name=host:port` entries, e.g.
 * `output-router=127.0.0.1:50056,entity-resolution=127.0.0.1:50057`.
 * Returns the entries or the problems, each naming the entry.
 */
export function parseActionServices(text: string): { entries: ActionServiceEntry[]; errors: string[] } {
  const entries: ActionServiceEntry[] = [];
  const errors: string[] = [];
  for (const [i, raw] of text.split(',').entries()) {
    const entry = raw.trim();
    if (!entry) continue;
    const eq = entry.indexOf('=');
    const name = entry.slice(0, eq).trim();
    const address = entry.slice(eq + 1).trim();
    if (eq < 1 || !NAME.test(name) || !ADDRESS.test(address) || Number(address.slice(address.lastIndexOf(':') + 1)) > 65535) {
      errors.push(`entry ${i + 1} '${entry}' must be <service-name>=<host>:<port>, e.g. output-router=127.0.0.1:50056`);
      continue;
    }
    if (entries.some((e) => e.name === name)) errors.push(`service '${name}' is listed twice`);
    else entries.push({ name, address });
  }
  return { entries, errors };
}
