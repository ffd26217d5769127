/** ActionRecords in the serving service's own schema (table `action_executions`, see ActionExecutions1765000000000). */
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlRows, type Queryable } from '../db/sql.js';
import type { ActionReceipt } from './action-handler.js';
import type { ActionClaim, ActionRecords, StoredActionError } from './action-records.js';

export class PgActionRecords implements ActionRecords {
  constructor(private readonly db: Queryable) {}

  async claim(key: string, action: string, userId: string, staleMs: number): Promise<ActionClaim> {
    const claimed = await sqlRows(
      this.db,
      `INSERT INTO action_executions (idempotency_key, action, owner_user_id, status) VALUES ($1, $2, $3, 'in_progress')
       ON CONFLICT (idempotency_key) DO UPDATE SET updated_at = now()
         WHERE action_executions.status = 'in_progress'
           AND action_executions.updated_at < now() - ($4::int * interval '1 millisecond')
           AND action_executions.action = EXCLUDED.action AND action_executions.owner_user_id = EXCLUDED.owner_user_id
       RETURNING receipt`,
      [key, action, userId, staleMs],
    );
    // A claim taken over keeps its checkpoint (a new one has none).
    if (claimed.length) return claimed[0].receipt != null ? { state: 'claimed', prior: claimed[0].receipt } : { state: 'claimed' };
    const [row] = await sqlRows(this.db, 'SELECT action, owner_user_id, status, outputs, error, receipt FROM action_executions WHERE idempotency_key = $1', [
      key,
    ]);
    // Released between the two statements (a transient failure): claim again.
    if (!row) return this.claim(key, action, userId, staleMs);
    if (row.action !== action) return { state: 'conflict', reason: `was used for action ${row.action}, not ${action}` };
    if (row.owner_user_id !== userId) return { state: 'conflict', reason: 'belongs to another caller' };
    if (row.status === 'completed' && row.outputs == null && row.receipt != null) return { state: 'receipted', receipt: row.receipt };
    if (row.status === 'completed') return { state: 'completed', outputs: row.outputs ?? {} };
    if (row.status === 'failed') return { state: 'failed', error: row.error };
    return { state: 'in_progress' };
  }

  async complete(key: string, outputs: Record<string, unknown>): Promise<void> {
    await sqlRows(this.db, `UPDATE action_executions SET status = 'completed', outputs = $2::jsonb, updated_at = now() WHERE idempotency_key = $1`, [
      key,
      JSON.stringify(outputs),
    ]);
  }

  async fail(key: string, error: StoredActionError, permanent: boolean): Promise<void> {
    if (permanent) {
      await sqlRows(this.db, `UPDATE action_executions SET status = 'failed', error = $2::jsonb, updated_at = now() WHERE idempotency_key = $1 AND status = 'in_progress'`, [
        key,
        JSON.stringify(error),
      ]);
    } else {
      await sqlRows(this.db, `DELETE FROM action_executions WHERE idempotency_key = $1 AND status = 'in_progress'`, [key]);
    }
  }

  async heartbeat(key: string): Promise<void> {
    await sqlRows(this.db, `UPDATE action_executions SET updated_at = now() WHERE idempotency_key = $1 AND status = 'in_progress'`, [key]);
  }
}

/**
 * The statement a handler's own write runs (alone, or as a data-modifying CTE of its write) to record
 * its receipt; `param` adds a value to that statement and answers its placeholder. `final`: the call
 * is complete (else a checkpoint). On a claimed call it matches only while the call is in progress;
 * on an optimistic one (not claimed) it creates the record, and matches nothing when the key is
 * recorded already. Either way no row means another holder finished the call (ReceiptSuperseded).
 */
export function receiptSql(r: ActionReceipt, param: (value: unknown) => string, receipt: unknown, final: boolean): string {
  const [key, body] = [param(r.key), param(JSON.stringify(receipt))];
  if (!r.claimed)
    return `INSERT INTO action_executions (idempotency_key, action, owner_user_id, status, receipt)
     VALUES (${key}, ${param(r.action)}, ${param(r.userId)}, '${final ? 'completed' : 'in_progress'}', ${body}::jsonb)
     ON CONFLICT (idempotency_key) DO NOTHING`;
  return `UPDATE action_executions SET receipt = ${body}::jsonb, updated_at = now()${final ? ", status = 'completed'" : ''}
     WHERE idempotency_key = ${key} AND status = 'in_progress'`;
}

/** `receiptSql` as its own statement, on `q` (the handler's transaction): false when another holder finished the call. */
export async function writeReceipt(q: Queryable, r: ActionReceipt, receipt: unknown, final: boolean): Promise<boolean> {
  const params: unknown[] = [];
  const sql = receiptSql(r, (v) => `$${params.push(v)}`, receipt, final);
  return (await sqlRows(q, `${sql} RETURNING 1`, params)).length > 0;
}

/** Add to the migrations of every service that serves actions (it runs in that service's schema). */
export class ActionExecutions1765000000000 implements MigrationInterface {
  name = 'ActionExecutions1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE action_executions (
        idempotency_key text PRIMARY KEY,
        action text NOT NULL,
        owner_user_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('in_progress','completed','failed')),
        outputs jsonb,
        error jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX action_executions_created_at ON action_executions (created_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE action_executions');
  }
}

/** The receipt a handler's own write records (ActionReceipt); add after ActionExecutions1765000000000. */
export class ActionReceipts1766800000000 implements MigrationInterface {
  name = 'ActionReceipts1766800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE action_executions ADD COLUMN receipt jsonb');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE action_executions DROP COLUMN receipt');
  }
}
