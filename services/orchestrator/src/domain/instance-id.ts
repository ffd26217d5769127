/**
 * Node instances. A top-level node's instance id is its plan id; a node of a
 * `map` body runs once per item, as `<body node id>[<i>]` — nested maps add
 * one index per level (`<id>[<i>][<j>]`). Plan ids cannot contain `[`, so an
 * instance id never collides with a plan id, and ids are unique plan-wide
 * (the validator checks bodies too), so the base id names one plan node.
 */
import type { PlanNode } from '@af/plan';

/** The suffix of iteration `index` inside a graph level whose own suffix is `levelSuffix`. */
export function iterationSuffix(levelSuffix: string, index: number): string {
  return `${levelSuffix}[${index}]`;
}

const INSTANCE = /^([^[\]#]+)((?:\[\d+\])*)$/;

/** `x[2][0]` → `{ nodeId: 'x', indices: [2, 0], suffix: '[2][0]' }`; null when `id` is not an instance id. */
export function parseInstanceId(id: string): { nodeId: string; indices: number[]; suffix: string } | null {
  const m = INSTANCE.exec(id);
  if (!m) return null;
  const suffix = m[2] ?? '';
  const indices = suffix ? suffix.slice(1, -1).split('][').map(Number) : [];
  return { nodeId: m[1]!, indices, suffix };
}

/** Where a map instance keeps its items (a node_outputs row beside the instances' outputs). */
export function itemsKey(mapInstanceId: string): string {
  return `${mapInstanceId}#items`;
}

/** Every node id inside a map node's body, nested bodies included. */
export function bodyNodeIds(node: PlanNode): Set<string> {
  const out = new Set<string>();
  const visit = (nodes: readonly PlanNode[]) => {
    for (const n of nodes) {
      out.add(n.id);
      if (n.body) visit(n.body.nodes);
    }
  };
  if (node.body) visit(node.body.nodes);
  return out;
}

/** A plan node by id, searching map bodies too, with the map nodes enclosing it (outermost first). */
export function locateNode(nodes: readonly PlanNode[], nodeId: string): { node: PlanNode; maps: PlanNode[] } | undefined {
  for (const n of nodes) {
    if (n.id === nodeId) return { node: n, maps: [] };
    if (n.body) {
      const inner = locateNode(n.body.nodes, nodeId);
      if (inner) return { node: inner.node, maps: [n, ...inner.maps] };
    }
  }
  return undefined;
}

/** True when instance `id` runs inside an iteration of the map instance (`mapNode`, `mapSuffix`). */
export function isInsideMap(id: string, mapNode: PlanNode, mapSuffix: string, bodyIds: ReadonlySet<string> = bodyNodeIds(mapNode)): boolean {
  const parsed = parseInstanceId(id);
  if (!parsed || !bodyIds.has(parsed.nodeId)) return false;
  return parsed.suffix.length > mapSuffix.length && parsed.suffix.startsWith(`${mapSuffix}[`);
}
