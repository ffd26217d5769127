/**
 * Graph algorithms over an entity subgraph (graphology): pagerank, Louvain
 * communities, betweenness, shortest path and connected components. The
 * caller bounds the graph (`max_nodes`) before it gets here.
 */
import { UndirectedGraph } from 'graphology';
import louvainModule from 'graphology-communities-louvain';
import { connectedComponents } from 'graphology-components';
import betweennessModule from 'graphology-metrics/centrality/betweenness.js';
import pagerankModule from 'graphology-metrics/centrality/pagerank.js';
import { bidirectional } from 'graphology-shortest-path/unweighted.js';

// These packages are CommonJS with `export default` typings: the function is the module itself under Node's
// ESM loader and `.default` under transpiled CommonJS.
const interop = <T>(m: { default: T }): T => (m as { default?: T }).default ?? (m as unknown as T);
const louvain = interop(louvainModule);
const betweenness = interop(betweennessModule);
const pagerank = interop(pagerankModule);

export const ALGORITHMS = [
  'pagerank',
  'community_detection',
  'betweenness',
  'shortest_path',
  'connected_components',
] as const;
export type Algorithm = (typeof ALGORITHMS)[number];

export interface GraphNode {
  id: string;
  name: string;
  type: string;
}
export interface GraphEdge {
  source: string;
  target: string;
  type: string;
}

function build(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): UndirectedGraph {
  const g = new UndirectedGraph({ allowSelfLoops: false });
  for (const n of nodes) g.mergeNode(n.id, { name: n.name, type: n.type });
  for (const e of edges) {
    if (e.source === e.target || !g.hasNode(e.source) || !g.hasNode(e.target)) continue;
    g.mergeEdge(e.source, e.target);
  }
  return g;
}

export function analyse(
  algorithm: Algorithm,
  nodes: readonly GraphNode[],
  edges: readonly GraphEdge[],
  opts: { from?: string; to?: string; seed?: number } = {},
): { results: Record<string, unknown>[]; nodeCount: number; edgeCount: number } {
  const g = build(nodes, edges);
  const named = (id: string) => ({
    entity_id: id,
    name: g.getNodeAttribute(id, 'name') as string,
    type: g.getNodeAttribute(id, 'type') as string,
  });
  let results: Record<string, unknown>[] = [];
  if (g.order === 0) return { results, nodeCount: 0, edgeCount: 0 };
  switch (algorithm) {
    case 'pagerank': {
      const scores =
        g.size === 0 ? Object.fromEntries(g.nodes().map((n: string) => [n, 1 / g.order])) : pagerank(g);
      results = Object.entries(scores)
        .sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))
        .map(([id, score]) => ({ ...named(id), score }));
      break;
    }
    case 'betweenness': {
      const scores = betweenness(g);
      results = Object.entries(scores)
        .sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))
        .map(([id, score]) => ({ ...named(id), score }));
      break;
    }
    case 'community_detection': {
      // Louvain is randomised: a fixed generator keeps answers stable for one graph.
      let s = opts.seed ?? 1;
      const rng = () => (s = (s * 16807) % 2147483647) / 2147483647;
      const communities =
        g.size === 0
          ? Object.fromEntries(g.nodes().map((n: string, i: number) => [n, i]))
          : louvain(g, { rng });
      results = groupBy(communities).map((members, i) => ({
        community_id: i,
        member_count: members.length,
        members: members.map(named),
      }));
      break;
    }
    case 'connected_components':
      results = connectedComponents(g)
        .map((c) => [...c].sort())
        .sort((x, y) => y.length - x.length || (x[0] ?? '').localeCompare(y[0] ?? ''))
        .map((members, i) => ({
          component_id: i,
          member_count: members.length,
          members: members.map(named),
        }));
      break;
    case 'shortest_path': {
      if (!opts.from || !opts.to || !g.hasNode(opts.from) || !g.hasNode(opts.to)) break;
      const path = bidirectional(g, opts.from, opts.to);
      results = path ? [{ length: path.length - 1, path: path.map(named) }] : [];
      break;
    }
  }
  return { results, nodeCount: g.order, edgeCount: g.size };
}

function groupBy(assignment: Record<string, number>): string[][] {
  const groups = new Map<number, string[]>();
  for (const [id, c] of Object.entries(assignment)) {
    const list = groups.get(c);
    if (list) list.push(id);
    else groups.set(c, [id]);
  }
  return [...groups.values()]
    .map((m) => m.sort())
    .sort((x, y) => y.length - x.length || (x[0] ?? '').localeCompare(y[0] ?? ''));
}
