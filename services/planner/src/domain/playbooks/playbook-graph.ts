/**
 * The step dependency graph of a compiled playbook with types (seed §5
 * "GET /playbooks/{id}/graph"): each step's node kind, seed step type,
 * action, whether it acts outside the run, and its output fields with their
 * types (from the step's output schema or the action's I/O contract); edges
 * are dependencies, fallbacks and route branches; levels are the Kahn stages.
 */
import { kahnLevels, type ActionIORegistry, type PlanGraph, type PlanNode } from '@af/plan';

export interface GraphNode {
  id: string;
  /** Where the step is in the source document (`steps[2]`). */
  source: string | null;
  kind: PlanNode['kind'];
  /** The seed's step type: tool | llm_task | approval, or the node kind for other front-ends' nodes. */
  step_type: string;
  action: string | null;
  output_key: string;
  depends_on: string[];
  side_effect: boolean;
  /** Output field → type. */
  outputs: Record<string, string>;
}

export interface GraphEdge {
  from: string;
  to: string;
  kind: 'depends_on' | 'fallback' | 'route';
}

export interface PlaybookGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  levels: string[][];
}

const STEP_TYPES: Partial<Record<PlanNode['kind'], string>> = { tool: 'tool', llm: 'llm_task', approval: 'approval' };

/** The graph view of `plan` (top-level nodes; a map's body is listed under its map node's outputs as `results`). */
export function playbookGraph(plan: PlanGraph, registry: ActionIORegistry): PlaybookGraph {
  const nodes = plan.nodes.map((n): GraphNode => {
    const contract = n.action ? registry.get(n.action) : undefined;
    return {
      id: n.id,
      source: n.source ?? null,
      kind: n.kind,
      step_type: STEP_TYPES[n.kind] ?? n.kind,
      action: n.action ?? null,
      output_key: n.outputKey ?? n.id,
      depends_on: [...n.dependsOn],
      side_effect: contract?.sideEffect === true,
      outputs: outputTypes(n, contract?.outputs),
    };
  });
  const edges: GraphEdge[] = [];
  for (const n of plan.nodes) {
    for (const d of n.dependsOn) edges.push({ from: d, to: n.id, kind: 'depends_on' });
    for (const f of n.errorPolicy?.fallback ?? []) edges.push({ from: n.id, to: f, kind: 'fallback' });
    for (const t of [...(n.routes ?? []).flatMap((r) => r.to), ...(n.elseTo ?? [])]) edges.push({ from: n.id, to: t, kind: 'route' });
  }
  return { nodes, edges, levels: kahnLevels(plan) };
}

function outputTypes(n: PlanNode, contract: Record<string, { type: string }> | undefined): Record<string, string> {
  const props = n.outputSchema?.properties;
  if (props && typeof props === 'object' && !Array.isArray(props)) {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(props as Record<string, unknown>)) out[k] = schemaType(v);
    return out;
  }
  if (n.kind === 'map') return { results: 'array' };
  const out: Record<string, string> = {};
  for (const [k, spec] of Object.entries(contract ?? {})) out[k] = spec.type;
  return out;
}

function schemaType(schema: unknown): string {
  if (!schema || typeof schema !== 'object') return 'any';
  const s = schema as { type?: unknown; items?: unknown };
  if (s.type === 'array') return `${schemaType(s.items)}[]`;
  if (typeof s.type === 'string') return s.type;
  if (Array.isArray(s.type)) return s.type.join('|');
  return 'any';
}
