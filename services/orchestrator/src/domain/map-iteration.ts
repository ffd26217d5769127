/**
 * `map` nodes (workflow seed "loop": ParallelExecutor.executeLoop): the body
 * sub-graph runs once per item of `body.itemsFrom`, with `{current}` /
 * `{index}` bound to the item and its position. Pure decisions: which items,
 * how many, what one iteration yields.
 *
 * - Items: an array, or the rows of a record set (`{results: [...]}`) or a
 *   transform output (`{data: [...]}`); anything else is an error naming what it got.
 * - `maxIterations`: like the seed (`items.slice(0, maxIterations)`), extra
 *   items are dropped — and the engine says so with a `map_truncated` log frame.
 * - An iteration's result is the output of the body's result node (the one no
 *   other body node depends on); with several, an object keyed by their output
 *   keys. A skipped or failed result node gives `null`.
 */
import type { PlanNode } from '@af/plan';

/** Seed: loops run their items one after another unless the body says otherwise. */
export const DEFAULT_MAP_CONCURRENCY = 1;

export function readItems(value: unknown): { items: unknown[] } | { error: string } {
  if (Array.isArray(value)) return { items: value };
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    for (const key of ['results', 'data']) if (Array.isArray(o[key])) return { items: o[key] as unknown[] };
    return { error: `resolved to an object without a results or data array (keys: ${Object.keys(o).slice(0, 10).join(', ') || 'none'}); point it at an array` };
  }
  const got = value === undefined ? 'nothing (the referenced output does not exist)' : value === null ? 'null' : `a ${typeof value}`;
  return { error: `must resolve to an array, got ${got}` };
}

export function limitItems(items: readonly unknown[], maxIterations: number): { items: unknown[]; total: number; truncated: boolean } {
  const total = items.length;
  return total > maxIterations ? { items: items.slice(0, maxIterations), total, truncated: true } : { items: [...items], total, truncated: false };
}

/** Body nodes whose output is the iteration's result: not depended on by another body node, not fallback-only. */
export function bodySinks(nodes: readonly PlanNode[]): PlanNode[] {
  const used = new Set(nodes.flatMap((n) => n.dependsOn));
  return nodes.filter((n) => !used.has(n.id) && !n.fallbackFor);
}

/** What one finished iteration yields, from its body nodes' outputs (`output(id)` is undefined when there is none). */
export function iterationResult(nodes: readonly PlanNode[], output: (nodeId: string) => { value: unknown } | undefined): unknown {
  const sinks = bodySinks(nodes);
  if (sinks.length === 1) return output(sinks[0]!.id)?.value ?? null;
  const out: Record<string, unknown> = {};
  for (const sink of sinks) out[sink.outputKey ?? sink.id] = output(sink.id)?.value ?? null;
  return out;
}
