/**
 * Kahn's algorithm as the seed multi-agent-rag.md draws it ("How Kahn's
 * Algorithm Creates Stages"): drain every zero-in-degree node into one
 * parallel stage, decrement its dependents, repeat; nodes left over sit on a
 * cycle (or behind one). The orchestrator runs ready nodes as soon as their
 * dependencies finish; these levels are the static view of the same order.
 */
import type { PlanGraph } from '../ir.js';

/** Thrown by {@link kahnLevels} when the graph is not a DAG. */
export class PlanCycleError extends Error {
  readonly code = 'cycle';
  /** One cycle, first node repeated at the end: `['a', 'b', 'a']`. */
  readonly cycle: string[];
  constructor(cycle: string[]) {
    super(`circular dependency: ${cycle.join(' → ')}`);
    this.name = 'PlanCycleError';
    this.cycle = cycle;
  }
}

export interface StageResult {
  /** Stages in order; ids inside a stage keep the input order. */
  levels: string[][];
  /** Ids that never reached in-degree 0 (on or behind a cycle). */
  blocked: string[];
}

/**
 * Generic stage builder over ids and their dependency lists. Dependencies on
 * ids outside `ids` are ignored here (structural validation reports them).
 */
export function kahnStages(ids: readonly string[], dependsOn: (id: string) => readonly string[]): StageResult {
  const index = new Map<string, number>();
  ids.forEach((id, i) => index.set(id, i));
  const indegree = new Int32Array(ids.length);
  const dependents: number[][] = ids.map(() => []);
  ids.forEach((id, i) => {
    const seen = new Set<number>();
    for (const dep of dependsOn(id)) {
      const j = index.get(dep);
      if (j === undefined || seen.has(j)) continue;
      seen.add(j);
      indegree[i]!++;
      dependents[j]!.push(i);
    }
  });
  const levels: string[][] = [];
  let current: number[] = [];
  for (let i = 0; i < ids.length; i++) if (indegree[i] === 0) current.push(i);
  let placed = 0;
  while (current.length > 0) {
    current.sort((a, b) => a - b);
    levels.push(current.map((i) => ids[i]!));
    placed += current.length;
    const next: number[] = [];
    for (const i of current) {
      for (const d of dependents[i]!) {
        if (--indegree[d]! === 0) next.push(d);
      }
    }
    current = next;
  }
  const blocked = placed === ids.length ? [] : ids.filter((_, i) => indegree[i]! > 0);
  return { levels, blocked };
}

/**
 * One cycle among `candidates` (ids that Kahn could not place), found by
 * walking dependencies until an id repeats. Every blocked node has a blocked
 * dependency, so the walk always closes a loop.
 */
export function findCycle(candidates: readonly string[], dependsOn: (id: string) => readonly string[]): string[] {
  const blocked = new Set(candidates);
  const start = candidates[0];
  if (start === undefined) return [];
  const position = new Map<string, number>();
  const path: string[] = [];
  let cur: string | undefined = start;
  while (cur !== undefined && !position.has(cur)) {
    position.set(cur, path.length);
    path.push(cur);
    cur = dependsOn(cur).find((d) => blocked.has(d));
  }
  if (cur === undefined) return [];
  // path runs against the edges (node → its dependency); show it in execution order,
  // starting from the node written first, so the report is stable.
  const loop = path.slice(position.get(cur)!).reverse();
  const order = new Map(candidates.map((id, i) => [id, i] as const));
  let first = 0;
  loop.forEach((id, i) => {
    if (order.get(id)! < order.get(loop[first]!)!) first = i;
  });
  const rotated = [...loop.slice(first), ...loop.slice(0, first)];
  return [...rotated, rotated[0]!];
}

/** Nodes of the plan grouped into parallel stages. Throws {@link PlanCycleError} on a cycle. */
export function kahnLevels(plan: Pick<PlanGraph, 'nodes'>): string[][] {
  const deps = new Map(plan.nodes.map((n) => [n.id, n.dependsOn ?? []] as const));
  const get = (id: string): readonly string[] => deps.get(id) ?? [];
  const ids = plan.nodes.map((n) => n.id);
  const { levels, blocked } = kahnStages(ids, get);
  if (blocked.length > 0) throw new PlanCycleError(findCycle(blocked, get));
  return levels;
}

/** Stages with more than one node: what can run concurrently (workflow seed `parallelGroups`). */
export function parallelGroups(plan: Pick<PlanGraph, 'nodes'>): Array<{ level: number; nodes: string[] }> {
  return kahnLevels(plan)
    .map((nodes, level) => ({ level, nodes }))
    .filter((g) => g.nodes.length > 1);
}
