/**
 * A monitor cycle inside its run. The dispatcher marks a monitor's run in its
 * plan's `metadata.monitor` (which monitor, which fire, suppress_if_empty);
 * from the run's node states and outputs these pure functions decide:
 *
 * - which watermarks the cycle moves: each completed detection step's output
 *   `watermark` (kind: the output's `watermark_type`, else the action's), and
 *   a `set_monitor_watermark` step's value for its step. They are written in
 *   the statement that completes the run — a run that does not complete moves
 *   none, so the next cycle sees the same new items again;
 * - whether the cycle is `suppressed`: suppress_if_empty and every detection
 *   step completed having found nothing. Steps not started by then are skipped.
 */
import type { PlanNode } from '@af/plan';
import { DETECTION_ACTIONS } from './monitor-config.js';
import { WATERMARK_KINDS, watermarkProblem, type WatermarkKind } from './watermark.js';

export interface MonitorRunInfo {
  monitorId: string;
  fireAt: string;
  suppressIfEmpty: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The `metadata.monitor` a monitor's fire puts on its run's plan. */
export function monitorMetadata(info: MonitorRunInfo): Record<string, unknown> {
  return { monitor_id: info.monitorId, fire_at: info.fireAt, suppress_if_empty: info.suppressIfEmpty };
}

/** The monitor a run is a cycle of, or null (not a monitor run, or no well-formed marker). */
export function monitorRunInfo(run: { runContext: string; plan: { metadata?: Record<string, unknown> } }): MonitorRunInfo | null {
  if (run.runContext !== 'monitor') return null;
  const m = run.plan.metadata?.monitor as Record<string, unknown> | undefined;
  if (!m || typeof m.monitor_id !== 'string' || !UUID.test(m.monitor_id)) return null;
  return { monitorId: m.monitor_id, fireAt: typeof m.fire_at === 'string' ? m.fire_at : '', suppressIfEmpty: m.suppress_if_empty !== false };
}

export const isDetectionAction = (action: string | undefined): boolean => action !== undefined && (DETECTION_ACTIONS as readonly string[]).includes(action);

/** The plan's top-level detection steps. */
export function detectionNodes(nodes: readonly PlanNode[]): PlanNode[] {
  return nodes.filter((n) => (n.kind ?? 'tool') === 'tool' && isDetectionAction(n.action));
}

/** How many items a detection output reports: `count`, else the length of its first list. */
export function foundCount(output: unknown): number {
  if (!output || typeof output !== 'object') return 0;
  const o = output as Record<string, unknown>;
  if (typeof o.count === 'number') return o.count;
  const counts = ['added_count', 'modified_count', 'deleted_count'].map((k) => o[k]).filter((v): v is number => typeof v === 'number');
  if (counts.length) return counts.reduce((a, b) => a + b, 0);
  const list = Object.values(o).find(Array.isArray);
  return list ? list.length : 0;
}

export interface NodeView {
  status(id: string): string | undefined;
  output(id: string): unknown;
}

/**
 * suppress_if_empty: the cycle is suppressed once every detection step has
 * completed and none found anything. A detection step that failed or was
 * skipped does not suppress (the run goes on and fails or runs as usual).
 */
export function cycleSuppressed(info: MonitorRunInfo | null, nodes: readonly PlanNode[], view: NodeView): boolean {
  if (!info?.suppressIfEmpty) return false;
  const detections = detectionNodes(nodes);
  if (!detections.length) return false;
  return detections.every((n) => view.status(n.id) === 'completed' && foundCount(view.output(n.id)) === 0);
}

export interface StagedWatermark {
  step: string;
  kind: WatermarkKind;
  value: string;
  found: number;
}

/**
 * The watermarks a completing cycle writes. `kindOf(action)` is the action's
 * registry kind. A value that does not fit its kind is left out (and named in
 * `refused`), so a bad source answer never corrupts the stored watermark.
 */
export function stagedWatermarks(
  nodes: readonly PlanNode[],
  view: NodeView,
  kindOf: (action: string) => string | undefined,
): { staged: StagedWatermark[]; refused: Array<{ step: string; reason: string }> } {
  const byStep = new Map<string, StagedWatermark>();
  const refused: Array<{ step: string; reason: string }> = [];
  const put = (step: string, kind: string | undefined, value: unknown, found: number) => {
    if (typeof value !== 'string' || value === '') return;
    const k = kind ?? 'cursor';
    const problem = watermarkProblem(k, value);
    if (problem) refused.push({ step, reason: problem });
    else byStep.set(step, { step, kind: k as WatermarkKind, value, found });
  };
  for (const n of detectionNodes(nodes)) {
    if (view.status(n.id) !== 'completed') continue;
    const out = view.output(n.id) as Record<string, unknown> | undefined;
    if (!out) continue;
    const kind = typeof out.watermark_type === 'string' && (WATERMARK_KINDS as readonly string[]).includes(out.watermark_type) ? out.watermark_type : kindOf(n.action!);
    put(n.id, kind, out.watermark, foundCount(out));
  }
  // An explicit set_monitor_watermark wins for its step (it runs after the processing it confirms).
  for (const n of nodes) {
    if (n.action !== 'set_monitor_watermark' || view.status(n.id) !== 'completed') continue;
    const out = view.output(n.id) as { staged?: { step?: unknown; kind?: unknown; value?: unknown } } | undefined;
    const s = out?.staged;
    if (!s || typeof s.step !== 'string') continue;
    const action = nodes.find((d) => d.id === s.step)?.action;
    const kind = typeof s.kind === 'string' ? s.kind : (byStep.get(s.step)?.kind ?? (action ? kindOf(action) : undefined));
    put(s.step, kind, s.value, byStep.get(s.step)?.found ?? 0);
  }
  return { staged: [...byStep.values()], refused };
}

/** The step whose watermark a set/get_monitor_watermark node means: `params.step_name`, or the plan's only detection step. */
export function watermarkStep(nodes: readonly PlanNode[], named: unknown): { step: string } | { error: string } {
  if (typeof named === 'string' && named) return { step: named };
  const detections = detectionNodes(nodes);
  if (detections.length === 1) return { step: detections[0]!.id };
  return { error: detections.length ? `the plan has ${detections.length} detection steps (${detections.map((n) => n.id).join(', ')}): name one` : 'the plan has no detection step' };
}
