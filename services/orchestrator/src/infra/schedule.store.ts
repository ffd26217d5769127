/**
 * Schedules and their fires in PostgreSQL. The dispatcher's claim is here:
 * any replica locks due schedules with `FOR UPDATE SKIP LOCKED`.
 *
 * Why row locks and not one leader holding an advisory lock: every replica
 * dispatches at once (10,000 schedules due in one minute are shared between
 * them, not queued behind one process); a replica that dies mid-dispatch loses
 * its connection, PostgreSQL aborts its transaction and releases its locks, so
 * its schedules are claimed again on the next tick — no lease to wait out, no
 * election. SKIP LOCKED makes replicas pass over each other's rows instead of
 * queueing on them. A schedule is locked for the whole of its step (recording
 * fires, the overlap decision, starting runs), which is what makes "one run per
 * fire" and the overlap policies hold across replicas.
 *
 * The runs a claim starts are created by one statement at its end, in its
 * transaction (schedule-run-batch.ts): a fire is `started` exactly when its
 * run exists, and 10 (SCHEDULE_BATCH) fires cost two statements, not ten
 * run creations.
 */
import { appendOutbox, sqlRows, type OutboxMessage, type OutboxRow, type ServiceKit } from '@af/service-kit';
import type { DataSource, EntityManager } from 'typeorm';
import type { CreateRunInput } from '../app/run-commands.js';
import { insertRunBatch } from './schedule-run-batch.js';
import type { ScheduleDefinition } from '../domain/schedules/schedule-definition.js';

export type FireKind = 'scheduled' | 'manual' | 'backfill';
/** `suppressed`: a monitor cycle whose run found nothing new (suppress_if_empty) — written with the run's completion. */
export type FireStatus = 'queued' | 'buffered' | 'started' | 'finished' | 'suppressed' | 'skipped' | 'missed' | 'failed';

export interface StoredSchedule {
  id: string;
  userId: string;
  teamIds: string[];
  name: string;
  definition: ScheduleDefinition;
  paused: boolean;
  nextFireAt: Date | null;
  dueAt: Date | null;
  lastRunAt: Date | null;
  lastRunId: string | null;
  missedFires: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface StoredFire {
  scheduleId: string;
  fireAt: Date;
  kind: FireKind;
  status: FireStatus;
  readyAt: Date;
  overlapPolicy: string | null;
  runId: string | null;
  attempt: number;
  reason: string | null;
  dispatchedAt: Date | null;
  createdAt: Date;
}

const date = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(v as string));

