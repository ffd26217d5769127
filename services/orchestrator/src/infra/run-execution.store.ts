/**
 * What an executor writes while it owns a run: lease take/renew/release and
 * every state transition, each ONE statement fenced by the lease — a replica
 * that lost a run cannot write to it any more.
 */
import { sqlRows, type ServiceKit } from '@af/service-kit';
import type { Run } from '../domain/run-state.js';
import { toRun, type RunRow } from './run.repository.js';

export class LeaseLostError extends Error {
  constructor(runId: string) {
    super(`lease on run ${runId} lost`);
    this.name = 'LeaseLostError';
  }
}

export class RunExecutionStore {
  constructor(private readonly kit: ServiceKit) {}

  /** Take or renew the lease; returns the run if this owner now holds it and it is not finished. */
  async acquireLease(runId: string, owner: string, leaseMs: number): Promise<Run | null> {
    const rows: RunRow[] = await sqlRows(this.kit.db, 
      `UPDATE runs SET lease_owner = $2, lease_until = now() + ($3::int * interval '1 millisecond'),
              status = CASE WHEN status = 'queued' THEN 'running' ELSE status END, updated_at = now()
        WHERE id = $1 AND status IN ('queued','running')
          AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < now())
        RETURNING *`,
      [runId, owner, leaseMs],
    );
    return rows[0] ? toRun(rows[0]) : null;
  }

  async renewLease(runId: string, owner: string, leaseMs: number): Promise<boolean> {
    const rows = await sqlRows(this.kit.db, 
      `UPDATE runs SET lease_until = now() + ($3::int * interval '1 millisecond')
        WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING id`,
      [runId, owner, leaseMs],
    );
    return rows.length > 0;
  }

  async releaseLease(runId: string, owner: string): Promise<void> {
    await sqlRows(this.kit.db, 'UPDATE runs SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2', [runId, owner]);
  }

  async nodeStarted(runId: string, owner: string, nodeId: string, attempt: number, payload: Record<string, unknown>): Promise<void> {
    await this.transition(
      { runId, owner, type: 'node_start', nodeId, payload: { attempt, ...payload } },
      `UPDATE node_states SET status = 'running', attempt = $8, error = NULL, started_at = now()
        WHERE run_id = $1::uuid AND node_id = $4::text AND EXISTS (SELECT 1 FROM r)`,
      [attempt],
    );
  }

  /** `aliasNodeId`: also store the output under this node (a fallback standing in for its primary). */
  async nodeCompleted(
    runId: string,
    owner: string,
    nodeId: string,
    output: unknown,
    payload: Record<string, unknown>,
    aliasNodeId?: string,
    /** When given, the node's `node_start` frame is written in the same statement, just before. */
    startPayload?: Record<string, unknown>,
  ): Promise<void> {
    await this.transition(
      { runId, owner, type: 'node_complete', nodeId, payload, ...(startPayload ? { before: { type: 'node_start', payload: startPayload } } : {}) },
      `UPDATE node_states SET status = 'completed', finished_at = now(), wait_until = NULL,
              started_at = COALESCE(started_at, now()), attempt = COALESCE($10::int, attempt)
        WHERE run_id = $1::uuid AND node_id = $4::text AND EXISTS (SELECT 1 FROM r)
     ), o AS (
       INSERT INTO node_outputs (run_id, node_id, output)
       SELECT $1::uuid, n, $8::jsonb FROM r, unnest($9::text[]) AS n
       ON CONFLICT (run_id, node_id) DO UPDATE SET output = EXCLUDED.output, created_at = now()`,
      [JSON.stringify(output ?? null), aliasNodeId ? [nodeId, aliasNodeId] : [nodeId], typeof payload.attempt === 'number' ? payload.attempt : null],
    );
  }

  /** A node ended without output: failed (event `node_error`) or skipped (event `node_complete` with `skipped`). */
  async nodeEnded(
    runId: string,
    owner: string,
    nodeId: string,
    status: 'failed' | 'skipped',
    error: string | null,
    payload: Record<string, unknown>,
    skipReason: string | null = null,
  ): Promise<void> {
    await this.transition(
      { runId, owner, type: status === 'failed' ? 'node_error' : 'node_complete', nodeId, payload },
      `UPDATE node_states SET status = $8::text, error = $9::text, skip_reason = $10::text, finished_at = now(), wait_until = NULL
        WHERE run_id = $1::uuid AND node_id = $4::text AND EXISTS (SELECT 1 FROM r)`,
      [status, error, skipReason],
    );
  }

  /** A node starts waiting (approval or delay), fenced by the lease; `frame` is emitted with it. */
  async nodeWaiting(
    runId: string,
    owner: string,
    nodeId: string,
    waitUntil: Date | null,
    frame: { type: string; payload: Record<string, unknown> } | null,
  ): Promise<void> {
    if (frame) {
      await this.transition(
        { runId, owner, type: frame.type, nodeId, payload: frame.payload },
        `UPDATE node_states SET status = 'waiting', wait_until = $8::timestamptz
          WHERE run_id = $1::uuid AND node_id = $4::text AND EXISTS (SELECT 1 FROM r)`,
        [waitUntil],
      );
      return;
    }
    await this.kit.transaction(async (tx) => {
      await this.fence(tx, runId, owner);
      await sqlRows(tx, `UPDATE node_states SET status = 'waiting', wait_until = $3 WHERE run_id = $1 AND node_id = $2`, [runId, nodeId, waitUntil]);
    });
  }

