import { randomUUID } from 'node:crypto';
import { sqlRows, type ServiceKit } from '@af/service-kit';

export type Claim =
  | { state: 'claimed' }
  | { state: 'completed'; result: Record<string, unknown> }
  | { state: 'failed'; error: { code: string; message: string } }
  | { state: 'in_progress'; ageMs: number };

export interface ExecutionClaimOptions {
  /** This process's id on the claims it holds (a new one per start by default). */
  instance?: string;
  /**
   * Only one connector-runtime runs on this database at a time (the in-process bus of
   * `pnpm start`): an in-progress claim of another instance is a dead process's, taken over at once.
   */
  singleProcess?: boolean;
}

/** Idempotency records for ExecuteEndpoint, keyed by `runId:nodeId:attempt`. */
export class ExecutionRepository {
  readonly instance: string;
  private readonly singleProcess: boolean;

  constructor(
    private readonly kit: ServiceKit,
    opts: ExecutionClaimOptions = {},
  ) {
    this.instance = opts.instance ?? randomUUID();
    this.singleProcess = opts.singleProcess ?? false;
  }

  /**
   * Claim the key for this call, or report what an earlier call with it did. A stale in-progress
   * claim is taken over, and in single-process mode one another (dead) instance holds.
   */
  async claim(key: string, owner: string, connectorId: string, endpoint: string, staleMs: number, windowMs: number): Promise<Claim> {
    const inserted = await sqlRows(this.kit.db, 
      `INSERT INTO executions (idempotency_key, owner_user_id, connector_id, endpoint, status, claimed_by) VALUES ($1, $2, $3, $4, 'in_progress', $7)
       ON CONFLICT (idempotency_key) DO UPDATE SET status = 'in_progress', updated_at = now(), result = NULL, error = NULL,
              created_at = now(), owner_user_id = EXCLUDED.owner_user_id, claimed_by = EXCLUDED.claimed_by
         WHERE (executions.status = 'in_progress' AND executions.updated_at < now() - ($5::int * interval '1 millisecond'))
            OR ($8::boolean AND executions.status = 'in_progress' AND executions.claimed_by IS DISTINCT FROM $7 AND executions.owner_user_id = EXCLUDED.owner_user_id)
            OR executions.created_at < now() - ($6::bigint * interval '1 millisecond')
       RETURNING idempotency_key`,
      [key, owner, connectorId, endpoint, staleMs, windowMs, this.instance, this.singleProcess],
    );
    if (inserted.length) return { state: 'claimed' };
    const rows = await sqlRows(this.kit.db, 
      'SELECT status, result, error, owner_user_id, extract(epoch from (now() - updated_at)) * 1000 AS age_ms FROM executions WHERE idempotency_key = $1',
      [key],
    );
    const row = rows[0];
    if (!row) return this.claim(key, owner, connectorId, endpoint, staleMs, windowMs);
    if (row.owner_user_id !== owner) return { state: 'failed', error: { code: 'ALREADY_EXISTS', message: 'idempotency key belongs to another caller' } };
    if (row.status === 'completed') return { state: 'completed', result: row.result };
    if (row.status === 'failed') return { state: 'failed', error: row.error };
    return { state: 'in_progress', ageMs: Number(row.age_ms) };
  }

  async complete(key: string, result: Record<string, unknown>): Promise<void> {
    await sqlRows(this.kit.db, `UPDATE executions SET status = 'completed', result = $2::jsonb, updated_at = now() WHERE idempotency_key = $1`, [
      key,
      JSON.stringify(result),
    ]);
  }

  /** Permanent failures are remembered (a replay fails the same way); transient ones release the key. */
  async fail(key: string, error: { code: string; message: string }, permanent: boolean): Promise<void> {
    if (permanent) {
      await sqlRows(this.kit.db, `UPDATE executions SET status = 'failed', error = $2::jsonb, updated_at = now() WHERE idempotency_key = $1`, [
        key,
        JSON.stringify(error),
      ]);
    } else {
      await sqlRows(this.kit.db, 'DELETE FROM executions WHERE idempotency_key = $1', [key]);
    }
  }

  async heartbeat(key: string): Promise<void> {
    await sqlRows(this.kit.db, `UPDATE executions SET updated_at = now() WHERE idempotency_key = $1 AND status = 'in_progress'`, [key]);
  }
}
