/**
 * Requests in PostgreSQL. Every change is one transaction with its audit row
 * and its outbox message (`af.approval.<id>.requested` / `.decided`), so a
 * decision is never recorded without being published, nor published without
 * being recorded. Resolutions are guarded by `status = 'pending'` in the same
 * statement: of two concurrent decisions exactly one wins.
 */
import { randomUUID } from 'node:crypto';
import { sqlRows, type OutboxMessage, type ServiceKit, type Subjects } from '@af/service-kit';
import type { EntityManager } from 'typeorm';
import type { ListFilter, RequestStore } from '../app/ports.js';
import type { NewRequest } from '../domain/new-request.js';
import type { ApprovalRequest, RequestStatus, Resolution, RunContext } from '../domain/request.js';

interface RequestRow {
  id: string;
  kind: ApprovalRequest['kind'];
  status: RequestStatus;
  owner_user_id: string;
  run_id: string | null;
  node_id: string | null;
  run_context: RunContext;
  operator_prompt: string;
  details: Record<string, unknown>;
  output_schema: Record<string, unknown> | null;
  capability_id: string | null;
  team_ids: string[];
  allow_team_decisions: boolean;
  assignee_user_ids: string[];
  timeout_at: Date | null;
  notify: boolean;
  resolution: Resolution | null;
  resolution_key: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const toRequest = (r: RequestRow): ApprovalRequest => ({
  id: r.id,
  kind: r.kind,
  status: r.status,
  ownerUserId: r.owner_user_id,
  runId: r.run_id,
  nodeId: r.node_id,
  runContext: r.run_context,
  operatorPrompt: r.operator_prompt,
  details: r.details ?? {},
  outputSchema: r.output_schema,
  capabilityId: r.capability_id,
  teamIds: r.team_ids ?? [],
  allowTeamDecisions: r.allow_team_decisions,
  assigneeUserIds: r.assignee_user_ids ?? [],
  timeoutAt: r.timeout_at,
  notify: r.notify,
  resolution: r.resolution,
  resolutionKey: r.resolution_key,
  decidedBy: r.decided_by,
  decidedAt: r.decided_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** `af.approval.<id>.<event>` under the service's subject prefix. */
export function approvalSubject(subjects: Subjects, requestId: string, event: 'requested' | 'decided'): string {
  return `${subjects.prefix ? `${subjects.prefix}.` : ''}af.approval.${requestId}.${event}`;
}

/** The event payload (proto ApprovalEvent, camelCase JSON). */
export function approvalEvent(r: ApprovalRequest, type: 'requested' | 'decided'): Record<string, unknown> {
  return {
    type,
    requestId: r.id,
    kind: r.kind,
    status: r.status,
    ownerUserId: r.ownerUserId,
    runId: r.runId ?? '',
    nodeId: r.nodeId ?? '',
    notify: r.notify,
    timestamp: new Date().toISOString(),
    ...(type === 'decided' ? { resolution: { ...(r.resolution ?? {}), decidedBy: r.decidedBy, decidedAt: r.decidedAt?.toISOString() ?? null } } : {}),
  };
}

export class RequestRepository implements RequestStore {
  constructor(private readonly kit: ServiceKit) {}

  async insert(n: NewRequest, resolved?: { status: RequestStatus; resolution: Resolution; decidedBy: string }): Promise<{ request: ApprovalRequest; created: boolean }> {
    return this.kit.transaction(async (m, emit) => {
      const rows = await sqlRows<RequestRow>(
        m,
        `INSERT INTO requests (id, kind, status, owner_user_id, run_id, node_id, run_context, operator_prompt, details, output_schema,
                               capability_id, team_ids, allow_team_decisions, assignee_user_ids, timeout_at, notify, idempotency_key,
                               resolution, decided_by, decided_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb, $11, $12::text[], $13, $14::text[],
                 CASE WHEN $15::float8 IS NULL THEN NULL ELSE now() + $15::float8 * interval '1 second' END, $16, $17,
                 $18::jsonb, $19, CASE WHEN $19::text IS NULL THEN NULL ELSE now() END)
         ON CONFLICT (owner_user_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
         RETURNING *`,
        [
          randomUUID(),
          n.kind,
          resolved?.status ?? 'pending',
          n.ownerUserId,
          n.runId,
          n.nodeId,
          n.runContext,
          n.operatorPrompt,
          JSON.stringify(n.details),
          n.outputSchema ? JSON.stringify(n.outputSchema) : null,
          n.capabilityId,
          n.teamIds,
          n.allowTeamDecisions,
          n.assigneeUserIds,
          resolved ? null : n.timeoutSeconds,
          n.notify,
          n.idempotencyKey,
          resolved ? JSON.stringify(resolved.resolution) : null,
          resolved?.decidedBy ?? null,
        ],
      );
      if (!rows.length) {
        const [existing] = await sqlRows<RequestRow>(m, 'SELECT * FROM requests WHERE owner_user_id = $1 AND idempotency_key = $2', [n.ownerUserId, n.idempotencyKey]);
        return { request: toRequest(existing!), created: false };
      }
      const request = toRequest(rows[0]!);
      await this.event(m, request.id, 'created', n.ownerUserId, { kind: n.kind, runId: n.runId, nodeId: n.nodeId });
      emit(this.message(request, 'requested'));
      if (resolved) {
        await this.event(m, request.id, request.status, resolved.decidedBy, { ...resolved.resolution });
        emit(this.message(request, 'decided'));
      }
      return { request, created: true };
    });
  }

  async get(id: string): Promise<ApprovalRequest | null> {
    const rows = await sqlRows<RequestRow>(this.kit.db, 'SELECT * FROM requests WHERE id = $1', [id]);
    return rows[0] ? toRequest(rows[0]) : null;
  }

  async list(f: ListFilter, limit: number, after: { createdAt: string; id: string } | null): Promise<ApprovalRequest[]> {
    const rows = await sqlRows<RequestRow>(
      this.kit.db,
      `SELECT * FROM requests
        WHERE (owner_user_id = $1 OR $1 = ANY(assignee_user_ids) OR (allow_team_decisions AND team_ids && $2::text[]))
          AND (cardinality($3::text[]) = 0 OR kind = ANY($3::text[]))
          AND (cardinality($4::text[]) = 0 OR status = ANY($4::text[]))
          AND ($5::text IS NULL OR capability_id = $5)
          AND ($6::uuid IS NULL OR run_id = $6)
          AND ($7::timestamptz IS NULL OR (created_at, id) < ($7::timestamptz, $8::uuid))
        ORDER BY created_at DESC, id DESC LIMIT $9`,
      [f.principal.userId, [...f.principal.teamIds], f.kinds, f.statuses, f.capabilityId, f.runId, after?.createdAt ?? null, after?.id ?? null, limit],
    );
    return rows.map(toRequest);
  }

  /**
   * Resolve a pending request in ONE statement (one round trip, atomic on its
   * own; a concurrent resolution waits for the row and then finds it no
   * longer pending). Null when it was not pending.
   */
  async resolve(id: string, status: RequestStatus, resolution: Resolution, decidedBy: string, resolutionKey: string | null): Promise<ApprovalRequest | null> {
    const [request] = await this.resolveRows(`id = $7::uuid AND status = 'pending'`, [id], { limit: 1, skipLocked: false, status, resolution, actor: decidedBy, resolutionKey });
    return request ?? null;
  }

  async audit(id: string, type: string, actor: string, detail: Record<string, unknown>): Promise<void> {
    await this.event(this.kit.db.manager, id, type, actor, detail);
  }

  /**
   * Pending requests whose deadline passed, timed out (at most `limit`, oldest
   * deadline first). Rows another replica is resolving right now are skipped.
   */
  async timeOutDue(limit: number, actor: string, resolution: Resolution): Promise<ApprovalRequest[]> {
    return this.resolveWhere(`status = 'pending' AND timeout_at <= now() ORDER BY timeout_at`, [], limit, 'timed_out', actor, resolution);
  }

  /** Pending requests of a run that ended, expired. */
  async expireRun(runId: string, actor: string, resolution: Resolution): Promise<ApprovalRequest[]> {
    return this.resolveWhere(`status = 'pending' AND run_id = $7::uuid ORDER BY created_at`, [runId], 1000, 'expired', actor, resolution);
  }

  /**
   * Runs with pending requests older than `minAgeMs`, least recently checked
   * first (each with one owner to ask as); marks them checked.
   */
  async runsToCheck(minAgeMs: number, limit: number): Promise<Array<{ runId: string; ownerUserId: string }>> {
    const rows = await sqlRows<{ run_id: string; owner_user_id: string }>(
      this.kit.db,
      `WITH runs AS (
         SELECT run_id, min(owner_user_id) AS owner_user_id, min(coalesce(run_checked_at, 'epoch'::timestamptz)) AS checked
           FROM requests
          WHERE status = 'pending' AND run_id IS NOT NULL AND created_at < now() - ($1::float8 * interval '1 millisecond')
          GROUP BY run_id ORDER BY checked LIMIT $2
       ), marked AS (
         UPDATE requests SET run_checked_at = now() WHERE status = 'pending' AND run_id IN (SELECT run_id FROM runs)
       )
       SELECT run_id, owner_user_id FROM runs`,
      [minAgeMs, limit],
    );
    return rows.map((r) => ({ runId: r.run_id, ownerUserId: r.owner_user_id }));
  }

  private resolveWhere(where: string, extra: unknown[], limit: number, status: RequestStatus, actor: string, resolution: Resolution): Promise<ApprovalRequest[]> {
    return this.resolveRows(where, extra, { limit, skipLocked: true, status, resolution, actor, resolutionKey: null });
  }

  /**
   * Resolve the requests `where` picks (its own binds from $7) in ONE
   * statement: the rows, their audit rows and their `decided` events' outbox
   * rows — each event built from its updated row as approvalEvent() builds it
   * — then the events are published at once. With `skipLocked`, rows another
   * replica is resolving right now are left to it (sweepers); without, a
   * concurrent resolution is waited for.
   */
  private async resolveRows(
    where: string,
    extra: unknown[],
    o: { limit: number; skipLocked: boolean; status: RequestStatus; resolution: Resolution; actor: string; resolutionKey: string | null },
  ): Promise<ApprovalRequest[]> {
    const decidedAt = new Date().toISOString();
    const [subjectHead, subjectTail] = approvalSubject(this.kit.subjects, '\u0000', 'decided').split('\u0000');
    const rows = await sqlRows<RequestRow & { ob: { id: string | number; subject: string; payload: unknown; msgId: string } }>(
      this.kit.db,
      `WITH due AS (
         SELECT id FROM requests WHERE ${where} LIMIT $1 FOR UPDATE${o.skipLocked ? ' SKIP LOCKED' : ''}
       ), u AS (
         UPDATE requests r SET status = $2, resolution = $3::jsonb, decided_by = $4, decided_at = $5::timestamptz, resolution_key = $6, updated_at = now()
           FROM due WHERE r.id = due.id AND r.status = 'pending' RETURNING r.*
       ), ev AS (
         INSERT INTO request_events (request_id, type, actor, detail) SELECT u.id, $2, $4, $3::jsonb FROM u
       ), ob AS (
         INSERT INTO outbox (subject, payload, msg_id)
         SELECT ${'$' + (7 + extra.length)}::text || u.id::text || ${'$' + (8 + extra.length)}::text,
                jsonb_build_object('type', 'decided', 'requestId', u.id::text, 'kind', u.kind, 'status', u.status, 'ownerUserId', u.owner_user_id,
                                   'runId', coalesce(u.run_id::text, ''), 'nodeId', coalesce(u.node_id, ''), 'notify', u.notify, 'timestamp', ${'$' + (9 + extra.length)}::text,
                                   'resolution', coalesce(u.resolution, '{}'::jsonb) || jsonb_build_object('decidedBy', u.decided_by, 'decidedAt', ${'$' + (9 + extra.length)}::text)),
                'approval:' || u.id::text || ':decided'
           FROM u
         RETURNING id, subject, payload, msg_id
       )
       SELECT u.*, (SELECT json_build_object('id', ob.id, 'subject', ob.subject, 'payload', ob.payload, 'msgId', ob.msg_id) FROM ob WHERE ob.msg_id = 'approval:' || u.id::text || ':decided') AS ob
         FROM u`,
      [o.limit, o.status, JSON.stringify(o.resolution), o.actor, decidedAt, o.resolutionKey, ...extra, subjectHead, subjectTail, decidedAt],
    );
    const messages = rows.map((r) => r.ob).sort((a, b) => Number(a.id) - Number(b.id));
    this.kit.relay.publishCommitted(messages.map((m) => ({ id: String(m.id), subject: m.subject, payload: m.payload, msgId: m.msgId })));
    return rows.map(({ ob: _ob, ...row }) => toRequest(row as RequestRow));
  }

  private message(r: ApprovalRequest, type: 'requested' | 'decided'): OutboxMessage {
    return { subject: approvalSubject(this.kit.subjects, r.id, type), payload: approvalEvent(r, type), msgId: `approval:${r.id}:${type}` };
  }

  private async event(m: EntityManager, requestId: string, type: string, actor: string, detail: Record<string, unknown>): Promise<void> {
    await sqlRows(m, 'INSERT INTO request_events (request_id, type, actor, detail) VALUES ($1, $2, $3, $4::jsonb)', [requestId, type, actor, JSON.stringify(detail)]);
  }
}
