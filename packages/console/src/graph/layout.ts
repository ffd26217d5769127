/**
 * Lays out a plan graph (steps and their edges) top to bottom with dagre.
 * Pure: ids in, positions out, so the picture is tested without a browser.
 */
import dagre from '@dagrejs/dagre';

export interface GraphInputNode {
  id: string;
  label?: string;
}

export interface GraphInputEdge {
  from: string;
  to: string;
  kind?: string;
}

export interface PlacedNode {
  id: string;
  label: string;
  /** Top-left corner. */
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PlacedEdge {
  from: string;
  to: string;
  kind: string;
  points: Array<{ x: number; y: number }>;
}

export interface Layout {
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  width: number;
  height: number;
}

export const NODE_WIDTH = 180;
export const NODE_HEIGHT = 48;

/**
 * Places every node; edges whose ends are not both nodes are dropped (a plan
 * version may name a step the run does not have yet). Node order is kept.
 */
export function layoutGraph(nodes: GraphInputNode[], edges: GraphInputEdge[], direction: 'TB' | 'LR' = 'TB'): Layout {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: direction, nodesep: 32, ranksep: 48, marginx: 16, marginy: 16 });
  g.setDefaultEdgeLabel(() => ({}));
  const ids = new Set<string>();
  for (const n of nodes) {
    if (ids.has(n.id)) continue;
    ids.add(n.id);
    g.setNode(n.id, { label: n.label ?? n.id, width: NODE_WIDTH, height: NODE_HEIGHT });
  }
  const kept = edges.filter((e) => ids.has(e.from) && ids.has(e.to) && e.from !== e.to);
  kept.forEach((e, i) => g.setEdge(e.from, e.to, { kind: e.kind ?? 'depends_on' }, `e${i}`));
  dagre.layout(g);
  const placed: PlacedNode[] = [...ids].map((id) => {
    const n = g.node(id) as { x: number; y: number; width: number; height: number; label: string };
    return { id, label: n.label, x: n.x - n.width / 2, y: n.y - n.height / 2, width: n.width, height: n.height };
  });
  const placedEdges: PlacedEdge[] = kept.map((e, i) => {
    const edge = g.edge({ v: e.from, w: e.to, name: `e${i}` }) as { points?: Array<{ x: number; y: number }> };
    return { from: e.from, to: e.to, kind: e.kind ?? 'depends_on', points: edge?.points ?? [] };
  });
  const graph = g.graph() as { width?: number; height?: number };
  return { nodes: placed, edges: placedEdges, width: Math.ceil(graph.width ?? 0), height: Math.ceil(graph.height ?? 0) };
}
