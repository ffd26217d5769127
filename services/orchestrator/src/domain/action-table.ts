/**
 * Which service of this deployment serves which built-in action: built from
 * the ListActions answers of the services the orchestrator is configured
 * with (ACTION_SERVICES). Control flow and pure transforms never appear here;
 * they run in-process.
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
}

export interface ListedActions {
  entry: ActionServiceEntry;
  service: string;
  actions: Array<{ name: string; version: string; sideEffects: boolean }>;
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
      byAction.set(a.name, { action: a.name, service: l.service, address: l.entry.address, version: a.version, sideEffects: a.sideEffects });
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
