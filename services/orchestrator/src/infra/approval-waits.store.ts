/**
 * The orchestrator's side of waits on the approval service: which request a
 * waiting node waits for (`node_states.approval_request_id`), recording a
 * resolution on it (`node_states.decision` + a `log` frame, in one
 * statement with waking a parked run), the run's hitlClarifications, and
 * the reconciliation cursor (`approval_checked_at`).
 */
import { sqlRows, type ServiceKit } from '@af/service-kit';
import { preparedRows } from './prepared.js';
import type { ApprovalWaits } from '../app/approval-port.js';
import { decisionLogPayload, decisionOf, type ClarificationEntry, type RequestView } from '../domain/human-request.js';
import type { Decision } from '../domain/run-state.js';

export class ApprovalWaitsStore implements ApprovalWaits {
  constructor(private readonly kit: ServiceKit) {}

  async register(runId: string, nodeId: string, requestId: string | null, decision: Decision | null): Promise<void> {
    await sqlRows(
      this.kit.db,
      `UPDATE node_states SET approval_request_id = $3::uuid, decision = $4::jsonb, approval_checked_at = now()
        WHERE run_id = $1 AND node_id = $2 AND status IN ('running','pending','waiting')`,
      [runId, nodeId, requestId, decision ? JSON.stringify(decision) : null],
    );
  }

  /**
   * One statement (one round trip, atomic on its own): the run row is locked
   * first, as every request-side change does (it orders this with pause,
   * cancel, park and the executor's transitions); the decision goes on the
   * waiting node, a clarification's answer on the run, a `log` frame is
   * appended, and a parked run is queued again with a work item. A running
   * run sees the decision at its next look; a paused one stays paused.
   */
  async apply(request: RequestView): Promise<boolean> {
    if (request.status === 'pending' || !request.runId || !request.nodeId) return false;
    const decision = decisionOf(request);
    const timestamp = new Date().toISOString();
    const rows = await preparedRows<{ applied: boolean; messages: Array<{ id: string | number; subject: string; payload: unknown; msgId: string }> | null }>(
      this.kit.db,
      `WITH run AS (
         SELECT id, status FROM runs WHERE id = $1::uuid FOR UPDATE
       ), upd AS (
         UPDATE node_states SET decision = $4::jsonb
          WHERE run_id = $1::uuid AND node_id = $2 AND approval_request_id = $3::uuid AND status = 'waiting' AND decision IS NULL
            AND EXISTS (SELECT 1 FROM run)
          RETURNING node_id
       ), r AS (
         UPDATE runs SET last_seq = runs.last_seq + 1, updated_at = now(),
                status = CASE WHEN run.status = 'waiting' THEN 'queued' ELSE runs.status END
           FROM run WHERE runs.id = run.id AND EXISTS (SELECT 1 FROM upd)
          RETURNING runs.last_seq, run.status AS was
       ), cl AS (
         UPDATE run_clarifications SET answer = $5, answered_at = $6::timestamptz
          WHERE $7::boolean AND run_id = $1::uuid AND request_id = $3::uuid AND EXISTS (SELECT 1 FROM upd)
       ), ev AS (
         INSERT INTO run_events (run_id, seq, type, node_id, payload, created_at)
         SELECT $1::uuid, r.last_seq, 'log', $2, $8::jsonb, $9::timestamptz FROM r
       ), ob AS (
         INSERT INTO outbox (subject, payload, msg_id)
         SELECT m.subject, m.payload, m.msg_id
           FROM r, LATERAL (VALUES
             (1, $10::text, jsonb_build_object('runId', $1::text, 'seq', r.last_seq, 'type', 'log', 'timestamp', $13::text, 'nodeId', $2::text, 'payload', $8::jsonb),
                 'run:' || $1::text || ':' || r.last_seq),
             (2, $11::text, jsonb_build_object('runId', $1::text), $12::text)
           ) AS m(i, subject, payload, msg_id)
          WHERE m.i = 1 OR r.was = 'waiting'
          ORDER BY m.i
          RETURNING id, subject, payload, msg_id
       )
       SELECT EXISTS (SELECT 1 FROM upd) AS applied,
              (SELECT json_agg(json_build_object('id', id, 'subject', subject, 'payload', payload, 'msgId', msg_id) ORDER BY id) FROM ob) AS messages`,
      [
        request.runId,
        request.nodeId,
        request.id,
        JSON.stringify(decision),
        decision.answer ?? null,
        request.kind === 'clarify' ? answeredAt(decision.decidedAt, timestamp) : null,
        request.kind === 'clarify',
        JSON.stringify(decisionLogPayload(decision)),
        timestamp,
        this.kit.subjects.run(request.runId, 'log'),
        this.kit.subjects.runWork(request.runId),
        `work:${request.runId}:resume:${request.id}`,
        // The frame's time as sent (ISO text; $9 is the same instant typed timestamptz).
        timestamp,
      ],
    );
    const row = rows[0];
    if (!row?.applied) return false;
    this.kit.metrics.events.inc({ type: 'log' });
    // Published from here at once (the relay is the fallback); a work item also starts the run here when there is room.
    this.kit.relay.publishCommitted((row.messages ?? []).map((m) => ({ id: String(m.id), subject: m.subject, payload: m.payload, msgId: m.msgId })));
    return true;
  }

