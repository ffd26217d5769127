/**
 * Strongly connected components (iterative Kosaraju) over a subset of nodes,
 * used to report every cycle of a plan — one per component — rather than only
 * the first one Kahn's algorithm trips over.
 */

/** Components of the graph `ids` → `dependsOn(id)` (edges outside `ids` are ignored), each in `ids` order. */
export function stronglyConnected(ids: readonly string[], dependsOn: (id: string) => readonly string[]): string[][] {
  const members = new Set(ids);
  const order: string[] = [];
  const seen = new Set<string>();
  for (const start of ids) {
    if (seen.has(start)) continue;
    seen.add(start);
    const stack: Array<{ id: string; deps: readonly string[]; next: number }> = [{ id: start, deps: dependsOn(start), next: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.next < top.deps.length) {
        const d = top.deps[top.next++]!;
        if (members.has(d) && !seen.has(d)) {
          seen.add(d);
          stack.push({ id: d, deps: dependsOn(d), next: 0 });
        }
      } else {
        order.push(top.id);
        stack.pop();
      }
    }
  }
  const reverse = new Map<string, string[]>();
  for (const id of ids) {
    for (const d of dependsOn(id)) {
      if (!members.has(d)) continue;
      const list = reverse.get(d);
      if (list) list.push(id);
      else reverse.set(d, [id]);
    }
  }
  const position = new Map(ids.map((id, i) => [id, i] as const));
  const assigned = new Set<string>();
  const components: string[][] = [];
  for (let k = order.length - 1; k >= 0; k--) {
    const root = order[k]!;
    if (assigned.has(root)) continue;
    const component: string[] = [];
    const stack = [root];
    assigned.add(root);
    while (stack.length > 0) {
      const id = stack.pop()!;
      component.push(id);
      for (const next of reverse.get(id) ?? []) {
        if (!assigned.has(next)) {
          assigned.add(next);
          stack.push(next);
        }
      }
    }
    component.sort((a, b) => position.get(a)! - position.get(b)!);
    components.push(component);
  }
  return components;
}
