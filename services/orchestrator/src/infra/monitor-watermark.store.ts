/** `agent_monitor_watermarks`: read, set (kind fixed per step) and reset. */
import { sqlRows, type ServiceKit } from '@af/service-kit';
import type { WatermarkKind } from '../domain/monitors/watermark.js';

export interface StoredWatermark {
  stepName: string;
  kind: WatermarkKind;
  value: string;
  metadata: Record<string, unknown>;
  lastCheckedAt: Date;
  itemsFoundLast: number;
  updatedAt: Date;
}

const toWatermark = (r: Record<string, any>): StoredWatermark => ({
  stepName: r.step_name,
  kind: r.watermark_type,
  value: r.watermark_value,
  metadata: r.metadata ?? {},
  lastCheckedAt: new Date(r.last_checked_at),
  itemsFoundLast: r.items_found_last,
  updatedAt: new Date(r.updated_at),
});

export class MonitorWatermarkStore {
  constructor(private readonly kit: ServiceKit) {}

  async get(monitorId: string, stepName: string): Promise<StoredWatermark | null> {
    const [row] = await sqlRows(this.kit.db, 'SELECT * FROM agent_monitor_watermarks WHERE monitor_id = $1 AND step_name = $2', [monitorId, stepName]);
    return row ? toWatermark(row) : null;
  }

  /** A run's plan metadata, context and nodes (the detection actions find their monitor through it). */
  async runPlan(runId: string): Promise<{ runContext: string; userId: string; plan: { metadata?: Record<string, unknown>; nodes?: unknown[] } } | null> {
    const [row] = await sqlRows<{ run_context: string; user_id: string; metadata: Record<string, unknown> | null; nodes: unknown[] | null }>(
      this.kit.db,
      `SELECT run_context, user_id, plan->'metadata' AS metadata, plan->'nodes' AS nodes FROM runs WHERE id = $1`,
      [runId],
    );
    return row ? { runContext: row.run_context, userId: row.user_id, plan: { metadata: row.metadata ?? {}, nodes: row.nodes ?? [] } } : null;
  }

  async list(monitorId: string): Promise<StoredWatermark[]> {
    return (await sqlRows(this.kit.db, 'SELECT * FROM agent_monitor_watermarks WHERE monitor_id = $1 ORDER BY step_name', [monitorId])).map(toWatermark);
  }

  /**
   * Set a step's watermark. A step keeps one kind: with another kind stored,
   * nothing is written and the stored watermark comes back (`conflict`).
   */
  async set(monitorId: string, w: { stepName: string; kind: WatermarkKind; value: string; metadata: Record<string, unknown> }): Promise<{ watermark: StoredWatermark; conflict: boolean }> {
    const [row] = await sqlRows(
      this.kit.db,
      `INSERT INTO agent_monitor_watermarks (monitor_id, step_name, watermark_type, watermark_value, metadata)
       VALUES ($1, $2, $3, $4, $5::jsonb)
       ON CONFLICT (monitor_id, step_name) DO UPDATE
         SET watermark_value = EXCLUDED.watermark_value, metadata = EXCLUDED.metadata, updated_at = now()
         WHERE agent_monitor_watermarks.watermark_type = EXCLUDED.watermark_type
       RETURNING *`,
      [monitorId, w.stepName, w.kind, w.value, JSON.stringify(w.metadata)],
    );
    if (row) return { watermark: toWatermark(row), conflict: false };
    const [stored] = await sqlRows(this.kit.db, 'SELECT * FROM agent_monitor_watermarks WHERE monitor_id = $1 AND step_name = $2', [monitorId, w.stepName]);
    return { watermark: toWatermark(stored!), conflict: true };
  }

  async reset(monitorId: string, stepName: string | null): Promise<number> {
    const rows = await sqlRows(this.kit.db, 'DELETE FROM agent_monitor_watermarks WHERE monitor_id = $1 AND ($2::text IS NULL OR step_name = $2) RETURNING step_name', [monitorId, stepName]);
    return rows.length;
  }
}