function toSchedule(r: Record<string, any>): StoredSchedule {
  return {
    id: r.id,
    userId: r.user_id,
    teamIds: r.team_ids ?? [],
    name: r.name,
    definition: r.definition,
    paused: r.paused,
    nextFireAt: date(r.next_fire_at),
    dueAt: date(r.due_at),
    lastRunAt: date(r.last_run_at),
    lastRunId: r.last_run_id ?? null,
    missedFires: Number(r.missed_fires),
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

function toFire(r: Record<string, any>): StoredFire {
  return {
    scheduleId: r.schedule_id,
    fireAt: new Date(r.fire_at),
    kind: r.kind,
    status: r.status,
    readyAt: new Date(r.ready_at),
    overlapPolicy: r.overlap_policy ?? null,
    runId: r.run_id ?? null,
    attempt: r.attempt,
    reason: r.reason ?? null,
    dispatchedAt: date(r.dispatched_at),
    createdAt: new Date(r.created_at),
  };
}

/** A fire whose run is created with its claim's batch. */
export interface BatchedStart {
  scheduleId: string;
  fireAt: Date;
  readyAt: Date;
  run: CreateRunInput & { id: string };
}

type FirePatch = { status: FireStatus; readyAt?: Date; runId?: string; attempt?: number; reason?: string | null; dispatchedAt?: Date };

/**
 * What one claim reads and writes, in bulk: the claimed schedules' active
 * runs and pending fires are read by two statements for all of them; the
 * fires a step records (and what happens to them in the same step), the
 * schedules' next fires and the runs to create are written by three
 * statements at the end of the claim (ScheduleStore.flush). A 100-schedule
 * claim costs a handful of statements, not several per schedule.
 */
export class ClaimBatch {
  /** Fires recorded in this claim, not yet written: by schedule, then fire time (ms). */
  readonly newFires = new Map<string, Map<number, StoredFire>>();
  readonly advances = new Map<string, { nextFireAt: Date | null; dueAt: Date | null; missed: number }>();
  readonly starts: BatchedStart[] = [];

  constructor(
    readonly active: Map<string, string[]>,
    readonly pending: Map<string, StoredFire[]>,
  ) {}
}

/** Writes of one locked schedule's step, inside the claim transaction. */
export class ClaimedSchedule {
  private activeRead = false;

  constructor(
    readonly schedule: StoredSchedule,
    private readonly m: EntityManager,
    private readonly batch: ClaimBatch = new ClaimBatch(new Map(), new Map()),
  ) {}

  private get mine(): Map<number, StoredFire> {
    let fires = this.batch.newFires.get(this.schedule.id);
    if (!fires) this.batch.newFires.set(this.schedule.id, (fires = new Map()));
    return fires;
  }

  /**
   * The fire starts `run`: created, with the fire marked started, by the
   * statements that end the claim (schedule-run-batch.ts).
   */
  startInBatch(fire: { fireAt: Date; readyAt: Date }, run: CreateRunInput & { id: string }): void {
    const recorded = this.mine.get(fire.fireAt.getTime());
    if (recorded) Object.assign(recorded, { status: 'started', runId: run.id, reason: null });
    this.batch.starts.push({ scheduleId: this.schedule.id, fireAt: fire.fireAt, readyAt: fire.readyAt, run });
  }

  /**
   * Record fires as queued, each ready at its due time (fire time + jitter),
   * and move the schedule to its next fire (written when the claim ends; a
   * fire time already recorded keeps its row).
   */
  async recordFires(fires: Array<{ fireAt: Date; readyAt: Date }>, kind: FireKind, next: { nextFireAt: Date | null; dueAt: Date | null; missed: number }): Promise<void> {
    const known = new Set((this.batch.pending.get(this.schedule.id) ?? []).map((f) => f.fireAt.getTime()));
    const now = new Date();
    for (const f of fires) {
      if (known.has(f.fireAt.getTime()) || this.mine.has(f.fireAt.getTime())) continue;
      this.mine.set(f.fireAt.getTime(), { scheduleId: this.schedule.id, fireAt: f.fireAt, kind, status: 'queued', readyAt: f.readyAt, overlapPolicy: null, runId: null, attempt: 0, reason: null, dispatchedAt: null, createdAt: now });
    }
    const before = this.batch.advances.get(this.schedule.id);
    this.batch.advances.set(this.schedule.id, { nextFireAt: next.nextFireAt, dueAt: next.dueAt, missed: (before?.missed ?? 0) + next.missed });
  }

  /**
   * Fires whose runs have ended become `finished`; the ids of the runs of
   * this schedule still active (queued, running, waiting, paused) remain.
   * The first call answers what the claim read for all its schedules.
   */
  async activeRuns(): Promise<string[]> {
    if (!this.activeRead) {
      this.activeRead = true;
      return this.batch.active.get(this.schedule.id) ?? [];
    }
    // One statement: the SELECT sees the rows as they were before the UPDATE, so the runs it just settled are left out.
    const rows = await sqlRows<{ run_id: string }>(
      this.m,
      `WITH done AS (
         UPDATE schedule_fires f SET status = 'finished' FROM runs r
          WHERE f.schedule_id = $1 AND f.status = 'started' AND r.id = f.run_id AND r.status NOT IN ('queued','running','waiting','paused')
         RETURNING f.fire_at
       )
       SELECT run_id FROM schedule_fires WHERE schedule_id = $1 AND status = 'started' AND fire_at NOT IN (SELECT fire_at FROM done) ORDER BY fire_at`,
      [this.schedule.id],
    );
    return rows.map((r) => r.run_id);
  }

  /** Queued and buffered fires, oldest first (those recorded in this claim included). */
  async pendingFires(limit: number): Promise<StoredFire[]> {
    const fresh = [...this.mine.values()].filter((f) => f.status === 'queued' || f.status === 'buffered');
    return [...(this.batch.pending.get(this.schedule.id) ?? []), ...fresh].sort((a, b) => a.fireAt.getTime() - b.fireAt.getTime()).slice(0, limit);
  }

  async setFire(fireAt: Date, patch: FirePatch): Promise<void> {
    const recorded = this.mine.get(fireAt.getTime());
    if (recorded) {
      Object.assign(recorded, {
        status: patch.status,
        ...(patch.readyAt ? { readyAt: patch.readyAt } : {}),
        ...(patch.runId ? { runId: patch.runId } : {}),
        ...(patch.attempt !== undefined ? { attempt: patch.attempt } : {}),
        ...(patch.reason !== undefined ? { reason: patch.reason } : {}),
        ...(patch.dispatchedAt ? { dispatchedAt: patch.dispatchedAt } : {}),
      });
      return;
    }
    await this.m.query(
      `UPDATE schedule_fires SET status = $3, ready_at = COALESCE($4, ready_at), run_id = COALESCE($5, run_id), attempt = COALESCE($6, attempt),
              reason = CASE WHEN $7::boolean THEN $8 ELSE reason END, dispatched_at = COALESCE($9, dispatched_at)
        WHERE schedule_id = $1 AND fire_at = $2`,
      [this.schedule.id, fireAt, patch.status, patch.readyAt ?? null, patch.runId ?? null, patch.attempt ?? null, patch.reason !== undefined, patch.reason ?? null, patch.dispatchedAt ?? null],
    );
  }
}

/** Where a worker's claims of one tick go on from (schedules due, in (due_at, id) order). */
export interface ClaimCursor {
  after: { dueAt: Date; id: string } | null;
}

/** Pending fires read per schedule per claim (the dispatcher looks at no more per step). */
const MAX_PENDING_READ = 200;

export class ScheduleStore {
  constructor(
    private readonly kit: ServiceKit,
    /** Connections of the dispatcher's own for its claims (default: the service's pool). */
    private readonly claimDb?: DataSource,
  ) {}

  /** kit.transaction on the claim connections: the outbox rows go in the same transaction, and out at once after it commits. */
  private async claimTransaction<T>(fn: (m: EntityManager, emit: (...msgs: OutboxMessage[]) => void) => Promise<T>): Promise<T> {
    if (!this.claimDb) return this.kit.transaction(fn);
    const pending: OutboxMessage[] = [];
    let rows: OutboxRow[] = [];
    const result = await this.claimDb.transaction(async (m) => {
      const value = await fn(m, (...msgs) => pending.push(...msgs));
      rows = await appendOutbox(m, pending);
      return value;
    });
    this.kit.relay.publishCommitted(rows);
    return result;
  }

  /**
   * Lock up to `limit` schedules that need a step at `now` — due, or with a
   * ready fire — skipping those another replica holds, and run `step` for
   * each in the same transaction (see the file comment for why).
   */
  async claim(now: Date, limit: number, step: (claimed: ClaimedSchedule) => Promise<void>, started?: (fires: BatchedStart[]) => void, cursor?: ClaimCursor): Promise<number> {
    let batch: ClaimBatch | undefined;
    const t: number[] = [performance.now()];
    const count = await this.claimTransaction(async (m, emit) => {
      t.push(performance.now());
      // Two index walks, each stopping at `limit` (no sort of everything due): schedules due, by the
      // partial index on (due_at, id), from where this worker's last claim of the tick stopped — so a
      // worker does not walk again past the rows it (or others) dispatched meanwhile, whose old index
      // entries stay until no transaction can see them —; then, only when that leaves room,
      // schedules with a ready fire.
      const after = cursor?.after ?? null;
      const rows = await sqlRows(
        m,
        `SELECT * FROM schedules WHERE NOT paused AND due_at IS NOT NULL AND due_at <= $1
            AND ($3::timestamptz IS NULL OR (due_at, id) > ($3::timestamptz, $4::uuid))
          ORDER BY due_at, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [now, limit, after?.dueAt ?? null, after?.id ?? null],
      );
      const last = rows.at(-1);
      if (cursor && last) cursor.after = { dueAt: new Date(last.due_at as string), id: last.id as string };
      if (rows.length < limit) {
        rows.push(
          ...(await sqlRows(
            m,
            `SELECT s.* FROM schedules s
              WHERE NOT s.paused AND s.id IN (SELECT schedule_id FROM schedule_fires WHERE status IN ('queued','buffered') AND ready_at <= $1)
                AND s.id <> ALL($3::uuid[])
              ORDER BY s.id LIMIT $2 FOR UPDATE OF s SKIP LOCKED`,
            [now, limit - rows.length, rows.map((r) => r.id)],
          )),
        );
      }
      t.push(performance.now());
      if (!rows.length) return 0;
      batch = await this.read(m, rows.map((r) => r.id as string));
      t.push(performance.now());
      for (const row of rows) await step(new ClaimedSchedule(toSchedule(row), m, batch));
      t.push(performance.now());
      await this.flush(m, emit, batch);
      t.push(performance.now());
      return rows.length;
    });
    t.push(performance.now());
    // Where a claim's time went (ms): connection, select, read, steps, flush, commit.
    if (count) this.kit.log.debug({ schedules: count, ms: t.slice(1).map((x, i) => Math.round(x - t[i]!)) }, 'schedule claim');
    // Committed: the runs exist and their work items are going out.
    if (batch?.starts.length) started?.(batch.starts);
    return count;
  }

  /** What the steps of a claim read, for all its schedules: active runs (settling ended ones) and pending fires. */
  private async read(m: EntityManager, ids: string[]): Promise<ClaimBatch> {
    const active = await sqlRows<{ schedule_id: string; run_id: string }>(
      m,
      `WITH done AS (
         UPDATE schedule_fires f SET status = 'finished' FROM runs r
          WHERE f.schedule_id = ANY($1::uuid[]) AND f.status = 'started' AND r.id = f.run_id AND r.status NOT IN ('queued','running','waiting','paused')
         RETURNING f.schedule_id, f.fire_at
       )
       SELECT f.schedule_id, f.run_id FROM schedule_fires f
        WHERE f.schedule_id = ANY($1::uuid[]) AND f.status = 'started' AND NOT EXISTS (SELECT 1 FROM done d WHERE d.schedule_id = f.schedule_id AND d.fire_at = f.fire_at)
        ORDER BY f.fire_at`,
      [ids],
    );
    const pending = await sqlRows(
      m,
      `SELECT * FROM (SELECT f.*, row_number() OVER (PARTITION BY f.schedule_id ORDER BY f.fire_at) AS rn FROM schedule_fires f
                        WHERE f.schedule_id = ANY($1::uuid[]) AND f.status IN ('queued','buffered')) x
        WHERE x.rn <= $2 ORDER BY x.fire_at`,
      [ids, MAX_PENDING_READ],
    );
    const group = <T>(rows: Array<{ key: string; value: T }>) => {
      const map = new Map<string, T[]>();
      for (const r of rows) map.set(r.key, [...(map.get(r.key) ?? []), r.value]);
      return map;
    };
    return new ClaimBatch(group(active.map((r) => ({ key: r.schedule_id, value: r.run_id }))), group(pending.map((r) => ({ key: r.schedule_id as string, value: toFire(r) }))));
  }

  /**
   * The end of a claim, in two statements: all its runs (one multi-row
   * insert), then its fires and schedules — new fires inserted as their steps
   * left them (those that started a run: `started`, with the run's id and the
   * time), fires recorded before marked started, and every schedule's next
   * fire and last run in one UPDATE. Each row is written once.
   */
  private async flush(m: EntityManager, emit: (...msgs: OutboxMessage[]) => void, batch: ClaimBatch): Promise<void> {
    const fires = [...batch.newFires.values()].flatMap((byTime) => [...byTime.values()]);
    const newKeys = new Set(fires.map((f) => `${f.scheduleId}|${f.fireAt.getTime()}`));
    // Recorded by an earlier claim (run-now, backfill, buffered, retried): updated to started.
    const older = batch.starts.filter((b) => !newKeys.has(`${b.scheduleId}|${b.fireAt.getTime()}`));
    const last = new Map<string, BatchedStart>();
    for (const b of batch.starts) {
      const before = last.get(b.scheduleId);
      if (!before || before.fireAt.getTime() <= b.fireAt.getTime()) last.set(b.scheduleId, b);
    }
    const ids = [...new Set([...batch.advances.keys(), ...last.keys()])];
    if (!fires.length && !ids.length) return;
    if (batch.starts.length) await insertRunBatch(m, emit, this.kit.subjects, batch.starts.map((b) => b.run));
    await m.query(
      `WITH nf AS (
         INSERT INTO schedule_fires (schedule_id, fire_at, kind, status, ready_at, run_id, attempt, reason, dispatched_at)
         SELECT schedule_id, fire_at, kind, status, ready_at, run_id, attempt, reason, CASE WHEN status = 'started' THEN clock_timestamp() ELSE dispatched_at END
           FROM unnest($1::uuid[], $2::timestamptz[], $3::text[], $4::text[], $5::timestamptz[], $6::uuid[], $7::int[], $8::text[], $9::timestamptz[])
             AS f(schedule_id, fire_at, kind, status, ready_at, run_id, attempt, reason, dispatched_at)
         ON CONFLICT DO NOTHING
       ), of AS (
         UPDATE schedule_fires f SET status = 'started', run_id = x.run_id, dispatched_at = clock_timestamp(), reason = NULL
           FROM unnest($10::uuid[], $11::timestamptz[], $12::uuid[]) AS x(schedule_id, fire_at, run_id)
          WHERE f.schedule_id = x.schedule_id AND f.fire_at = x.fire_at
       )
       UPDATE schedules s
          SET next_fire_at = CASE WHEN a.advanced THEN a.next_fire_at ELSE s.next_fire_at END,
              due_at = CASE WHEN a.advanced THEN a.due_at ELSE s.due_at END,
              missed_fires = s.missed_fires + a.missed,
              last_run_at = CASE WHEN a.last_fire_at IS NULL THEN s.last_run_at ELSE GREATEST(s.last_run_at, a.last_fire_at) END,
              last_run_id = CASE WHEN a.last_fire_at IS NOT NULL AND (s.last_run_at IS NULL OR s.last_run_at <= a.last_fire_at) THEN a.last_run_id ELSE s.last_run_id END
         FROM unnest($13::uuid[], $14::boolean[], $15::timestamptz[], $16::timestamptz[], $17::int[], $18::timestamptz[], $19::uuid[])
           AS a(id, advanced, next_fire_at, due_at, missed, last_fire_at, last_run_id)
        WHERE s.id = a.id`,
      [
        fires.map((f) => f.scheduleId),
        fires.map((f) => f.fireAt),
        fires.map((f) => f.kind),
        fires.map((f) => f.status),
        fires.map((f) => f.readyAt),
        fires.map((f) => f.runId),
        fires.map((f) => f.attempt),
        fires.map((f) => f.reason),
        fires.map((f) => f.dispatchedAt),
        older.map((b) => b.scheduleId),
        older.map((b) => b.fireAt),
        older.map((b) => b.run.id),
        ids,
        ids.map((id) => batch.advances.has(id)),
        ids.map((id) => batch.advances.get(id)?.nextFireAt ?? null),
        ids.map((id) => batch.advances.get(id)?.dueAt ?? null),
        ids.map((id) => batch.advances.get(id)?.missed ?? 0),
        ids.map((id) => last.get(id)?.fireAt ?? null),
        ids.map((id) => last.get(id)?.run.id ?? null),
      ],
    );
  }

  /** Insert a schedule; with an id already taken (a retried create), the stored one. */
  async create(s: { id: string; userId: string; teamIds: readonly string[]; definition: ScheduleDefinition; nextFireAt: Date | null; dueAt: Date | null; createdAt: Date }): Promise<StoredSchedule> {
    const [row] = await sqlRows(
      this.kit.db,
      `INSERT INTO schedules (id, user_id, team_ids, name, definition, paused, next_fire_at, due_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $9) ON CONFLICT (id) DO NOTHING RETURNING *`,
      [s.id, s.userId, [...s.teamIds], s.definition.name, JSON.stringify(s.definition), s.definition.paused, s.nextFireAt, s.dueAt, s.createdAt],
    );
    // A concurrent create with the same idempotency key (same derived id) won: answer its schedule.
    return row ? toSchedule(row) : (await this.get(s.id))!;
  }

  async get(id: string): Promise<StoredSchedule | null> {
    const [row] = await sqlRows(this.kit.db, 'SELECT * FROM schedules WHERE id = $1', [id]);
    return row ? toSchedule(row) : null;
  }

  async list(userId: string, limit: number, after: { createdAt: string; id: string } | null): Promise<StoredSchedule[]> {
    const rows = await sqlRows(
      this.kit.db,
      `SELECT * FROM schedules WHERE user_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3::uuid))
        ORDER BY created_at, id LIMIT $4`,
      [userId, after?.createdAt ?? null, after?.id ?? null, limit],
    );
    return rows.map(toSchedule);
  }

  /** Replace the definition (and timing state); pending fires stay. */
  async update(id: string, definition: ScheduleDefinition, nextFireAt: Date | null, dueAt: Date | null): Promise<StoredSchedule | null> {
    const [row] = await sqlRows(
      this.kit.db,
      `UPDATE schedules SET definition = $2::jsonb, name = $3, paused = $4, next_fire_at = $5, due_at = $6, updated_at = now() WHERE id = $1 RETURNING *`,
      [id, JSON.stringify(definition), definition.name, definition.paused, nextFireAt, dueAt],
    );
    return row ? toSchedule(row) : null;
  }

  async setPaused(id: string, paused: boolean, nextFireAt: Date | null, dueAt: Date | null): Promise<StoredSchedule | null> {
    const [row] = await sqlRows(
      this.kit.db,
      `UPDATE schedules SET paused = $2, definition = jsonb_set(definition, '{paused}', to_jsonb($2::boolean)), next_fire_at = $3, due_at = $4, updated_at = now()
        WHERE id = $1 RETURNING *`,
      [id, paused, nextFireAt, dueAt],
    );
    return row ? toSchedule(row) : null;
  }

  /** The earliest instant a schedule that is not paused is due or has a fire ready (null: nothing pending). */
  async nextDueAt(): Promise<Date | null> {
    const [row] = await sqlRows<{ at: string | null }>(
      this.claimDb ?? this.kit.db,
      `SELECT LEAST((SELECT min(due_at) FROM schedules WHERE NOT paused AND due_at IS NOT NULL),
                    (SELECT min(f.ready_at) FROM schedule_fires f JOIN schedules s ON s.id = f.schedule_id AND NOT s.paused
                      WHERE f.status IN ('queued','buffered'))) AS at`,
    );
    return row?.at ? new Date(row.at) : null;
  }

  /** Schedules whose target is the agent profile: `userId`'s (oldest first, up to `limit`) and how many of other owners. */
  async usingAgentProfile(userId: string, agentProfileId: string, limit: number): Promise<{ own: Array<{ id: string; name: string }>; others: number }> {
    const rows = await sqlRows<{ id: string; name: string; mine: boolean; others: number }>(
      this.kit.db,
      `WITH s AS (SELECT id, name, user_id, created_at FROM schedules WHERE definition->'target'->>'agent_profile_id' = $1)
       (SELECT id::text, name, true AS mine, 0 AS others FROM s WHERE user_id = $2 ORDER BY created_at, id LIMIT $3)
       UNION ALL SELECT NULL, NULL, false, count(*)::int FROM s WHERE user_id <> $2`,
      [agentProfileId, userId, limit],
    );
    return { own: rows.filter((r) => r.mine).map((r) => ({ id: r.id, name: r.name })), others: rows.find((r) => !r.mine)?.others ?? 0 };
  }

  /** The owner's schedules and monitors whose target is the stored playbook `playbookId` (a playbook is the owner's own). */
  async usingPlaybook(userId: string, playbookId: string, limit: number): Promise<{ own: Array<{ id: string; name: string }>; total: number }> {
    const rows = await sqlRows<{ id: string; name: string; total: number }>(
      this.kit.db,
      `SELECT id::text, name, count(*) OVER ()::int AS total FROM schedules
       WHERE user_id = $1 AND definition->'target'->>'playbook_id' = $2 ORDER BY created_at, id LIMIT $3`,
      [userId, playbookId, limit],
    );
    return { own: rows.map((r) => ({ id: r.id, name: r.name })), total: rows[0]?.total ?? 0 };
  }

  async delete(id: string): Promise<boolean> {
    const rows = await sqlRows(this.kit.db, 'DELETE FROM schedules WHERE id = $1 RETURNING id', [id]);
    return rows.length > 0;
  }

  /** Queue fires (run-now, backfill); a fire already recorded is left alone. Returns the fires added. */
  async queueFires(id: string, fires: Date[], kind: FireKind, readyAt: Date, overlapPolicy: string | null): Promise<Date[]> {
    if (!fires.length) return [];
    const rows = await sqlRows<{ fire_at: string }>(
      this.kit.db,
      `INSERT INTO schedule_fires (schedule_id, fire_at, kind, status, ready_at, overlap_policy)
       SELECT $1, f, $2, 'queued', $3, $5 FROM unnest($4::timestamptz[]) AS f ON CONFLICT DO NOTHING RETURNING fire_at`,
      [id, kind, readyAt, fires, overlapPolicy],
    );
    return rows.map((r) => new Date(r.fire_at));
  }

  async fires(id: string, limit: number): Promise<StoredFire[]> {
    const rows = await sqlRows(this.kit.db, 'SELECT * FROM schedule_fires WHERE schedule_id = $1 ORDER BY fire_at DESC LIMIT $2', [id, limit]);
    return rows.map(toFire);
  }

  /** The status of a run (the schedule view's last_run_status). */
  async runStatus(runId: string): Promise<string | null> {
    const [row] = await sqlRows<{ status: string }>(this.kit.db, 'SELECT status FROM runs WHERE id = $1', [runId]);
    return row?.status ?? null;
  }
}
