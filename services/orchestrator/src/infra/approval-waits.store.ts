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
import { runStateFromJson, runStateJsonSql, toRun, type LocalClaim, type RunRow, type RunStateJson } from './run.repository.js';
import type { LeasedRun } from './run-execution.store.js';

/** Resolutions this process applied lately, remembered so that their `decided` events need no statement. */
const APPLIED_KEPT = 10_000;

export class ApprovalWaitsStore implements ApprovalWaits {
  private claim: () => LocalClaim | null = () => null;
  private readonly applied = new Set<string>();

  constructor(private readonly kit: ServiceKit) {}

  async register(runId: string, nodeId: string, requestId: string | null, decision: Decision | null): Promise<void> {
    await sqlRows(
      this.kit.db,
      `UPDATE node_states SET approval_request_id = $3::uuid, decision = $4::jsonb, approval_checked_at = now()
        WHERE run_id = $1 AND node_id = $2 AND status IN ('running','pending','waiting')`,
      [runId, nodeId, requestId, decision ? JSON.stringify(decision) : null],
    );
  }

  /** Where a parked run whose wait a resolution ends may start at once (see LocalClaim); without it, it gets a work item. */
  claimLocally(claim: () => LocalClaim | null): void {
    this.claim = claim;
  }

  /**
   * One statement (one round trip, atomic on its own): the run row is locked
   * first, as every request-side change does (it orders this with pause,
   * cancel, park and the executor's transitions); the decision goes on the
   * waiting node, a clarification's answer on the run, a `log` frame is
   * appended. A parked run goes on: with a local claim it is leased to this
   * replica by the same statement, which also reads what it starts from, and
   * starts here at once (no work item: a crash is covered by the sweeper);
   * otherwise it is queued with a work item. A running run sees the decision
   * at its next look; a paused one stays paused.
   */
  async apply(request: RequestView): Promise<boolean> {
    if (request.status === 'pending' || !request.runId || !request.nodeId) return false;
    const decision = decisionOf(request);
    const timestamp = new Date().toISOString();
    const claim = this.claim();
    const json = runStateJsonSql('$1::uuid');
    // With the run's row, node states and outputs when it was leased here (else those columns are null).
    let rows: Array<
      Partial<RunRow> &
        RunStateJson & {
          applied: boolean;
          messages: Array<{ id: string | number; subject: string; payload: unknown; msgId: string }> | null;
        }
    >;
    try {
      rows = await preparedRows(
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
                  status = CASE WHEN run.status <> 'waiting' THEN runs.status WHEN $14::text IS NULL THEN 'queued' ELSE 'running' END,
                  lease_owner = CASE WHEN run.status = 'waiting' AND $14::text IS NOT NULL THEN $14::text ELSE runs.lease_owner END,
                  lease_until = CASE WHEN run.status = 'waiting' AND $14::text IS NOT NULL THEN now() + ($15::int * interval '1 millisecond') ELSE runs.lease_until END
             FROM run WHERE runs.id = run.id AND EXISTS (SELECT 1 FROM upd)
            RETURNING runs.*, run.status AS was
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
            WHERE m.i = 1 OR (r.was = 'waiting' AND $14::text IS NULL)
            ORDER BY m.i
            RETURNING id, subject, payload, msg_id
         )
         SELECT EXISTS (SELECT 1 FROM upd) AS applied,
                (SELECT json_agg(json_build_object('id', id, 'subject', subject, 'payload', payload, 'msgId', msg_id) ORDER BY id) FROM ob) AS messages,
                lr.*,
                CASE WHEN lr.id IS NULL THEN NULL ELSE ${json.states} END AS states,
                CASE WHEN lr.id IS NULL THEN NULL ELSE ${json.outputs} END AS outputs
           FROM (SELECT 1) AS one LEFT JOIN (SELECT * FROM r WHERE r.was = 'waiting' AND $14::text IS NOT NULL) AS lr ON true`,
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
          claim?.owner ?? null,
          claim?.leaseMs ?? 0,
        ],
      );
    } catch (err) {
      claim?.abandon();
      throw err;
    }
    const row = rows[0];
    if (!row?.applied) {
      claim?.abandon();
      return false;
    }
    this.kit.metrics.events.inc({ type: 'log' });
    this.remember(request.id);
    if (row.id) {
      // Read by the statement (its snapshot: before the decision it wrote, which is put in here).
      claim!.start(leasedFrom(row as RunRow & RunStateJson, request.nodeId, JSON.parse(JSON.stringify(decision)) as Decision));
    } else {
      claim?.abandon();
    }
    // Published from here at once (the relay is the fallback); a work item also starts the run here when there is room.
    this.kit.relay.publishCommitted((row.messages ?? []).map((m) => ({ id: String(m.id), subject: m.subject, payload: m.payload, msgId: m.msgId })));
    return true;
  }

  /**
   * Whether this process applied the request's resolution itself lately (a
   * ResumeRun here, whose `decided` event then arrives too): applying it
   * again would find nothing to do.
   */
  appliedHere(requestId: string): boolean {
    return this.applied.has(requestId);
  }

  private remember(requestId: string): void {
    this.applied.add(requestId);
    // Oldest first out (a Set iterates in insertion order).
    if (this.applied.size > APPLIED_KEPT) this.applied.delete(this.applied.values().next().value!);
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
   * reaching us, least recently checked first. A wait is checked again after
   * `everyMs`, or a quarter of its age when that is longer (at most every 5
   * minutes): a lost event on a fresh wait is caught within seconds, and a
   * thousand waits that have lasted for hours do not keep the approval
   * service busy answering.
   */
  async toReconcile(everyMs: number, limit: number): Promise<Array<{ runId: string; nodeId: string; requestId: string; userId: string }>> {
    const rows = await sqlRows<{ run_id: string; node_id: string; approval_request_id: string; user_id: string }>(
      this.kit.db,
      `WITH due AS (
         SELECT run_id, node_id FROM node_states
          WHERE status = 'waiting' AND approval_request_id IS NOT NULL AND decision IS NULL
            AND (approval_checked_at IS NULL
                 OR approval_checked_at < now() - greatest($1::int * interval '1 millisecond',
                                                           least((now() - coalesce(started_at, approval_checked_at)) / 4, interval '5 minutes')))
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

/** What a run leased by apply() starts from: its row, node states (with the decision just recorded) and outputs. */
function leasedFrom(row: RunRow & RunStateJson, nodeId: string, decision: Decision): LeasedRun {
  const leased = { run: toRun(row), ...runStateFromJson(row) };
  // Read by the statement's snapshot, from before the decision it wrote.
  for (const map of [leased.states, leased.waiting]) {
    const state = map.get(nodeId);
    if (state) state.decision = decision;
  }
  return leased;
}
