/**
 * The monitor actions the orchestrator runs itself (it keeps the watermarks):
 *
 * - `detect_new_data`: calls a connector endpoint through connector-runtime
 *   and reports the records that are new since the step's stored watermark —
 *   by a date field (`timestamp`), a cursor the source hands back (`cursor`)
 *   or the content hash of the whole listing (`hash`).
 * - `get_monitor_watermark`: the stored watermark of a step.
 * - `set_monitor_watermark`: stages a step's new watermark; it is written
 *   with the run's completion, like the detection steps' own.
 *
 * Detection actions served elsewhere (files, folders and team posts by the
 * output router, entities by entity resolution) get the stored watermark as
 * `params.watermark` (`withStoredWatermark`).
 *
 * No watermark is written here: the run's completion writes them all
 * (monitor-completion.sql.ts).
 */
import type { PlanNode } from '@af/plan';
import { AppError, call } from '@af/service-kit';
import type { connector } from '@af/contracts';
import type { NodeContext, NodeExecutor, NodeExecutors } from '../../domain/node-executor.js';
import { monitorRunInfo, watermarkStep, type MonitorRunInfo } from '../../domain/monitors/monitor-run.js';
import { changedByHash, newSinceCursor, newSinceTimestamp, watermarkProblem, type Detection, type Watermark, type WatermarkKind } from '../../domain/monitors/watermark.js';
import type { MonitorWatermarkStore, StoredWatermark } from '../../infra/monitor-watermark.store.js';
import type { ConnectorLimits } from '../../infra/connector.client.js';

/** Fields tried, in order, when `date_field` is not given. */
const DATE_FIELDS = ['updated_at', 'modified_at', 'created_at', 'published_at', 'date', 'timestamp'];
const LIST_FIELDS = ['results', 'data', 'items', 'records', 'rows'];
const CURSOR_FIELDS = ['next_cursor', 'cursor', 'next'];

type WatermarkSource = Pick<MonitorWatermarkStore, 'get' | 'runPlan'>;

interface RunMonitor {
  info: MonitorRunInfo | null;
  nodes: PlanNode[];
}

async function runMonitor(store: WatermarkSource, ctx: NodeContext): Promise<RunMonitor> {
  const run = await store.runPlan(ctx.runId);
  if (!run) return { info: null, nodes: [] };
  return { info: monitorRunInfo({ runContext: run.runContext, plan: run.plan }), nodes: (run.plan.nodes ?? []) as PlanNode[] };
}

