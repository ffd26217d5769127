/**
 * Housekeeping any replica may do: re-enqueue runs nobody holds, fire due
 * timers (delays, approval timeouts, onTimeout policies), purge outputs past
 * retention.
 */
import { sqlRows, type ServiceKit } from '@af/service-kit';
import type { RunRepository } from './run.repository.js';

export class RunMaintenance {
  constructor(
    private readonly kit: ServiceKit,
    private readonly repo: RunRepository,
  ) {}

  /** Runs nobody is executing: lease lapsed or never taken for a while. */
  async orphans(staleMs: number, limit: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await sqlRows(this.kit.db, 
      `SELECT id FROM runs WHERE status IN ('queued','running')
          AND (lease_until IS NULL OR lease_until < now())
          AND updated_at < now() - ($1::int * interval '1 millisecond')
        ORDER BY updated_at LIMIT $2`,
      [staleMs, limit],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Waiting runs whose timer fired — a node's (delay, approval timeout,
   * subflow deadline) or an onTimeout policy's — flipped to queued (one
   * replica wins each) and returned for enqueueing.
   */
  async dueTimers(limit: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await sqlRows(
      this.kit.db,
      `UPDATE runs SET status = 'queued', updated_at = now()
        WHERE id IN (SELECT DISTINCT n.run_id FROM node_states n JOIN runs r ON r.id = n.run_id
                      WHERE n.status = 'waiting' AND n.wait_until <= now() AND r.status = 'waiting'
                     UNION
                     SELECT id FROM runs WHERE status = 'waiting' AND policy_timer <= now()
                     LIMIT $1)
          AND status = 'waiting'
        RETURNING id`,
      [limit],
    );
    for (const { id } of rows) await this.repo.enqueue(id, `work:${id}:timer:${Date.now()}`);
    return rows.map((r) => r.id);
  }

  /**
   * Reconciliation for subflows: parked parents whose child run ended — the
   * child's finish queues its parent in the same statement, this catches
   * anything that slipped (e.g. a lost work item) — flipped to queued and
   * returned for enqueueing.
   */
  async strandedParents(limit: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await sqlRows(
      this.kit.db,
      `UPDATE runs SET status = 'queued', updated_at = now()
        WHERE id IN (SELECT n.run_id FROM node_states n JOIN runs c ON c.id = n.child_run_id JOIN runs p ON p.id = n.run_id
                      WHERE n.status = 'waiting' AND p.status = 'waiting' AND c.status IN ('completed','failed','cancelled') LIMIT $1)
          AND status = 'waiting'
        RETURNING id`,
      [limit],
    );
    for (const { id } of rows) await this.repo.enqueue(id, `work:${id}:reconcile:${Date.now()}`);
    return rows.map((r) => r.id);
  }

  /** Cancel unfinished subflow children of runs that already finished. */
  async cancelOrphanChildren(limit: number): Promise<string[]> {
    const ids = await this.repo.orphanChildren(limit);
    for (const id of ids) await this.repo.cancel(id, 'parent_finished');
    return ids;
  }

  /** Drop node outputs of runs finished more than `retentionMs` ago, and expired cache entries. */
  async purgeOutputs(retentionMs: number): Promise<number> {
    const rows = await sqlRows(
      this.kit.db,
      `DELETE FROM node_outputs o USING runs r
        WHERE o.run_id = r.id AND r.status IN ('completed','failed','cancelled')
          AND r.updated_at < now() - ($1::bigint * interval '1 millisecond')
        RETURNING o.node_id`,
      [Math.round(retentionMs)],
    );
    await sqlRows(this.kit.db, 'DELETE FROM node_cache WHERE expires_at < now()');
    return rows.length;
  }
}
