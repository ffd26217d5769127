/**
 * The two places a monitor cycle changes how its run executes
 * (execute-run.use-case.ts calls these): a step not started once the cycle
 * is suppressed is skipped, and the run's completion carries the cycle's
 * watermarks and its `suppressed` status (monitor-completion.sql.ts).
 */
import type { PlanNode } from '@af/plan';
import { defaultActionRegistry } from '@af/plan';
import type { Logger } from '@af/service-kit';
import { cycleSuppressed, isDetectionAction, monitorRunInfo, stagedWatermarks, type NodeView } from '../domain/monitors/monitor-run.js';
import type { MonitorCompletion } from '../infra/monitor-completion.sql.js';
import type { Execution } from './execution.js';

const registry = defaultActionRegistry();

/** The skip reason of steps a suppressed cycle does not run. */
export const SUPPRESSED = 'suppressed';

const viewOf = (x: Execution): NodeView => ({ status: (id) => x.states.get(id)?.status, output: (id) => x.outputs.get(id) });

/** Whether `node` is to be skipped because its monitor cycle is suppressed (suppress_if_empty, nothing new). */
export function suppressedStep(x: Execution, node: PlanNode): boolean {
  if (x.run.runContext !== 'monitor' || isDetectionAction(node.action)) return false;
  return cycleSuppressed(monitorRunInfo(x.run), x.run.plan.nodes, viewOf(x));
}

/** What a completing monitor run writes with its completion; undefined for other runs. */
export function monitorCompletion(x: Execution, log: Logger): (MonitorCompletion & { framePayload: Record<string, unknown> }) | undefined {
  const info = monitorRunInfo(x.run);
  if (!info) return undefined;
  const view = viewOf(x);
  const { staged, refused } = stagedWatermarks(x.run.plan.nodes, view, (action) => registry.get(action)?.watermarkType);
  for (const r of refused) log.warn({ runId: x.run.id, monitorId: info.monitorId, step: r.step, reason: r.reason }, 'monitor watermark not stored: it does not fit its kind');
  const suppressed = cycleSuppressed(info, x.run.plan.nodes, view);
  const found = staged.reduce((n, w) => n + w.found, 0);
  return { monitorId: info.monitorId, watermarks: staged, suppressed, framePayload: { monitor_cycle: suppressed ? SUPPRESSED : 'run', items_found: found, ...(suppressed ? { suppressed: true } : {}) } };
}