/** The watermark the step starts from: `params.watermark` when given, else the stored one (a monitor run), else none. */
async function previousWatermark(store: WatermarkSource, ctx: NodeContext, kind: WatermarkKind | null): Promise<{ previous: Watermark | null; stored: StoredWatermark | null }> {
  const given = ctx.params.watermark;
  if (typeof given === 'string' && given) {
    const k = kind ?? 'cursor';
    const problem = watermarkProblem(k, given);
    if (problem) throw AppError.invalid('params.watermark', problem);
    return { previous: { kind: k, value: given }, stored: null };
  }
  const { info } = await runMonitor(store, ctx);
  if (!info) return { previous: null, stored: null };
  const stored = await store.get(info.monitorId, ctx.node.id);
  if (stored && kind && stored.kind !== kind) {
    throw new AppError('INVALID_ARGUMENT', `step '${ctx.node.id}' keeps a ${stored.kind} watermark, but this step reads a ${kind} one: reset the monitor's watermarks for it`, {
      retryable: false,
      violations: [{ field: `nodes.${ctx.node.id}.params`, reason: `watermark kind ${stored.kind} stored, ${kind} needed`, code: 'watermark_kind_mismatch' }],
    });
  }
  return { previous: stored ? { kind: stored.kind, value: stored.value } : null, stored };
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The records of an endpoint's answer: the answer itself when a list, else its first list field. */
export function recordsOf(result: unknown): Array<Record<string, unknown>> {
  const list = Array.isArray(result) ? result : isRecord(result) ? (LIST_FIELDS.map((k) => result[k]).find(Array.isArray) ?? Object.values(result).find(Array.isArray)) : undefined;
  return ((list as unknown[] | undefined) ?? []).map((r) => (isRecord(r) ? r : { value: r }));
}

function cursorOf(result: unknown, field: string | undefined): string | null {
  if (!isRecord(result)) return null;
  const v = field ? result[field] : CURSOR_FIELDS.map((k) => result[k]).find((x) => typeof x === 'string' && x);
  return typeof v === 'string' && v ? v : null;
}

function str(ctx: NodeContext, name: string): string | undefined {
  const v = ctx.inputs[name] ?? ctx.params[name];
  return typeof v === 'string' && v ? v : undefined;
}

/** `detect_new_data`: a connector endpoint's new records since the step's watermark. */
export function detectNewDataExecutor(client: connector.ConnectorServiceClient, limits: ConnectorLimits, store: WatermarkSource): NodeExecutor {
  return async (ctx) => {
    const connectorId = str(ctx, 'connector');
    const endpoint = str(ctx, 'endpoint');
    if (!connectorId) throw AppError.invalid('inputs.connector', 'detect_new_data needs the connector id');
    if (!endpoint) throw AppError.invalid('inputs.endpoint', 'detect_new_data needs the endpoint name');
    const extra = ctx.params.extra_params ?? {};
    if (!isRecord(extra)) throw AppError.invalid('params.extra_params', 'must be an object of endpoint parameters');
    const dateField = str(ctx, 'date_field');
    const cursorParam = str(ctx, 'cursor_param');
    const sinceParam = str(ctx, 'since_param');
    // The kind follows the params: a cursor parameter → cursor; a date field (or a since parameter) → timestamp; else decided by the answer.
    const declared: WatermarkKind | null = cursorParam ? 'cursor' : dateField || sinceParam ? 'timestamp' : null;
    const { previous } = await previousWatermark(store, ctx, declared);
    const inputs: Record<string, unknown> = { ...extra };
    if (previous && cursorParam && previous.kind === 'cursor') inputs[cursorParam] = previous.value;
    if (previous && sinceParam && previous.kind === 'timestamp') inputs[sinceParam] = previous.value;
    const response = await limits.run(
      ctx.userId,
      connectorId,
      () =>
        call(
          client.executeEndpoint({
            principal: { userId: ctx.userId, teamIds: [...(ctx.teamIds ?? [])] },
            connectorId,
            endpoint,
            inputs,
            idempotencyKey: ctx.idempotencyKey,
            agentProfileId: '',
            readOnly: true,
          }),
          ctx.timeoutMs,
        ),
      ctx.signal,
    );
    const result = response.result ?? {};
    const records = recordsOf(result);
    let kind: WatermarkKind = declared ?? previous?.kind ?? 'hash';
    let field = dateField;
    if (!declared && !previous) {
      // First look without a declared kind: a date field present on the records, else a cursor in the answer, else the listing's hash.
      field = DATE_FIELDS.find((f) => records.some((r) => typeof r[f] === 'string' && !Number.isNaN(Date.parse(r[f] as string))));
      kind = field ? 'timestamp' : cursorOf(result, undefined) ? 'cursor' : 'hash';
    } else if (kind === 'timestamp' && !field) {
      field = DATE_FIELDS.find((f) => records.some((r) => typeof r[f] === 'string'));
    }
    let detection: Detection<Record<string, unknown>>;
    if (kind === 'timestamp') {
      if (!field) throw AppError.invalid('params.date_field', `the records of ${connectorId}.${endpoint} have none of ${DATE_FIELDS.join(', ')}: name the date field`);
      detection = newSinceTimestamp(records, field, previous);
    } else if (kind === 'cursor') {
      detection = newSinceCursor(records, cursorOf(result, str(ctx, 'cursor_field')), previous);
    } else {
      detection = changedByHash(records, previous);
    }
    return {
      results: detection.items,
      count: detection.count,
      watermark: detection.next.value,
      watermark_type: detection.next.kind,
      previous_watermark: previous?.value ?? null,
      ...(field && kind === 'timestamp' ? { date_field: field } : {}),
    };
  };
}

/** Detection actions served by another service: the step's stored watermark goes along as `params.watermark`. */
export function withStoredWatermark(inner: NodeExecutor, store: WatermarkSource): NodeExecutor {
  return async (ctx) => {
    if (typeof ctx.params.watermark === 'string' && ctx.params.watermark) return inner(ctx);
    const { info } = await runMonitor(store, ctx);
    const stored = info ? await store.get(info.monitorId, ctx.node.id) : null;
    if (!stored) return inner(ctx);
    // A folder's hash says whether it changed; the last check time tells adds from edits.
    const since = ctx.node.action === 'detect_folder_changes' ? { since: stored.lastCheckedAt.toISOString() } : {};
    return inner({ ...ctx, params: { ...ctx.params, watermark: stored.value, ...since } });
  };
}

const monitorOnly = (action: string) =>
  new AppError('FAILED_PRECONDITION', `${action} runs only in a monitor's run (run_context monitor, started by its monitor)`, {
    retryable: false,
    violations: [{ field: 'run_context', reason: `${action} needs a monitor run`, code: 'not_a_monitor_run' }],
  });

/** `get_monitor_watermark`: the stored watermark of a step of this run's monitor. */
export function getMonitorWatermarkExecutor(store: WatermarkSource): NodeExecutor {
  return async (ctx) => {
    const { info } = await runMonitor(store, ctx);
    if (!info) throw monitorOnly('get_monitor_watermark');
    const step = ctx.inputs.step_name;
    if (typeof step !== 'string' || !step) throw AppError.invalid('inputs.step_name', 'must name a detection step');
    const w = await store.get(info.monitorId, step);
    return { watermark: w?.value ?? null, watermark_type: w?.kind ?? null, last_checked_at: w?.lastCheckedAt.toISOString() ?? null, items_found_last: w?.itemsFoundLast ?? 0 };
  };
}

/**
 * `set_monitor_watermark`: checks and stages a step's watermark (written
 * when the run completes). The kind: `params.watermark_type`, else the
 * step's stored kind, else the kind its detection step reports this cycle
 * (or its action's); a value that does not fit it, or a kind other than the
 * stored one, is refused.
 */
export function setMonitorWatermarkExecutor(store: WatermarkSource): NodeExecutor {
  return async (ctx) => {
    const { info, nodes } = await runMonitor(store, ctx);
    if (!info) throw monitorOnly('set_monitor_watermark');
    const value = ctx.inputs.watermark;
    if (typeof value !== 'string' || !value) throw AppError.invalid('inputs.watermark', 'must be the new watermark (a non-empty string)');
    const which = watermarkStep(nodes, ctx.params.step_name);
    if ('error' in which) throw AppError.invalid('params.step_name', which.error);
    const stored = await store.get(info.monitorId, which.step);
    const asked = typeof ctx.params.watermark_type === 'string' ? ctx.params.watermark_type : undefined;
    // Neither asked nor stored: the kind is the one the detection step reports this cycle, settled when the run completes (monitor-run.ts).
    const kind = asked ?? stored?.kind;
    if (kind === undefined) return { success: true, previous_watermark: null, staged: { step: which.step, value } };
    const problem = watermarkProblem(kind, value);
    if (problem) throw AppError.invalid(problem.startsWith('watermark_type') ? 'params.watermark_type' : 'inputs.watermark', problem);
    if (stored && stored.kind !== kind) {
      throw new AppError('INVALID_ARGUMENT', `step '${which.step}' keeps a ${stored.kind} watermark, not ${kind}: reset it first`, {
        retryable: false,
        violations: [{ field: 'params.watermark_type', reason: `step '${which.step}' keeps a ${stored.kind} watermark`, code: 'watermark_kind_mismatch' }],
      });
    }
    return { success: true, previous_watermark: stored?.value ?? null, staged: { step: which.step, kind, value } };
  };
}

/** Registers the monitor actions: in-process ones, and the stored-watermark wrapper for detection actions other services serve. */
export function registerMonitorActions(
  executors: NodeExecutors,
  deps: { connectors: connector.ConnectorServiceClient; limits: ConnectorLimits; watermarks: WatermarkSource; served: NodeExecutor; readOnly: (node: PlanNode) => boolean },
): void {
  executors
    .register('tool:detect_new_data', detectNewDataExecutor(deps.connectors, deps.limits, deps.watermarks), { readOnly: () => true })
    .register('tool:get_monitor_watermark', getMonitorWatermarkExecutor(deps.watermarks), { readOnly: () => true })
    // Stages only (nothing is written until the run completes), so it may run again after a crash.
    .register('tool:set_monitor_watermark', setMonitorWatermarkExecutor(deps.watermarks), { readOnly: () => true });
  for (const action of SERVED_DETECTION_ACTIONS) executors.register(`tool:${action}`, withStoredWatermark(deps.served, deps.watermarks), { readOnly: deps.readOnly });
}

/** Detection actions another service serves (output router, entity resolution). */
export const SERVED_DETECTION_ACTIONS = ['detect_new_files', 'detect_folder_changes', 'detect_new_team_posts', 'detect_new_entities'] as const;
