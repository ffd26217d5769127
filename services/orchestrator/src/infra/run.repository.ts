/**
 * Run persistence. Every state change and the event describing it are one
 * transaction (state + run_events + outbox); writes by an executor are fenced
 * by its lease, so a replica that lost a run cannot write to it any more.
 */
import { randomUUID } from 'node:crypto';
import { AppError, sqlRows, type OutboxMessage, type ServiceKit } from '@af/service-kit';
import type { PlanGraph } from '@af/plan';
import type { EntityManager } from 'typeorm';
import type { Decision, NodeState, NodeStatus, Run, RunFrame, RunStatus, RunView } from '../domain/run-state.js';

export class LeaseLostError extends Error {
  constructor(runId: string) {
    super(`lease on run ${runId} lost`);
    this.name = 'LeaseLostError';
  }
}

type Emit = (...msgs: OutboxMessage[]) => void;

interface RunRow {
  id: string;
  user_id: string;
  status: RunStatus;
  run_context: string;
  plan: PlanGraph;
  plan_version: number;
  inputs: Record<string, unknown>;
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

const toRun = (r: RunRow): Run => ({
  id: r.id,
  userId: r.user_id,
  status: r.status,
  runContext: r.run_context,
  plan: r.plan,
  planVersion: r.plan_version,
  inputs: r.inputs,
  error: r.error,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export class RunRepository {
  constructor(private readonly kit: ServiceKit) {}

  /** Create the run, its node states, the `start` frame and the work item — or return the run an earlier call with the same key created. */
  async create(input: {
    userId: string;
    plan: PlanGraph;
    inputs: Record<string, unknown>;
    runContext: string;
    idempotencyKey: string | null;
  }): Promise<{ run: Run; created: boolean }> {
    return this.kit.transaction(async (m, emit) => {
      const id = randomUUID();
      const inserted: RunRow[] = await sqlRows(m, 
        `INSERT INTO runs (id, user_id, status, run_context, plan, inputs, idempotency_key)
         VALUES ($1, $2, 'queued', $3, $4::jsonb, $5::jsonb, $6)
         ON CONFLICT (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
         RETURNING *`,
        [id, input.userId, input.runContext, JSON.stringify(input.plan), JSON.stringify(input.inputs), input.idempotencyKey],
      );
      if (inserted.length === 0) {
        const [existing]: RunRow[] = await sqlRows(m, 'SELECT * FROM runs WHERE user_id = $1 AND idempotency_key = $2', [
          input.userId,
          input.idempotencyKey,
        ]);
        return { run: toRun(existing!), created: false };
      }
      const nodeIds = input.plan.nodes.map((n) => n.id);
      await sqlRows(m, 
        `INSERT INTO node_states (run_id, node_id, status) SELECT $1, unnest($2::text[]), 'pending'`,
        [id, nodeIds],
      );
      await this.appendEvent(m, emit, id, 'start', undefined, {
        planVersion: 1,
        nodeCount: nodeIds.length,
        runContext: input.runContext,
      });
      emit({ subject: this.kit.subjects.runWork(id), payload: { runId: id }, msgId: `work:${id}:start` });
      return { run: toRun(inserted[0]!), created: true };
    });
  }

  async get(runId: string): Promise<Run | null> {
    const rows: RunRow[] = await sqlRows(this.kit.db, 'SELECT * FROM runs WHERE id = $1', [runId]);
    return rows[0] ? toRun(rows[0]) : null;
  }

  async view(runId: string): Promise<RunView | null> {
    const run = await this.get(runId);
    if (!run) return null;
    const nodes = await this.nodeStates(runId);
    const outputs = await this.outputs(runId);
    const byKey: Record<string, unknown> = {};
    for (const node of run.plan.nodes) if (outputs.has(node.id)) byKey[node.outputKey ?? node.id] = outputs.get(node.id);
    // In plan order, so callers can rely on positions.
    const ordered = run.plan.nodes.map((n) => nodes.get(n.id)).filter((n): n is NodeState => !!n);
    return { ...run, nodes: ordered, outputs: byKey };
  }

  async nodeStates(runId: string): Promise<Map<string, NodeState>> {
    const rows: Array<{
      node_id: string;
      status: NodeStatus;
      attempt: number;
      error: string | null;
      started_at: Date | null;
      finished_at: Date | null;
      wait_until: Date | null;
      skip_reason: string | null;
      decision: Decision | null;
    }> = await sqlRows(this.kit.db, 'SELECT * FROM node_states WHERE run_id = $1', [runId]);
    return new Map(
      rows.map((r) => [
        r.node_id,
        {
          nodeId: r.node_id,
          status: r.status,
          attempt: r.attempt,
          error: r.error,
          startedAt: r.started_at,
          finishedAt: r.finished_at,
          waitUntil: r.wait_until,
          skipReason: r.skip_reason,
          decision: r.decision,
        },
      ]),
    );
  }

  /** Runs of one user, newest first, keyset-paged by (created_at, id). */
  async list(userId: string, statuses: RunStatus[], limit: number, after: { createdAt: string; id: string } | null): Promise<Run[]> {
    const rows: RunRow[] = await sqlRows(
      this.kit.db,
      `SELECT * FROM runs WHERE user_id = $1
          AND (cardinality($2::text[]) = 0 OR status = ANY($2::text[]))
          AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
        ORDER BY created_at DESC, id DESC LIMIT $5`,
      [userId, statuses, after?.createdAt ?? null, after?.id ?? null, limit],
    );
    return rows.map(toRun);
  }

  /** A node starts waiting (approval or delay), fenced by the lease; `frame` is emitted with it. */
  async nodeWaiting(
    runId: string,
    owner: string,
    nodeId: string,
    waitUntil: Date | null,
    frame: { type: string; payload: Record<string, unknown> } | null,
  ): Promise<void> {
    await this.kit.transaction(async (m, emit) => {
      if (frame) await this.appendEvent(m, emit, runId, frame.type, nodeId, frame.payload, owner);
      else await this.fence(m, runId, owner);
      await sqlRows(m, `UPDATE node_states SET status = 'waiting', wait_until = $3 WHERE run_id = $1 AND node_id = $2`, [runId, nodeId, waitUntil]);
    });
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

  /** Waiting runs whose timer fired: flipped to queued (one replica wins each) and returned for enqueueing. */
  async dueTimers(limit: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await sqlRows(
      this.kit.db,
      `UPDATE runs SET status = 'queued', updated_at = now()
        WHERE id IN (SELECT DISTINCT n.run_id FROM node_states n JOIN runs r ON r.id = n.run_id
                      WHERE n.status = 'waiting' AND n.wait_until <= now() AND r.status = 'waiting' LIMIT $1)
          AND status = 'waiting'
        RETURNING id`,
      [limit],
    );
    for (const { id } of rows) await this.enqueue(id, `work:${id}:timer:${Date.now()}`);
    return rows.map((r) => r.id);
  }

  /** Pause a run that is not finished; false when it is finished or already paused. */
  async pause(runId: string, by: string): Promise<boolean> {
    return this.kit.transaction(async (m, emit) => {
      const rows = await sqlRows(
        m,
        `UPDATE runs SET status = 'paused', lease_owner = NULL, lease_until = NULL, updated_at = now()
          WHERE id = $1 AND status IN ('queued','running','waiting') RETURNING id`,
        [runId],
      );
      if (!rows.length) return false;
      await this.appendEvent(m, emit, runId, 'log', undefined, { event: 'paused', by });
      return true;
    });
  }

  /**
   * Record a decision on a waiting node and/or un-pause; the run is queued
   * again when it was paused or parked. Returns what was wrong, or null.
   */
  async resume(
    runId: string,
    decide: { nodeId: string; decision: Decision } | null,
  ): Promise<'not_resumable' | 'node_not_waiting' | null> {
    return this.kit.transaction(async (m, emit) => {
      const [run] = await sqlRows<{ status: RunStatus }>(m, 'SELECT status FROM runs WHERE id = $1 FOR UPDATE', [runId]);
      if (!run) throw AppError.notFound('run', runId);
      if (!decide && run.status !== 'paused') return 'not_resumable';
      if (decide && !['paused', 'waiting', 'running', 'queued'].includes(run.status)) return 'not_resumable';
      if (decide) {
        const updated = await sqlRows(
          m,
          `UPDATE node_states SET decision = $3::jsonb WHERE run_id = $1 AND node_id = $2 AND status = 'waiting' AND decision IS NULL RETURNING node_id`,
          [runId, decide.nodeId, JSON.stringify(decide.decision)],
        );
        if (!updated.length) return 'node_not_waiting';
        await this.appendEvent(m, emit, runId, 'log', decide.nodeId, {
          event: 'decision',
          decision: decide.decision.decision,
          decidedBy: decide.decision.decidedBy,
        });
      } else {
        await this.appendEvent(m, emit, runId, 'log', undefined, { event: 'resumed' });
      }
      if (run.status === 'paused' || run.status === 'waiting') {
        await sqlRows(m, `UPDATE runs SET status = 'queued', updated_at = now() WHERE id = $1`, [runId]);
        emit({ subject: this.kit.subjects.runWork(runId), payload: { runId }, msgId: `work:${runId}:resume:${Date.now()}` });
      }
      return null;
    });
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

  /** Throws LeaseLostError unless `owner` holds the lease on a running run. */
  private async fence(q: { query(sql: string, params?: unknown[]): Promise<unknown> }, runId: string, owner: string): Promise<void> {
    const rows = await sqlRows(q, `SELECT 1 FROM runs WHERE id = $1 AND lease_owner = $2 AND status = 'running'`, [runId, owner]);
    if (!rows.length) throw new LeaseLostError(runId);
  }

  async outputs(runId: string): Promise<Map<string, unknown>> {
    const rows: Array<{ node_id: string; output: unknown }> = await sqlRows(this.kit.db, 
      'SELECT node_id, output FROM node_outputs WHERE run_id = $1',
      [runId],
    );
    return new Map(rows.map((r) => [r.node_id, r.output]));
  }

  async events(runId: string, afterSeq: number): Promise<RunFrame[]> {
    const rows: Array<{ seq: string; type: string; node_id: string | null; payload: Record<string, unknown>; created_at: Date }> =
      await sqlRows(this.kit.db, 'SELECT * FROM run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq', [runId, afterSeq]);
    return rows.map((r) => ({
      runId,
      seq: Number(r.seq),
      type: r.type,
      timestamp: r.created_at.toISOString(),
      ...(r.node_id ? { nodeId: r.node_id } : {}),
      payload: r.payload,
    }));
  }

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

  async enqueue(runId: string, msgId: string): Promise<void> {
    await this.kit.transaction(async (_m, emit) => emit({ subject: this.kit.subjects.runWork(runId), payload: { runId }, msgId }));
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

  async finish(runId: string, owner: string, status: 'completed' | 'failed', error: string | null, payload: Record<string, unknown>): Promise<void> {
    await this.transition(
      { runId, owner, type: 'complete', payload: { status, ...(error ? { error } : {}), ...payload } },
      `UPDATE node_states SET status = 'cancelled' WHERE run_id = $1::uuid AND status IN ('pending','running','waiting') AND EXISTS (SELECT 1 FROM r)`,
      [],
      { status, error },
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

  /** Cancel unless already finished; returns false when the run was finished. */
  async cancel(runId: string): Promise<boolean> {
    return this.kit.transaction(async (m, emit) => {
      const rows = await sqlRows(m, 
        `UPDATE runs SET status = 'cancelled', lease_owner = NULL, lease_until = NULL, updated_at = now()
          WHERE id = $1 AND status IN ('queued','running','waiting','paused') RETURNING id`,
        [runId],
      );
      if (rows.length === 0) return false;
      await sqlRows(m, `UPDATE node_states SET status = 'cancelled', finished_at = now(), wait_until = NULL WHERE run_id = $1 AND status IN ('pending','running','waiting')`, [runId]);
      await this.appendEvent(m, emit, runId, 'complete', undefined, { status: 'cancelled' });
      return true;
    });
  }

  /**
   * Next per-run sequence number, the event row and its outbox message. With
   * an owner, fenced: fails with LeaseLostError unless the owner still holds
   * the lease on a running run.
   */
  private async appendEvent(
    m: EntityManager,
    emit: Emit,
    runId: string,
    type: string,
    nodeId: string | undefined,
    payload: Record<string, unknown>,
    owner?: string,
  ): Promise<number> {
    const rows: Array<{ last_seq: string }> = owner
      ? await sqlRows(m, 
          `UPDATE runs SET last_seq = last_seq + 1, updated_at = now()
            WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING last_seq`,
          [runId, owner],
        )
      : await sqlRows(m, 'UPDATE runs SET last_seq = last_seq + 1, updated_at = now() WHERE id = $1 RETURNING last_seq', [runId]);
    if (rows.length === 0) {
      if (owner) throw new LeaseLostError(runId);
      throw AppError.notFound('run', runId);
    }
    const seq = Number(rows[0]!.last_seq);
    const frame: RunFrame = { runId, seq, type, timestamp: new Date().toISOString(), ...(nodeId ? { nodeId } : {}), payload };
    await sqlRows(m, 'INSERT INTO run_events (run_id, seq, type, node_id, payload, created_at) VALUES ($1, $2, $3, $4, $5::jsonb, $6)', [
      runId,
      seq,
      type,
      nodeId ?? null,
      JSON.stringify(payload),
      frame.timestamp,
    ]);
    emit({ subject: this.kit.subjects.run(runId, type), payload: frame, msgId: `run:${runId}:${seq}` });
    this.kit.metrics.events.inc({ type });
    return seq;
  }
}