  async finish(runId: string, owner: string, status: 'completed' | 'failed', error: string | null, payload: Record<string, unknown>): Promise<void> {
    await this.transition(
      { runId, owner, type: 'complete', payload: { status, ...(error ? { error } : {}), ...payload } },
      `UPDATE node_states SET status = 'cancelled' WHERE run_id = $1::uuid AND status IN ('pending','running','waiting') AND EXISTS (SELECT 1 FROM r)`,
      [],
      { status, error },
    );
  }

  /**
   * Park a run nothing can move: release the lease and mark it waiting — unless
   * a waiting node became resolvable meanwhile (then false: keep executing).
   */
  async park(runId: string, owner: string): Promise<boolean> {
    const rows = await sqlRows(
      this.kit.db,
      `UPDATE runs SET status = 'waiting', lease_owner = NULL, lease_until = NULL, updated_at = now()
        WHERE id = $1 AND lease_owner = $2 AND status = 'running'
          AND NOT EXISTS (SELECT 1 FROM node_states WHERE run_id = $1 AND status = 'waiting'
                           AND (decision IS NOT NULL OR wait_until <= now()))
        RETURNING id`,
      [runId, owner],
    );
    if (rows.length) return true;
    await this.fence(this.kit.db, runId, owner);
    return false;
  }

  /** A cached node output that has not expired, or undefined. */
  async cacheGet(userId: string, key: string): Promise<{ output: unknown } | undefined> {
    const rows = await sqlRows(this.kit.db, 'SELECT output FROM node_cache WHERE user_id = $1 AND key = $2 AND expires_at > now()', [userId, key]);
    return rows[0] ? { output: rows[0].output } : undefined;
  }

  async cachePut(userId: string, key: string, output: unknown, ttlSeconds: number): Promise<void> {
    await sqlRows(
      this.kit.db,
      `INSERT INTO node_cache (user_id, key, output, expires_at) VALUES ($1, $2, $3::jsonb, now() + ($4::int * interval '1 second'))
       ON CONFLICT (user_id, key) DO UPDATE SET output = EXCLUDED.output, expires_at = EXCLUDED.expires_at`,
      [userId, key, JSON.stringify(output ?? null), ttlSeconds],
    );
  }

  /**
   * One state transition of a running run as ONE statement (one round trip,
   * atomic on its own): bump the per-run sequence — fenced by the lease —,
   * append the event row and its outbox message, and apply `change` (SQL that
   * may use $1 run id, $4 node id and its own params from $8, and must only
   * act `WHERE EXISTS (SELECT 1 FROM r)`). Throws LeaseLostError when fenced.
   * With `frame.before`, two frames (seq n-1 and n) are written at once.
   */
  private async transition(
    frame: {
      runId: string;
      owner: string;
      type: string;
      nodeId?: string;
      payload: Record<string, unknown>;
      /** A frame committed just before this one, in the same statement (seq n-1). */
      before?: { type: string; payload: Record<string, unknown> };
    },
    change: string,
    params: unknown[],
    finish?: { status: string; error: string | null },
  ): Promise<number> {
    const timestamp = new Date().toISOString();
    const frames = [...(frame.before ? [frame.before] : []), { type: frame.type, payload: frame.payload }];
    // $1 run, $2 owner, $3 time, $4 node, $5 subject prefix, $6 frame types, $7 frame payloads; `change` params from $8.
    const runUpdate = finish ? `status = $${8 + params.length}::text, error = $${9 + params.length}::text, lease_owner = NULL, lease_until = NULL,` : '';
    const rows = await sqlRows<{ last_seq: string }>(
      this.kit.db,
      `WITH r AS (
         UPDATE runs SET ${runUpdate} last_seq = last_seq + ${frames.length}, updated_at = now()
          WHERE id = $1::uuid AND lease_owner = $2::text AND status = 'running' RETURNING last_seq
       ), f AS (
         SELECT r.last_seq - ${frames.length} + x.i AS seq, x.type, x.payload
           FROM r, unnest($6::text[], $7::jsonb[]) WITH ORDINALITY AS x(type, payload, i)
       ), e AS (
         INSERT INTO run_events (run_id, seq, type, node_id, payload, created_at)
         SELECT $1::uuid, seq, type, $4::text, payload, $3::timestamptz FROM f
       ), ob AS (
         INSERT INTO outbox (subject, payload, msg_id)
         SELECT $5::text || type,
                jsonb_build_object('runId', $1::text, 'seq', seq, 'type', type, 'timestamp', $3::text, 'payload', payload)
                  || CASE WHEN $4::text IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('nodeId', $4::text) END,
                'run:' || $1::text || ':' || seq
           FROM f ORDER BY seq
       ), c AS (
         ${change}
       )
       SELECT last_seq FROM r`,
      [
        frame.runId,
        frame.owner,
        timestamp,
        frame.nodeId ?? null,
        this.kit.subjects.run(frame.runId, ''),
        frames.map((f) => f.type),
        frames.map((f) => JSON.stringify(f.payload)),
        ...params,
        ...(finish ? [finish.status, finish.error] : []),
      ],
    );
    if (!rows.length) throw new LeaseLostError(frame.runId);
    for (const f of frames) this.kit.metrics.events.inc({ type: f.type });
    this.kit.relay.kick();
    return Number(rows[0]!.last_seq);
  }

  /** Throws LeaseLostError unless `owner` holds the lease on a running run. */
  private async fence(q: { query(sql: string, params?: unknown[]): Promise<unknown> }, runId: string, owner: string): Promise<void> {
    const rows = await sqlRows(q, `SELECT 1 FROM runs WHERE id = $1 AND lease_owner = $2 AND status = 'running'`, [runId, owner]);
    if (!rows.length) throw new LeaseLostError(runId);
  }
}
