/**
 * The delivery log: one row per delivery key (`runId:nodeId:<destination>`,
 * stable across attempts). A workspace write runs in the same transaction
 * as its log row, so the write and the record commit together; a replay
 * (the same node again, any attempt, any replica) finds the row and answers
 * the first delivery's details without writing again. Two concurrent
 * replays serialise on the row's primary key.
 */
import { sqlRows, type Queryable } from '@af/service-kit';

type Tx = Queryable & { transaction<T>(fn: (m: Queryable) => Promise<T>): Promise<T> };

export interface Delivery<T> {
  details: T;
  /** True when an earlier call delivered it and nothing was written now. */
  replayed: boolean;
}

export class DeliveryLog {
  constructor(private readonly db: Tx) {}

  /** Runs `write` once per key, in one transaction with the log row; without a key (calls outside a run) it simply runs. */
  async once<T extends Record<string, unknown>>(
    key: string,
    owner: string,
    destination: string,
    write: (q: Queryable) => Promise<T>,
  ): Promise<Delivery<T>> {
    if (!key) return { details: await this.db.transaction(write), replayed: false };
    return this.db.transaction(async (q) => {
      const claimed = await sqlRows(
        q,
        `INSERT INTO deliveries (delivery_key, owner_user_id, destination, status, attempts) VALUES ($1,$2,$3,'in_progress',1)
         ON CONFLICT (delivery_key) DO NOTHING RETURNING delivery_key`,
        [key, owner, destination],
      );
      if (!claimed.length) {
        const [row] = await sqlRows(
          q,
          'SELECT status, details FROM deliveries WHERE delivery_key = $1 FOR UPDATE',
          [key],
        );
        if (row.status === 'delivered') return { details: row.details as T, replayed: true };
        await sqlRows(
          q,
          `UPDATE deliveries SET status = 'in_progress', attempts = attempts + 1, updated_at = now() WHERE delivery_key = $1`,
          [key],
        );
      }
      const details = await write(q);
      await sqlRows(
        q,
        `UPDATE deliveries SET status = 'delivered', details = $2, updated_at = now() WHERE delivery_key = $1`,
        [key, JSON.stringify(details)],
      );
      return { details, replayed: false };
    });
  }

  /** Records a delivery made outside the database (a webhook), or a failure, for the report and replays. */
  async record(
    key: string,
    owner: string,
    destination: string,
    status: 'in_progress' | 'delivered' | 'failed',
    details: Record<string, unknown>,
  ): Promise<void> {
    if (!key) return;
    await sqlRows(
      this.db,
      `INSERT INTO deliveries (delivery_key, owner_user_id, destination, status, details, attempts) VALUES ($1,$2,$3,$4,$5,1)
       ON CONFLICT (delivery_key) DO UPDATE SET status = EXCLUDED.status, details = EXCLUDED.details, attempts = deliveries.attempts + 1, updated_at = now()`,
      [key, owner, destination, status, JSON.stringify(details)],
    );
  }

  async find(key: string): Promise<{ status: string; details: Record<string, unknown> } | undefined> {
    if (!key) return undefined;
    const [row] = await sqlRows(this.db, 'SELECT status, details FROM deliveries WHERE delivery_key = $1', [
      key,
    ]);
    return row ? { status: row.status, details: row.details } : undefined;
  }

  /** Count of delivered rows of a key prefix (tests, reports). */
  async count(prefix: string): Promise<number> {
    const [row] = await sqlRows(
      this.db,
      `SELECT count(*)::int AS n FROM deliveries WHERE status = 'delivered' AND starts_with(delivery_key, $1)`,
      [prefix],
    );
    return row.n;
  }
}
