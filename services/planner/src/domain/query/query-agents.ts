/**
 * The agents a master plan may name and what each becomes in the Plan IR.
 * The master-plan compiler makes every agent a `capability` node; the agents
 * of this catalogue are served by the deployment itself, so each is realised
 * as the node kind that runs it:
 *
 * - `rag_agent`: the `search_documents` action (the caller's own documents,
 *   hybrid retrieval with sources);
 * - `web_agent`: the `search_web` action (offered only when a service serves it);
 * - `mail_agent`: `research_with_tools` over the caller's connector endpoints
 *   (`<connector>__<endpoint>`); an endpoint that is not a GET needs the
 *   user's approval, so the agent is gated (a denial is the agent's output);
 * - `summary_agent`: `llm_analyze` over its dependencies' outputs.
 */
import type { PlanIssue } from '@af/plan';

export type QueryAgentName = 'rag_agent' | 'web_agent' | 'mail_agent' | 'summary_agent';

export interface QueryAgent {
  name: QueryAgentName;
  description: string;
  /** The action that runs it (research_with_tools / llm_analyze are llm nodes). */
  action: string;
}

export const QUERY_AGENTS: readonly QueryAgent[] = [
  { name: 'rag_agent', action: 'search_documents', description: "Searches the user's own uploaded documents (dense + BM25 retrieval); returns chunks with file, page and section sources." },
  { name: 'web_agent', action: 'search_web', description: 'Searches the web; returns results with titles and URLs.' },
  { name: 'mail_agent', action: 'research_with_tools', description: "Reads and sends the user's mail through the user's connected connector endpoints (tools); sending needs the user's approval." },
  { name: 'summary_agent', action: 'llm_analyze', description: "Summarises the outputs of the agents it depends on." },
];

/** One connector endpoint the mail agent may use, as `<connector>__<endpoint>`. */
export interface ConnectorTool {
  name: string;
  method: string;
  description: string;
}

/** Agents this deployment can run now: web_agent only when `search_web` is served, mail_agent only with connector tools. */
export function availableAgents(served: (action: string) => boolean, tools: readonly ConnectorTool[]): QueryAgent[] {
  return QUERY_AGENTS.filter((a) => {
    if (a.name === 'web_agent') return served('search_web');
    if (a.name === 'rag_agent') return served('search_documents');
    if (a.name === 'mail_agent') return tools.length > 0;
    return true;
  });
}

/** A tool needs approval unless it only reads (GET). */
export const needsApproval = (t: ConnectorTool) => t.method.toUpperCase() !== 'GET';

interface RawAgent {
  agent_id?: unknown;
  agent_name?: unknown;
  tools?: unknown;
  hitl_tools?: unknown;
  requires_approval?: unknown;
}

/**
 * Checks the model's agents against the catalogue before compiling, and
 * marks the mail agent's writing tools as HITL tools (the model cannot opt
 * out of an approval). Issues name `execution_plan[i].<field>`.
 */
export function prepareAgents(agents: readonly RawAgent[], available: readonly QueryAgent[], tools: readonly ConnectorTool[]): { agents: Record<string, unknown>[]; issues: PlanIssue[] } {
  const names = new Set(available.map((a) => a.name));
  const byTool = new Map(tools.map((t) => [t.name, t]));
  const issues: PlanIssue[] = [];
  const out = agents.map((raw, i) => {
    const a = { ...(raw as Record<string, unknown>) };
    const at = `execution_plan[${i}]`;
    const name = String(a.agent_name ?? '');
    if (!names.has(name as QueryAgentName)) {
      issues.push({ code: 'unknown_agent', field: `${at}.agent_name`, message: `${at}.agent_name: '${name}' is not an agent of this deployment (available: ${[...names].join(', ')})` });
      return a;
    }
    const listed = Array.isArray(a.tools) ? a.tools.filter((t): t is string => typeof t === 'string') : [];
    if (name === 'mail_agent') {
      const chosen = listed.length ? listed : tools.map((t) => t.name);
      chosen.forEach((t, j) => {
        if (!byTool.has(t)) issues.push({ code: 'unknown_tool', field: `${at}.tools[${j}]`, message: `${at}.tools[${j}]: '${t}' is not one of the user's connector endpoints (${tools.map((x) => x.name).join(', ') || 'none'})` });
      });
      const hitl = new Set([...(Array.isArray(a.hitl_tools) ? a.hitl_tools.filter((t): t is string => typeof t === 'string') : []), ...chosen.filter((t) => byTool.get(t) && needsApproval(byTool.get(t)!))]);
      a.tools = chosen;
      a.hitl_tools = [...hitl];
    } else {
      if (a.requires_approval === true || (Array.isArray(a.hitl_tools) && a.hitl_tools.length > 0)) {
        issues.push({ code: 'invalid_field', field: `${at}.requires_approval`, message: `${at}.requires_approval: ${name} uses no tool that needs approval` });
      }
      a.tools = [];
      a.hitl_tools = [];
      a.requires_approval = false;
    }
    return a;
  });
  return { agents: out, issues };
}
