/**
 * What a replan changes (flex spec §5.10, §8 "completed nodes remain locked
 * and replans only touch pending work"). Pure: given the run's current plan,
 * the new one and the node states, either the violations (a completed node
 * dropped or changed) or the node-state changes to apply with plan version
 * N+1.
 *
 * - Locked: top-level nodes that completed (and failed primaries whose
 *   fallback's output stands in for theirs). They must appear in the new plan
 *   unchanged; their states and outputs stay and they never run again.
 * - Kept: unchanged nodes still pending, running (replayed with the same
 *   attempt, so the same idempotency key) or waiting (an approval keeps its
 *   gate, a delay its timer, a subflow its child).
 * - Reset to pending (their attempt count goes on, so a new idempotency key):
 *   changed nodes, nodes that failed, were skipped or cancelled, and running
 *   or waiting nodes downstream of a reset or new node.
 * - Removed: nodes the new plan drops; a map that is reset or removed loses
 *   its iteration instances and items.
 */
import type { PlanGraph, PlanNode } from '@af/plan';
import { locateNode, parseInstanceId } from './instance-id.js';
import type { NodeState } from './run-state.js';

export interface ReplanViolation {
  field: string;
  reason: string;
  code: 'locked_node';
}

export interface ReplanChange {
  /** New top-level node ids (pending rows). */
  insert: string[];
  /** Rows set back to pending. */
  reset: string[];
  /** Rows deleted (dropped nodes, instances of reset or dropped maps). */
  remove: string[];
  /** Output rows deleted (items and instance outputs of reset or dropped maps). */
  dropOutputs: string[];
  /** Top-level nodes kept as they are because they completed. */
  locked: string[];
  /** Child runs of reset or removed subflow nodes, to cancel. */
  cancelChildren: string[];
}

/** Fields that document a node but do not change what it does. */
const COSMETIC = new Set(['source', 'description']);

export function replanChanges(
  current: Pick<PlanGraph, 'nodes'>,
  next: Pick<PlanGraph, 'nodes'>,
  states: ReadonlyMap<string, NodeState>,
  outputIds: ReadonlySet<string>,
): { violations: ReplanViolation[] } | { change: ReplanChange } {
  const nextById = new Map(next.nodes.map((n, i) => [n.id, { node: n, index: i }]));
  const status = (id: string) => states.get(id)?.status ?? 'pending';
  const isLocked = (id: string) => status(id) === 'completed' || (status(id) === 'failed' && outputIds.has(id));
  const violations: ReplanViolation[] = [];
  const change: ReplanChange = { insert: [], reset: [], remove: [], dropOutputs: [], locked: [], cancelChildren: [] };
  const resetOrNew = new Set<string>();
  const dropSubtree = (map: PlanNode) => {
    for (const id of states.keys()) if (ownerOf(current, id) === map.id && id !== map.id) change.remove.push(id);
    for (const id of outputIds) if (ownerOf(current, id) === map.id && id !== map.id) change.dropOutputs.push(id);
  };
  const cancelChildOf = (id: string) => {
    const s = states.get(id);
    if (s?.childRunId && s.status === 'waiting') change.cancelChildren.push(s.childRunId);
    for (const [inst, st] of states) if (inst !== id && ownerOf(current, inst) === id && st.childRunId && st.status === 'waiting') change.cancelChildren.push(st.childRunId);
  };

  for (const node of current.nodes) {
    const found = nextById.get(node.id);
    if (isLocked(node.id)) {
      if (!found) violations.push({ field: 'plan.nodes', reason: `drops completed node ${node.id}: completed nodes are locked (keep it, unchanged)`, code: 'locked_node' });
      else {
        const diff = differingFields(node, found.node);
        if (diff.length) {
          violations.push({ field: `plan.nodes[${found.index}]`, reason: `changes completed node ${node.id} (${diff.join(', ')}): completed nodes are locked`, code: 'locked_node' });
        } else change.locked.push(node.id);
      }
      continue;
    }
    if (!found) {
      change.remove.push(node.id);
      if (outputIds.has(node.id)) change.dropOutputs.push(node.id);
      cancelChildOf(node.id);
      dropSubtree(node);
      continue;
    }
    const changed = differingFields(node, found.node).length > 0;
    if (changed || ['failed', 'skipped', 'cancelled'].includes(status(node.id))) {
      change.reset.push(node.id);
      resetOrNew.add(node.id);
      if (outputIds.has(node.id)) change.dropOutputs.push(node.id);
      cancelChildOf(node.id);
      dropSubtree(node);
    }
  }
  if (violations.length) return { violations };

  const currentIds = new Set(current.nodes.map((n) => n.id));
  for (const n of next.nodes) {
    if (!currentIds.has(n.id)) {
      change.insert.push(n.id);
      resetOrNew.add(n.id);
    }
  }
  // A running or waiting node whose inputs will be produced again must run again too.
  const byId = new Map(next.nodes.map((n) => [n.id, n]));
  for (let changed = true; changed; ) {
    changed = false;
    for (const n of next.nodes) {
      if (resetOrNew.has(n.id) || isLocked(n.id)) continue;
      const s = status(n.id);
      if (s !== 'running' && s !== 'waiting') continue;
      if (n.dependsOn.some((d) => resetOrNew.has(d) && byId.has(d))) {
        change.reset.push(n.id);
        resetOrNew.add(n.id);
        cancelChildOf(n.id);
        const old = current.nodes.find((o) => o.id === n.id);
        if (old) dropSubtree(old);
        changed = true;
      }
    }
  }
  change.remove = [...new Set(change.remove)];
  change.dropOutputs = [...new Set(change.dropOutputs)];
  change.cancelChildren = [...new Set(change.cancelChildren)];
  return { change };
}

/** The top-level node a state or output row belongs to (a map for its instances and items), or undefined (policy gates). */
function ownerOf(plan: Pick<PlanGraph, 'nodes'>, id: string): string | undefined {
  const base = id.endsWith('#items') ? id.slice(0, -'#items'.length) : id;
  const parsed = parseInstanceId(base);
  if (!parsed) return undefined;
  const located = locateNode(plan.nodes, parsed.nodeId);
  if (!located) return undefined;
  return located.maps[0]?.id ?? located.node.id;
}

/** Top-level fields of two nodes that differ (defaults applied on both sides; documentation ignored). */
export function differingFields(a: PlanNode, b: PlanNode): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  const out: string[] = [];
  for (const k of keys) {
    if (COSMETIC.has(k)) continue;
    if (stableJson((a as Record<string, unknown>)[k]) !== stableJson((b as Record<string, unknown>)[k])) out.push(k);
  }
  return out.sort();
}

/** JSON with object keys sorted, so equal values give equal text. */
export function stableJson(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : stableJson(v))).join(',')}]`;
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`).join(',')}}`;
}
