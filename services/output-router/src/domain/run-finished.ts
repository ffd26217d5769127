/**
 * The notification that tells a run's owner their background or scheduled
 * run has ended: who asked, the outcome, a link. Built from the
 * orchestrator's `complete` frame (`af.run.<runId>.complete`), which carries
 * `requested_by`, `run_context` and `run_name` for unattended runs.
 */
export interface RunFinishedNotice {
  owner: string;
  runId: string;
  title: string;
  message: string;
  priority: 'normal' | 'high';
  actionUrl: string;
}

const UNATTENDED = new Set(['background', 'scheduled']);

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The notice of a complete frame, or undefined when nobody is to be told (interactive runs, frames without an owner). */
export function runFinishedNotice(event: unknown, linkBase: string): RunFinishedNotice | undefined {
  if (event === null || typeof event !== 'object') return undefined;
  const e = event as { type?: unknown; runId?: unknown; payload?: unknown };
  const p = (e.payload && typeof e.payload === 'object' ? e.payload : {}) as Record<string, unknown>;
  const runId = str(e.runId);
  const owner = str(p.requested_by);
  const context = str(p.run_context);
  if (e.type !== 'complete' || !runId || !owner || !UNATTENDED.has(context)) return undefined;
  const status = str(p.status) || 'finished';
  const name = str(p.run_name) || 'Your run';
  const failed = status !== 'completed';
  const steps = [
    num(p.steps_completed) !== undefined ? `${p.steps_completed} steps completed` : '',
    num(p.steps_failed) ? `${p.steps_failed} failed` : '',
    num(p.steps_skipped) ? `${p.steps_skipped} skipped` : '',
  ].filter(Boolean);
  const delivered = Array.isArray(p.routed_to) && p.routed_to.length ? `Output delivered to ${p.routed_to.join(', ')}.` : '';
  const why = failed && str(p.error) ? `Error: ${str(p.error).slice(0, 500)}` : '';
  return {
    owner,
    runId,
    title: `${name} ${failed ? (status === 'cancelled' ? 'was cancelled' : 'failed') : 'completed'}`.slice(0, 200),
    message: [`Your ${context} run ${runId} ${failed ? `ended ${status}` : 'completed'}${steps.length ? ` (${steps.join(', ')})` : ''}.`, delivered, why]
      .filter(Boolean)
      .join(' '),
    priority: failed ? 'high' : 'normal',
    actionUrl: `${linkBase.replace(/\/+$/, '')}/${runId}`,
  };
}