  async requestOf(runId: string, nodeId: string): Promise<string | null> {
    const rows = await sqlRows<{ id: string | null }>(this.kit.db, `SELECT approval_request_id AS id FROM node_states WHERE run_id = $1 AND node_id = $2 AND status = 'waiting'`, [
      runId,
      nodeId,
    ]);
    return rows[0]?.id ?? null;
  }

  async addQuestion(runId: string, e: ClarificationEntry & { requestId: string }): Promise<void> {
    await sqlRows(
      this.kit.db,
      `INSERT INTO run_clarifications (run_id, request_id, node_id, capability_id, question_id, question, created_at)
       VALUES ($1, $2::uuid, $3, $4, $5, $6, $7::timestamptz) ON CONFLICT (run_id, request_id) DO NOTHING`,
      [runId, e.requestId, e.nodeId, e.capabilityId ?? null, e.questionId, e.question, e.createdAt],
    );
  }

  async clarifications(runId: string): Promise<ClarificationEntry[]> {
    const rows = await sqlRows<{ node_id: string; capability_id: string | null; question_id: string; question: string; answer: string | null; created_at: Date; answered_at: Date | null }>(
      this.kit.db,
      'SELECT * FROM run_clarifications WHERE run_id = $1 ORDER BY created_at, question_id',
      [runId],
    );
    return rows.map((r) => ({
      nodeId: r.node_id,
      ...(r.capability_id ? { capabilityId: r.capability_id } : {}),
      questionId: r.question_id,
      question: r.question,
      ...(r.answer !== null ? { answer: r.answer } : {}),
      createdAt: r.created_at.toISOString(),
      ...(r.answered_at ? { answeredAt: r.answered_at.toISOString() } : {}),
    }));
  }

  async nodeState(runId: string, nodeId: string): Promise<{ status: string; skipReason: string | null } | null> {
    const rows = await sqlRows<{ status: string; skip_reason: string | null }>(this.kit.db, 'SELECT status, skip_reason FROM node_states WHERE run_id = $1 AND node_id = $2', [
      runId,
      nodeId,
    ]);
    return rows[0] ? { status: rows[0].status, skipReason: rows[0].skip_reason } : null;
  }

  async runOptions(runId: string): Promise<Record<string, unknown>> {
    const rows = await sqlRows<{ metadata: Record<string, unknown> | null }>(this.kit.db, `SELECT plan->'metadata' AS metadata FROM runs WHERE id = $1`, [runId]);
    return rows[0]?.metadata ?? {};
  }

  /**
   * Waiting nodes whose request may have been resolved without the event
   * reaching us, least recently checked first (each claimed for `everyMs`).
   */
  async toReconcile(everyMs: number, limit: number): Promise<Array<{ runId: string; nodeId: string; requestId: string; userId: string }>> {
    const rows = await sqlRows<{ run_id: string; node_id: string; approval_request_id: string; user_id: string }>(
      this.kit.db,
      `WITH due AS (
         SELECT run_id, node_id FROM node_states
          WHERE status = 'waiting' AND approval_request_id IS NOT NULL AND decision IS NULL
            AND (approval_checked_at IS NULL OR approval_checked_at < now() - ($1::int * interval '1 millisecond'))
          ORDER BY approval_checked_at NULLS FIRST LIMIT $2 FOR UPDATE SKIP LOCKED
       )
       UPDATE node_states n SET approval_checked_at = now() FROM due, runs r
        WHERE n.run_id = due.run_id AND n.node_id = due.node_id AND r.id = n.run_id
        RETURNING n.run_id, n.node_id, n.approval_request_id, r.user_id`,
      [everyMs, limit],
    );
    return rows.map((r) => ({ runId: r.run_id, nodeId: r.node_id, requestId: r.approval_request_id, userId: r.user_id }));
  }
}

/** When a clarification was answered: the decision's time when it is one, else now. */
function answeredAt(decidedAt: string | undefined, now: string): string {
  return decidedAt && !Number.isNaN(Date.parse(decidedAt)) ? decidedAt : now;
}
