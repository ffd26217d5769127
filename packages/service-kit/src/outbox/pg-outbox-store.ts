import type { DataSource, EntityManager } from 'typeorm';
import type { OutboxMessage, OutboxRow, OutboxStore } from './outbox-relay.js';

/** DDL for a service's outbox table; include it in the service's first migration. */
export const OUTBOX_DDL = `
CREATE TABLE IF NOT EXISTS outbox (
  id bigserial PRIMARY KEY,
  subject text NOT NULL,
  payload jsonb NOT NULL,
  msg_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz
);
CREATE INDEX IF NOT EXISTS outbox_unpublished ON outbox (id) WHERE published_at IS NULL;
`;

/** Append messages inside the caller's transaction; returns the rows (with their ids, in order) to publish after the commit. */
export async function appendOutbox(manager: EntityManager, messages: OutboxMessage[]): Promise<OutboxRow[]> {
  if (messages.length === 0) return [];
  const values: unknown[] = [];
  const rows = messages.map((m, i) => {
    values.push(m.subject, JSON.stringify(m.payload), m.msgId);
    return `($${i * 3 + 1}, $${i * 3 + 2}::jsonb, $${i * 3 + 3})`;
  });
  const ids: Array<{ id: string }> = await manager.query(`INSERT INTO outbox (subject, payload, msg_id) VALUES ${rows.join(', ')} RETURNING id`, values);
  // RETURNING follows the VALUES order.
  return messages.map((m, i) => ({ ...m, id: String(ids[i]!.id) }));
}

/** Outbox rows in the service's own schema (search_path is set per service). */
export class PgOutboxStore implements OutboxStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly schema: string,
  ) {}

  async withBatch(limit: number, publish: (rows: OutboxRow[]) => Promise<string[]>, minAgeMs = 0): Promise<number> {
    return this.dataSource.transaction(async (m) => {
      const [lock] = await m.query('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS ok', [`outbox:${this.schema}`]);
      if (!lock.ok) return -1;
      const rows: Array<{ id: string; subject: string; payload: unknown; msg_id: string }> = await m.query(
        `SELECT id, subject, payload, msg_id FROM outbox
          WHERE published_at IS NULL AND created_at <= now() - ($2::int * interval '1 millisecond') ORDER BY id LIMIT $1`,
        [limit, Math.max(0, Math.round(minAgeMs))],
      );
      if (rows.length === 0) return 0;
      const done = await publish(rows.map((r) => ({ id: String(r.id), subject: r.subject, payload: r.payload, msgId: r.msg_id })));
      if (done.length) await m.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1::bigint[])', [done]);
      return done.length;
    });
  }

  /**
   * Mark rows the committer published itself, in one statement committed
   * without waiting for its WAL flush (synchronous_commit off for this
   * transaction only): losing it in a database crash only re-publishes rows,
   * which the bus drops as duplicates.
   */
  async markPublished(ids: string[]): Promise<void> {
    if (!ids.length) return;
    await this.dataSource.query(
      `WITH async_commit AS (SELECT set_config('synchronous_commit', 'off', true) AS v)
       UPDATE outbox SET published_at = now() FROM async_commit WHERE id = ANY($1::bigint[])`,
      [ids],
    );
  }

  /** Drop published rows older than `olderThanMs`. */
  async purge(olderThanMs: number): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM outbox WHERE published_at IS NOT NULL AND published_at < now() - ($1::text || ' milliseconds')::interval`,
      [String(olderThanMs)],
    );
  }
}
