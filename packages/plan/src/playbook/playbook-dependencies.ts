/**
 * The playbook dependency rule (README "Dependency rule"). A playbook is
 * written as a sequence, but only some of its order matters:
 *
 * 1. Data: a step depends on every earlier step whose output it reads (in
 *    inputs, params, condition, prompt or preview_from).
 * 2. Barriers: approval steps and side-effecting tool steps (writes, sends,
 *    watermark updates — `sideEffect` in the action contract; a parallel
 *    block containing one) keep their place in the sequence: a barrier waits
 *    for every step written before it, and every step written after it waits
 *    for the barrier.
 *
 * Everything else may run in parallel. The result is acyclic by construction
 * because every edge points to an earlier step.
 */
import type { FlatStep } from './playbook-steps.js';

/** dependsOn (step names, document order) for every non-group step. */
export function playbookDependencies(steps: readonly FlatStep[], producers: ReadonlyMap<FlatStep, readonly FlatStep[]>): Map<FlatStep, string[]> {
  const result = new Map<FlatStep, string[]>();
  const units: FlatStep[][] = [];
  for (const s of steps) {
    if (s.isGroup) continue;
    const last = units[units.length - 1];
    if (last && last[0]!.unit === s.unit) last.push(s);
    else units.push([s]);
  }

  let barrier: FlatStep[] = [];
  let barrierEnd = -1; // order of the last step of the current barrier unit
  let segment: FlatStep[] = []; // steps since the barrier
  for (const unit of units) {
    const isBarrier = unit.some((s) => s.sideEffect);
    const sinks = isBarrier ? segmentSinks(segment, producers) : [];
    for (const s of unit) {
      const deps = new Set<FlatStep>(producers.get(s) ?? []);
      if (isBarrier && segment.length > 0) {
        for (const d of sinks) deps.add(d);
      } else if (barrier.length > 0 && ![...deps].some((d) => d.order > barrierEnd)) {
        // Not already behind the barrier through a data dependency: wait for it directly.
        for (const b of barrier) deps.add(b);
      }
      result.set(
        s,
        [...deps].sort((a, b) => a.order - b.order).map((d) => d.name),
      );
    }
    if (isBarrier) {
      barrier = unit;
      barrierEnd = unit[unit.length - 1]!.order;
      segment = [];
    } else {
      segment.push(...unit);
    }
  }
  return result;
}

/** Steps of the segment no other step of the segment depends on. */
function segmentSinks(segment: readonly FlatStep[], producers: ReadonlyMap<FlatStep, readonly FlatStep[]>): FlatStep[] {
  const used = new Set<FlatStep>();
  for (const s of segment) for (const p of producers.get(s) ?? []) used.add(p);
  return segment.filter((s) => !used.has(s));
}
