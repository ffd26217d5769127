/**
 * The seed's two wiring warnings that need the whole playbook:
 * `unused_output` — a step computes something no later step, approval
 * preview or output section reads (side-effecting steps and the last step are
 * exempt: they exist for their effect or are the result); `long_chain` — a
 * step sits deeper than the threshold in a chain of data dependencies, where
 * one early failure empties everything downstream. The warning is given once,
 * at the step that crosses the threshold.
 */
import type { StepValidationResult } from '../issues/plan-issue.js';
import type { Playbook } from './playbook.schema.js';
import type { FlatStep } from './playbook-steps.js';

export function linkWarnings(
  doc: Playbook,
  steps: readonly FlatStep[],
  producers: ReadonlyMap<FlatStep, readonly FlatStep[]>,
  results: StepValidationResult[],
  longChainThreshold: number,
): void {
  const used = new Set<FlatStep>();
  for (const list of producers.values()) for (const p of list) used.add(p);
  const sectionSources = new Set((doc.output?.sections ?? []).map((s) => s.source));
  const lastUnit = steps.length > 0 ? steps[steps.length - 1]!.unit : -1;

  const depth = new Map<FlatStep, number>();
  steps.forEach((s, k) => {
    const result = results[k]!;
    const d = 1 + Math.max(0, ...(producers.get(s) ?? []).map((p) => depth.get(p) ?? 1));
    depth.set(s, d);
    if (d === longChainThreshold + 1) {
      result.warnings.push({
        code: 'long_chain',
        field: 'inputs',
        message: `'${s.name}' is step ${d} of a chain of data dependencies (more than ${longChainThreshold}); a failure early in the chain leaves it without input`,
      });
    }
    if (s.isGroup || s.stepType === 'approval' || s.sideEffect || s.unit === lastUnit) return;
    if (used.has(s) || sectionSources.has(s.outputKey)) return;
    result.warnings.push({
      code: 'unused_output',
      field: s.step.output_key !== undefined ? 'output_key' : 'name',
      message: `the output of '${s.name}' ('${s.outputKey}') is not used by any later step or output section`,
    });
  });
}
