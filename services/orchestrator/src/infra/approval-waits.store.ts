/**
 * The orchestrator's side of waits on the approval service: which request a
 * waiting node waits for (`node_states.approval_request_id`), recording a
 * resolution on it (`node_states.decision` + a `log` frame, in one
 * transaction with waking a parked run), the run's hitlClarifications, and
 * the reconciliation cursor (`approval_checked_at`).
 */
import { sqlRows, type ServiceKit } from '@af/service-kit';
import type { ApprovalWaits } from '../app/approval-port.js';
import { decisionLogPayload, decisionOf, type ClarificationEntry, type RequestView } from '../domain/human-request.js';
import type { Decision } from '../domain/run-state.js';
import type { RunRepository } from './run.repository.js';

export class ApprovalWaitsStore implements ApprovalWaits {
  constructor(
    private readonly kit: ServiceKit,
    private readonly repo: RunRepository,
  ) {}

  async register(runId: string, nodeId: string, requestId: string | null, decision: Decision | null): Promise<void> {
    await sqlRows(
      this.kit.db,
      `UPDATE node_states SET approval_request_id = $3::uuid, decision = $4::jsonb, approval_checked_at = now()
        WHERE run_id = $1 AND node_id = $2 AND status IN ('running','pending','waiting')`,
      [runId, nodeId, requestId, decision ? JSON.stringify(decision) : null],
    );
  }

  async apply(request: RequestView): Promise<boolean> {
    if (request.status === 'pending' || !request.runId || !request.nodeId) return false;
    const decision = decisionOf(request);
    return this.kit.transaction(async (m, emit) => {
      // The run row first, as every request-side change does: it orders this with pause, cancel and park.
      const [run] = await sqlRows<{ status: string }>(m, 'SELECT status FROM runs WHERE id = $1 FOR UPDATE', [request.runId]);
      if (!run) return false;
      const updated = await sqlRows(
        m,
        `UPDATE node_states SET decision = $4::jsonb
          WHERE run_id = $1 AND node_id = $2 AND approval_request_id = $3::uuid AND status = 'waiting' AND decision IS NULL
          RETURNING node_id`,
        [request.runId, request.nodeId, request.id, JSON.stringify(decision)],
      );
      if (!updated.length) return false;
      if (request.kind === 'clarify') {
        await sqlRows(m, `UPDATE run_clarifications SET answer = $3, answered_at = $4::timestamptz WHERE run_id = $1 AND request_id = $2::uuid`, [
          request.runId,
          request.id,
          decision.answer ?? null,
          decision.decidedAt || new Date().toISOString(),
        ]);
      }
      await this.repo.appendEvent(m, emit, request.runId, 'log', request.nodeId, decisionLogPayload(decision));
      // A parked run is queued again; a running one sees the decision at its next look; a paused one stays paused.
      if (run.status === 'waiting') {
        await sqlRows(m, `UPDATE runs SET status = 'queued', updated_at = now() WHERE id = $1`, [request.runId]);
        emit({ subject: this.kit.subjects.runWork(request.runId), payload: { runId: request.runId }, msgId: `work:${request.runId}:resume:${request.id}` });
      }
      return true;
    });
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
