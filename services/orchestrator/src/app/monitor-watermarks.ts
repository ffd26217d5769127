/**
 * Watermark use cases of a monitor: list, set, reset. Owner only (another
 * user's monitor, or a schedule that is no monitor, is NOT_FOUND). A value
 * must fit its kind, and a step's kind cannot change without a reset.
 */
import { AppError } from '@af/service-kit';
import { watermarkProblem, type WatermarkKind } from '../domain/monitors/watermark.js';
import type { MonitorWatermarkStore, StoredWatermark } from '../infra/monitor-watermark.store.js';
import type { ScheduleCommands } from './schedule-commands.js';

const STEP = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

export class MonitorWatermarks {
  constructor(
    private readonly schedules: ScheduleCommands,
    private readonly store: MonitorWatermarkStore,
  ) {}

  async list(userId: string, monitorId: string): Promise<StoredWatermark[]> {
    await this.monitor(userId, monitorId);
    return this.store.list(monitorId);
  }

  async set(userId: string, monitorId: string, w: { stepName: string; kind: string; value: string; metadata: Record<string, unknown> }): Promise<StoredWatermark> {
    await this.monitor(userId, monitorId);
    if (!STEP.test(w.stepName)) throw AppError.invalid('step_name', 'must be a step name (letters, digits, _ . -; at most 128)');
    const problem = watermarkProblem(w.kind, w.value);
    if (problem) throw AppError.invalid(problem.startsWith('watermark_type') ? 'watermark_type' : 'watermark_value', problem);
    const { watermark, conflict } = await this.store.set(monitorId, { ...w, kind: w.kind as WatermarkKind });
    if (conflict) throw AppError.invalid('watermark_type', `step '${w.stepName}' keeps a ${watermark.kind} watermark, not ${w.kind}: reset it first`, 'watermark_kind_mismatch');
    return watermark;
  }

  async reset(userId: string, monitorId: string, stepName: string): Promise<number> {
    await this.monitor(userId, monitorId);
    return this.store.reset(monitorId, stepName || null);
  }

  private async monitor(userId: string, id: string): Promise<void> {
    const s = await this.schedules.get(userId, id);
    if (!s.definition.monitor) throw AppError.notFound('monitor', id);
  }
}
