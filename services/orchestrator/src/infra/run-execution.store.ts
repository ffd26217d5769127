/**
 * What an executor writes while it owns a run: lease take/renew/release and
 * every state transition, each ONE statement fenced by the lease — a replica
 * that lost a run cannot write to it any more. Node ids here are instance ids
 * (`<id>` or `<id>[i]` inside a map iteration).
 *
 * Held settlements (`batchMax` > 0): the settlement of a node whose work
 * can simply be done again — a pure node's start and completion, a skip, a
 * decided wait — may be held in memory and committed with the run's next
 * write (the next side-effecting node's start, a wait, the finish), in the
 * same fenced statement and in the order they happened. A crash before that
 * commit loses only work that is recomputed identically on replay; nothing
 * with an effect outside the run starts before the settlements it may depend
 * on are committed (they ride on its own node_start statement).
 */
import { OUTBOX_BATCH_SUBJECT, type OutboxRow, type ServiceKit } from '@af/service-kit';
import type { RollbackState } from '../domain/rollback.js';
import type { NodeState, Run } from '../domain/run-state.js';
import type { TaskOutcome } from '../domain/task-outcome.js';
import type { AgentFacts } from '../domain/agent-facts.js';
import { monitorCompletionSql, type MonitorCompletion } from './monitor-completion.sql.js';
import { preparedRows } from './prepared.js';
import { agentFactsSet, outcomeSet } from './run-outcome.sql.js';
import { runStateFromJson, runStateJsonSql, toRun, type RunRow, type RunStateJson, type WaitingRow } from './run.repository.js';

/** What an execution starts from, read by the statement that takes the lease (so as of that moment). */
export interface LeasedRun {
  run: Run;
  /** By instance id. */
  states: Map<string, NodeState>;
  /** The waiting ones, with their child run's status (subflows). */
  waiting: Map<string, WaitingRow>;
  /** By instance id (and `<map instance>#items`). */
  outputs: Map<string, unknown>;
}

export class LeaseLostError extends Error {
  constructor(runId: string) {
    super(`lease on run ${runId} lost`);
    this.name = 'LeaseLostError';
  }
}

export interface Frame {
  type: string;
  payload: Record<string, unknown>;
}

/** Binds a parameter of the statement being built and returns its placeholder (`$9`). */
type Bind = (value: unknown) => string;

/** Pieces a transition adds to its statement; SQL that writes must only act `WHERE EXISTS (SELECT 1 FROM r)`. */
interface TransitionParts {
  /** Assignments added to the fenced `UPDATE runs … SET` (each ending with a comma). */
  runSet?: string;
  /** Further data-modifying statements (each becomes a CTE). */
  changes?: string[];
  /** An `INSERT INTO outbox … RETURNING id, subject, payload, msg_id` of further messages (published after the commit). */
  outbox?: string;
  /** An expression read by the same statement, returned as `extra`. */
  extra?: string;
}

const TERMINAL = `('completed','failed','cancelled')`;

/** What a transition statement returns: the new last seq and the outbox rows it wrote. */
interface TransitionRow {
  last_seq: string;
  extra: unknown;
  ob_id: string | null;
  more: Array<{ id: string | number; subject: string; payload: unknown; msgId: string }> | null;
}

export interface RunExecutionStoreOptions {
  /**
   * Settlements held per run before they are written on their own (0: none
   * are held; every settlement is its own statement).
   */
  batchMax?: number;
}

/** A node settlement held for the run's next statement. */
interface Deferred {
  nodeId: string;
  frames: Frame[];
  timestamp: string;
  status: 'completed' | 'skipped';
  /** null: keep the stored attempt. */
  attempt: number | null;
  skipReason: string | null;
  /** The output (JSON) stored under `nodeId` and each alias. */
  output?: { json: string; ids: string[] };
}

/** Deferred settlements of one run and the statement carrying an earlier lot, if one is in flight. */
interface RunBatch {
  items: Deferred[];
  /** Node ids the items write (states and outputs). */
  ids: Set<string>;
  carrying?: Promise<unknown>;
  /** A statement carrying settlements failed for another reason than the lease: this execution must not write on. */
  poisoned?: Error;
}

export class RunExecutionStore {
  private readonly batchMax: number;
  private readonly batches = new Map<string, RunBatch>();

  constructor(
    private readonly kit: ServiceKit,
    options: RunExecutionStoreOptions = {},
  ) {
    this.batchMax = Math.max(0, options.batchMax ?? 0);
  }

  /** Whether settlements may be deferred (see the header). */
  get batching(): boolean {
    return this.batchMax > 0;
  }

  /** Take or renew the lease; returns the run if this owner now holds it and it is not finished. */
  async acquireLease(runId: string, owner: string, leaseMs: number): Promise<Run | null> {
    // A new execution starts from the stored states: nothing an earlier one held applies.
    this.batches.delete(runId);
    const rows: RunRow[] = await preparedRows(
      this.kit.db,
      `UPDATE runs SET lease_owner = $2, lease_until = now() + ($3::int * interval '1 millisecond'),
              status = CASE WHEN status = 'queued' THEN 'running' ELSE status END, updated_at = now()
        WHERE id = $1 AND status IN ('queued','running')
          AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < now())
        RETURNING *`,
      [runId, owner, leaseMs],
    );
    return rows[0] ? toRun(rows[0]) : null;
  }

  /**
   * Take or renew the lease like acquireLease, and read what the execution
   * starts from — node states and outputs — in the same statement.
   */
  async leaseWithState(runId: string, owner: string, leaseMs: number): Promise<LeasedRun | null> {
    this.batches.delete(runId);
    const json = runStateJsonSql('r.id');
    const rows = await preparedRows<RunRow & RunStateJson>(
      this.kit.db,
      `WITH r AS (
         UPDATE runs SET lease_owner = $2, lease_until = now() + ($3::int * interval '1 millisecond'),
                status = CASE WHEN status = 'queued' THEN 'running' ELSE status END, updated_at = now(),
                -- Running again: no longer awaiting a person (set at park), no outcome yet (set at finish).
                task_status = NULL
          WHERE id = $1 AND status IN ('queued','running')
            AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < now())
          RETURNING *
       )
       SELECT r.*, ${json.states} AS states, ${json.outputs} AS outputs FROM r`,
      [runId, owner, leaseMs],
    );
    const row = rows[0];
    return row ? { run: toRun(row), ...runStateFromJson(row) } : null;
  }

  async renewLease(runId: string, owner: string, leaseMs: number): Promise<boolean> {
    const rows = await preparedRows(
      this.kit.db,
      `UPDATE runs SET lease_until = now() + ($3::int * interval '1 millisecond')
        WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING id`,
      [runId, owner, leaseMs],
    );
    return rows.length > 0;
  }

  /** Give the run up (it stopped); `activeMs`, the lease's active time, is added to the run's. */
  async releaseLease(runId: string, owner: string, activeMs = 0): Promise<void> {
    await this.flush(runId, owner).catch(() => undefined);
    await preparedRows(this.kit.db, 'UPDATE runs SET lease_owner = NULL, lease_until = NULL, active_ms = active_ms + $3::bigint WHERE id = $1 AND lease_owner = $2', [runId, owner, Math.max(0, Math.round(activeMs))]);
  }

  async nodeStarted(runId: string, owner: string, nodeId: string, attempt: number, payload: Record<string, unknown>): Promise<void> {
    await this.transition(runId, owner, nodeId, [{ type: 'node_start', payload: { attempt, ...payload } }], (p) => ({
      changes: [
        `UPDATE node_states SET status = 'running', attempt = ${p(attempt)}::int, error = NULL, started_at = now(), wait_until = NULL
          WHERE run_id = $1::uuid AND node_id = $4::text AND EXISTS (SELECT 1 FROM r)`,
      ],
    }));
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
    /** The completion may be held for the run's next statement (see the header). */
    opts: { defer?: boolean } = {},
  ): Promise<void> {
    const frames: Frame[] = [...(startPayload ? [{ type: 'node_start', payload: startPayload }] : []), { type: 'node_complete', payload }];
    if (opts.defer && this.batching) {
      const ids = aliasNodeId ? [nodeId, aliasNodeId] : [nodeId];
      await this.defer(runId, owner, {
        nodeId,
        frames,
        timestamp: new Date().toISOString(),
        status: 'completed',
        attempt: typeof payload.attempt === 'number' ? payload.attempt : null,
        skipReason: null,
        output: { json: JSON.stringify(output ?? null), ids },
      });
      return;
    }
    await this.transition(runId, owner, nodeId, frames, (p) => ({
      changes: [
        `UPDATE node_states SET status = 'completed', finished_at = now(), wait_until = NULL,
                started_at = COALESCE(started_at, now()), attempt = COALESCE(${p(typeof payload.attempt === 'number' ? payload.attempt : null)}::int, attempt)
          WHERE run_id = $1::uuid AND node_id = $4::text AND EXISTS (SELECT 1 FROM r)`,
        `INSERT INTO node_outputs (run_id, node_id, output)
         SELECT $1::uuid, n, ${p(JSON.stringify(output ?? null))}::jsonb FROM r, unnest(${p(aliasNodeId ? [nodeId, aliasNodeId] : [nodeId])}::text[]) AS n
         ON CONFLICT (run_id, node_id) DO UPDATE SET output = EXCLUDED.output, created_at = now()`,
      ],
    }));
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
    /** A skip may be held for the run's next statement (see the header). */
    opts: { defer?: boolean } = {},
  ): Promise<void> {
    if (opts.defer && status === 'skipped' && this.batching) {
      await this.defer(runId, owner, {
        nodeId,
        frames: [{ type: 'node_complete', payload }],
        timestamp: new Date().toISOString(),
        status: 'skipped',
        attempt: null,
        skipReason,
      });
      return;
    }
    await this.transition(runId, owner, nodeId, [{ type: status === 'failed' ? 'node_error' : 'node_complete', payload }], (p) => ({
      changes: [
        `UPDATE node_states SET status = ${p(status)}::text, error = ${p(error)}::text, skip_reason = ${p(skipReason)}::text, finished_at = now(), wait_until = NULL
          WHERE run_id = $1::uuid AND node_id = $4::text AND EXISTS (SELECT 1 FROM r)`,
      ],
    }));
  }

  /** A node starts waiting (approval, delay, subflow, a map whose iterations wait), fenced by the lease; `frame` is emitted with it. */
  async nodeWaiting(runId: string, owner: string, nodeId: string, waitUntil: Date | null, frame: Frame | null, childRunId: string | null = null): Promise<void> {
    const set = (p: Bind) => [
      `UPDATE node_states SET status = 'waiting', wait_until = ${p(waitUntil)}::timestamptz, child_run_id = COALESCE(${p(childRunId)}::uuid, child_run_id)
        WHERE run_id = $1::uuid AND node_id = $4::text AND EXISTS (SELECT 1 FROM r)`,
    ];
    if (frame) {
      await this.transition(runId, owner, nodeId, [frame], (p) => ({ changes: set(p) }));
      return;
    }
    await this.fenced(runId, owner, nodeId, set);
  }

  /** A waiting map node runs again (its iterations can move on); no frame. */
  async nodeResumed(runId: string, owner: string, nodeId: string): Promise<void> {
    await this.fenced(
      runId,
      owner,
      nodeId,
      () => [`UPDATE node_states SET status = 'running', wait_until = NULL WHERE run_id = $1::uuid AND node_id = $4::text AND status = 'waiting' AND EXISTS (SELECT 1 FROM r)`],
    );
  }

  /**
   * A map node's items are fixed for this attempt: stored beside its outputs,
   * with a pending state row per body node instance; instances of an earlier
   * attempt that did not complete (`reset`) start over. `frame`: e.g. the
   * `map_truncated` log frame.
   */
  async mapPrepared(
    runId: string,
    owner: string,
    nodeId: string,
    itemsRow: { key: string; value: unknown },
    instanceIds: string[],
    reset: string[],
    frame: Frame | null,
  ): Promise<void> {
    const parts = (p: Bind): TransitionParts => ({
      changes: [
        `INSERT INTO node_outputs (run_id, node_id, output) SELECT $1::uuid, ${p(itemsRow.key)}::text, ${p(JSON.stringify(itemsRow.value))}::jsonb FROM r
         ON CONFLICT (run_id, node_id) DO UPDATE SET output = EXCLUDED.output, created_at = now()`,
        `INSERT INTO node_states (run_id, node_id, status) SELECT $1::uuid, n, 'pending' FROM r, unnest(${p(instanceIds)}::text[]) AS n
         ON CONFLICT (run_id, node_id) DO NOTHING`,
        `UPDATE node_states SET status = 'pending', error = NULL, skip_reason = NULL, wait_until = NULL, decision = NULL, child_run_id = NULL, finished_at = NULL
          WHERE run_id = $1::uuid AND node_id = ANY(${p(reset)}::text[]) AND status <> 'completed' AND EXISTS (SELECT 1 FROM r)`,
      ],
    });
    // Its reset touches other node instances than its own: held settlements go first, on their own.
    if (frame) await this.transition(runId, owner, nodeId, [frame], parts, { exclusive: true });
    else await this.fenced(runId, owner, nodeId, (p) => parts(p).changes!);
  }

  /** Instances of a map that ended while some still waited or had not started: cancelled (no frame; the map's own frame says why). */
  async instancesCancelled(runId: string, owner: string, mapNodeId: string, ids: string[]): Promise<void> {
    if (!ids.length) return;
    await this.fenced(runId, owner, mapNodeId, (p) => [
      `UPDATE node_states SET status = 'cancelled', finished_at = now(), wait_until = NULL
        WHERE run_id = $1::uuid AND node_id = ANY(${p(ids)}::text[]) AND status IN ('pending','running','waiting') AND EXISTS (SELECT 1 FROM r)`,
    ]);
  }

  /** The rollback begins: its plan is kept on the run, each node to roll back is marked pending. */
  async rollbackStarted(runId: string, owner: string, state: RollbackState, payload: Record<string, unknown>): Promise<void> {
    await this.transition(runId, owner, null, [{ type: 'rollback_started', payload }], (p) => ({
      runSet: `rollback = ${p(JSON.stringify(state))}::jsonb,`,
      changes: [
        `UPDATE node_states SET rollback_status = 'pending' WHERE run_id = $1::uuid AND node_id = ANY(${p(state.order)}::text[]) AND EXISTS (SELECT 1 FROM r)`,
      ],
    }), { exclusive: true });
  }

  /** One node's rollback action ran (ok) or failed; recorded once. */
  async nodeRolledBack(runId: string, owner: string, nodeId: string, ok: boolean, payload: Record<string, unknown>): Promise<void> {
    await this.transition(runId, owner, nodeId, [{ type: 'node_rolled_back', payload: { ok, ...payload } }], (p) => ({
      changes: [
        `UPDATE node_states SET rollback_status = ${p(ok ? 'done' : 'failed')}::text WHERE run_id = $1::uuid AND node_id = $4::text AND EXISTS (SELECT 1 FROM r)`,
      ],
    }));
  }

  /**
   * The run ends: `complete` (after `before` frames, e.g. `validation_error`
   * or `rollback_complete`), unfinished nodes cancelled, the lease released.
   * A subflow child also wakes its parent in the same statement: a parked
   * parent is queued again and gets a work item. Returns the run's own child
   * runs that are still unfinished (read by the same statement).
   */
  async finish(
    runId: string,
    owner: string,
    status: 'completed' | 'failed',
    error: string | null,
    payload: Record<string, unknown>,
    opts: {
      before?: Frame[];
      goalConditionResults?: unknown[];
      /** A policy firing this finish applies. */
      firingKey?: string;
      /** What the run did (task_status and step counts), kept on the run row. */
      outcome?: TaskOutcome;
      /** A monitor cycle's watermarks and suppressed status, written with the completion (monitor-completion.sql.ts). */
      monitor?: MonitorCompletion;
      /** An agent run: the connectors it called, entities and outputs (domain/agent-facts.ts). */
      agentFacts?: AgentFacts;
    } = {},
  ): Promise<string[]> {
    const frames: Frame[] = [...(opts.before ?? []), { type: 'complete', payload: { status, ...(error ? { error } : {}), ...payload } }];
    const row = await this.transition(runId, owner, null, frames, (p, heldIds) => {
      const parent = `(SELECT parent_run_id FROM runs WHERE id = $1::uuid)`;
      return {
        runSet: `status = ${p(status)}::text, error = ${p(error)}::text, lease_owner = NULL, lease_until = NULL,
                 goal_condition_results = ${p(opts.goalConditionResults ? JSON.stringify(opts.goalConditionResults) : null)}::jsonb,
                 ${opts.outcome ? outcomeSet(p, opts.outcome) : ''}
                 ${opts.agentFacts ? agentFactsSet(p, opts.agentFacts) : ''}`,
        changes: [
          // Held settlements written by this same statement are not cancelled (one statement must not update a row twice).
          `UPDATE node_states SET status = 'cancelled' WHERE run_id = $1::uuid AND status IN ('pending','running','waiting')
              AND node_id <> ALL(${heldIds()}::text[]) AND EXISTS (SELECT 1 FROM r)`,
          `UPDATE runs SET status = 'queued', updated_at = now() WHERE id = ${parent} AND status = 'waiting' AND EXISTS (SELECT 1 FROM r)`,
          ...(opts.firingKey ? [firingAppliedSql(p, opts.firingKey, 'applied')] : []),
          ...(opts.monitor ? monitorCompletionSql(p, opts.monitor) : []),
        ],
        outbox: `INSERT INTO outbox (subject, payload, msg_id)
           SELECT ${p(this.kit.subjects.runWork(''))}::text || x.parent_run_id::text, jsonb_build_object('runId', x.parent_run_id::text),
                  'work:' || x.parent_run_id::text || ':child:' || $1::text
             FROM runs x WHERE x.id = $1::uuid AND x.parent_run_id IS NOT NULL AND EXISTS (SELECT 1 FROM r)
           RETURNING id, subject, payload, msg_id`,
        extra: `(SELECT array_agg(c.id::text) FROM runs c WHERE c.parent_run_id = $1::uuid AND c.status IN ('queued','running','waiting','paused'))`,
      };
    });
    return (row.extra as string[] | null) ?? [];
  }

  /**
   * Park a run nothing can move: release the lease and mark it waiting — unless
   * a waiting node became resolvable meanwhile (a decision, a due timer, a
   * finished child run; then false: keep executing). A parked run's
   * `active_ms` grows by `activeMs`, the active time of the lease it ends.
   */
  async park(runId: string, owner: string, awaitingPerson = false, activeMs = 0): Promise<boolean> {
    await this.flush(runId, owner);
    const rows = await preparedRows(
      this.kit.db,
      `UPDATE runs SET status = 'waiting', lease_owner = NULL, lease_until = NULL, updated_at = now(), active_ms = active_ms + $3::bigint,
              task_status = ${awaitingPerson ? `'awaiting_approval'` : 'NULL'}
        WHERE id = $1 AND lease_owner = $2 AND status = 'running' AND (policy_timer IS NULL OR policy_timer > now())
          AND NOT EXISTS (SELECT 1 FROM node_states n LEFT JOIN runs c ON c.id = n.child_run_id
                           WHERE n.run_id = $1 AND n.status = 'waiting'
                             AND (n.decision IS NOT NULL OR n.wait_until <= now() OR c.status IN ${TERMINAL}))
        RETURNING id`,
      [runId, owner, Math.max(0, Math.round(activeMs))],
    );
    if (rows.length) return true;
    await this.fence(runId, owner);
    return false;
  }

  /** Completed node instances and the seq of their (last) `node_complete` — not cached or skipped ones (held settlements are written first). */
  async completions(runId: string, owner: string): Promise<Map<string, number>> {
    await this.flush(runId, owner);
    const rows = await preparedRows<{ node_id: string; seq: string }>(
      this.kit.db,
      `SELECT e.node_id, max(e.seq) AS seq FROM run_events e JOIN node_states n ON n.run_id = e.run_id AND n.node_id = e.node_id
        WHERE e.run_id = $1 AND e.type = 'node_complete' AND n.status = 'completed'
          AND NOT (e.payload ? 'cached') AND NOT (e.payload ? 'skipped')
        GROUP BY e.node_id`,
      [runId],
    );
    return new Map(rows.map((r) => [r.node_id, Number(r.seq)]));
  }

  /**
   * A runtime policy fired: the firing row (pending for a halting action not
   * applied yet, applied otherwise) with `policy_triggered` and the action's
   * own frames, in one statement. `gateId`: a hitl gate opens as a waiting
   * entry; `policyTimer`: the next onTimeout deadline (null: none left).
   */
  async policyFired(
    runId: string,
    owner: string,
    firing: { key: string; policyId: string; trigger: Record<string, unknown>; action: unknown; status: 'pending' | 'applied' },
    frames: Frame[],
    opts: { gateId?: string; policyTimer?: Date | null; nodeId?: string | null } = {},
  ): Promise<void> {
    await this.transition(runId, owner, opts.nodeId ?? null, frames, (p) => ({
      ...(opts.policyTimer !== undefined ? { runSet: `policy_timer = ${p(opts.policyTimer)}::timestamptz,` } : {}),
      changes: [
        `INSERT INTO policy_firings (run_id, key, policy_id, trigger, action, status, applied_at)
         SELECT $1::uuid, ${p(firing.key)}::text, ${p(firing.policyId)}::text, ${p(JSON.stringify(firing.trigger))}::jsonb, ${p(JSON.stringify(firing.action))}::jsonb,
                ${p(firing.status)}::text, CASE WHEN ${p(firing.status)}::text = 'applied' THEN now() END FROM r`,
        ...(opts.gateId
          ? [
              `INSERT INTO node_states (run_id, node_id, status, attempt, started_at) SELECT $1::uuid, ${p(opts.gateId)}::text, 'waiting', 1, now() FROM r
               ON CONFLICT (run_id, node_id) DO NOTHING`,
            ]
          : []),
      ],
    }));
  }

  /**
   * A pending firing is applied (or waits for a plan): its frames, and with
   * `pause` the run is paused and its lease released, in one statement.
   */
  async policyApplied(runId: string, owner: string, key: string, frames: Frame[], opts: { pause?: boolean; status?: 'applied' | 'awaiting_plan' } = {}): Promise<void> {
    await this.transition(runId, owner, null, frames, (p) => ({
      ...(opts.pause ? { runSet: `status = 'paused', lease_owner = NULL, lease_until = NULL,` } : {}),
      changes: [firingAppliedSql(p, key, opts.status ?? 'applied')],
    }));
  }

  /** A decided hitl gate closes (completed on approve, skipped on reject), with its follow-up firing if any. */
  async gateClosed(
    runId: string,
    owner: string,
    gateId: string,
    approved: boolean,
    followUp: { firing: { key: string; policyId: string; trigger: Record<string, unknown>; action: unknown; status: 'pending' | 'applied' }; frames: Frame[]; gateId?: string } | null,
  ): Promise<void> {
    await this.transition(runId, owner, null, followUp?.frames ?? [], (p) => ({
      changes: [
        `UPDATE node_states SET status = ${p(approved ? 'completed' : 'skipped')}::text, skip_reason = ${p(approved ? null : 'rejected')}::text, finished_at = now()
          WHERE run_id = $1::uuid AND node_id = ${p(gateId)}::text AND status = 'waiting' AND EXISTS (SELECT 1 FROM r)`,
        ...(followUp
          ? [
              `INSERT INTO policy_firings (run_id, key, policy_id, trigger, action, status, applied_at)
               SELECT $1::uuid, ${p(followUp.firing.key)}::text, ${p(followUp.firing.policyId)}::text, ${p(JSON.stringify(followUp.firing.trigger))}::jsonb,
                      ${p(JSON.stringify(followUp.firing.action))}::jsonb, ${p(followUp.firing.status)}::text, CASE WHEN ${p(followUp.firing.status)}::text = 'applied' THEN now() END FROM r`,
              ...(followUp.gateId
                ? [
                    `INSERT INTO node_states (run_id, node_id, status, attempt, started_at) SELECT $1::uuid, ${p(followUp.gateId)}::text, 'waiting', 1, now() FROM r
                     ON CONFLICT (run_id, node_id) DO NOTHING`,
                  ]
                : []),
            ]
          : []),
      ],
    }));
  }

  /** Frames of the running run with no state change (e.g. plan_requested), fenced by the lease. */
  async frames(runId: string, owner: string, frames: Frame[], nodeId: string | null = null): Promise<void> {
    await this.transition(runId, owner, nodeId, frames, () => ({}));
  }

  /** A cached node output that has not expired, or undefined. */
  async cacheGet(userId: string, key: string): Promise<{ output: unknown } | undefined> {
    const rows = await preparedRows(this.kit.db, 'SELECT output FROM node_cache WHERE user_id = $1 AND key = $2 AND expires_at > now()', [userId, key]);
    return rows[0] ? { output: rows[0].output } : undefined;
  }

  async cachePut(userId: string, key: string, output: unknown, ttlSeconds: number): Promise<void> {
    await preparedRows(
      this.kit.db,
      `INSERT INTO node_cache (user_id, key, output, expires_at) VALUES ($1, $2, $3::jsonb, now() + ($4::int * interval '1 second'))
       ON CONFLICT (user_id, key) DO UPDATE SET output = EXCLUDED.output, expires_at = EXCLUDED.expires_at`,
      [userId, key, JSON.stringify(output ?? null), ttlSeconds],
    );
  }

  /** Writes the run's held settlements now (no-op when none are held). */
  async flush(runId: string, owner: string): Promise<void> {
    await this.untilCarried(runId);
    if (this.batches.get(runId)?.items.length) await this.transition(runId, owner, null, [], () => ({}));
  }

  /** Forgets what this execution held for the run (the execution ended; the stored states are what counts). */
  discard(runId: string): void {
    this.batches.delete(runId);
  }

  /** Hold a settlement for the run's next statement; written at once when `batchMax` are held. */
  private async defer(runId: string, owner: string, item: Deferred): Promise<void> {
    const ids = item.output?.ids ?? [item.nodeId];
    let batch = this.batches.get(runId);
    if (batch?.poisoned) throw batch.poisoned;
    // One statement must not write a row twice: a second settlement of the same node goes after the first.
    if (batch && ids.some((id) => batch!.ids.has(id))) await this.flush(runId, owner);
    batch = this.batches.get(runId);
    if (!batch) {
      batch = { items: [], ids: new Set() };
      this.batches.set(runId, batch);
    }
    batch.items.push(item);
    for (const id of ids) batch.ids.add(id);
    if (batch.items.length >= this.batchMax) await this.flush(runId, owner);
  }

  /** Waits until no statement carrying held settlements of the run is in flight; throws when one failed. */
  private async untilCarried(runId: string): Promise<void> {
    for (let batch = this.batches.get(runId); batch; batch = this.batches.get(runId)) {
      if (batch.poisoned) throw batch.poisoned;
      if (!batch.carrying) return;
      await batch.carrying;
    }
  }

  /**
   * One state transition of a running run as ONE statement (one round trip,
   * atomic on its own): bump the per-run sequence — fenced by the lease —,
   * append the frames' event rows and outbox messages, and apply the parts
   * (which may use $1 run id and $4 node id). Settlements held for the run
   * come first, in the same statement (`exclusive`: in a statement of their
   * own before, for parts that touch other nodes' rows). Throws
   * LeaseLostError when fenced.
   */
  private async transition(
    runId: string,
    owner: string,
    nodeId: string | null,
    frames: Frame[],
    /** `heldIds()` binds the ids of the settlements this statement carries (text[]). */
    build: (p: Bind, heldIds: () => string) => TransitionParts,
    opts: { exclusive?: boolean } = {},
  ): Promise<TransitionRow> {
    // Causal order: a statement carrying earlier settlements commits before this one is sent.
    await this.untilCarried(runId);
    let batch = this.batches.get(runId);
    if (batch?.items.length && (opts.exclusive || (nodeId !== null && batch.ids.has(nodeId)))) {
      await this.transition(runId, owner, null, [], () => ({}));
      await this.untilCarried(runId);
      batch = this.batches.get(runId);
    }
    const held = batch?.items.splice(0) ?? [];
    batch?.ids.clear();
    const now = new Date().toISOString();
    const all = [...held.flatMap((d) => d.frames), ...frames];
    // $1 run, $2 owner, $3 frame times, $4 node, $5 subject prefix, $6 frame types, $7 frame payloads, $8 frame nodes,
    // $9 frame count; the parts bind from $10.
    const params: unknown[] = [
      runId,
      owner,
      [...held.flatMap((d) => d.frames.map(() => d.timestamp)), ...frames.map(() => now)],
      nodeId,
      this.kit.subjects.run(runId, ''),
      all.map((f) => f.type),
      all.map((f) => JSON.stringify(f.payload)),
      [...held.flatMap((d) => d.frames.map(() => d.nodeId)), ...frames.map(() => nodeId)],
      all.length,
    ];
    const p: Bind = (value) => {
      params.push(value);
      return `$${params.length}`;
    };
    const parts = build(p, () => p(held.flatMap((d) => d.output?.ids ?? [d.nodeId])));
    const changes = [...(held.length ? heldSql(p, held) : []), ...(parts.changes ?? [])].map((sql, i) => `, c${i} AS (\n${sql}\n)`).join('');
    const more = parts.outbox ? `, more AS (\n${parts.outbox}\n)` : '';
    const statement = preparedRows<TransitionRow>(
      this.kit.db,
      `WITH r AS (
         UPDATE runs SET ${parts.runSet ?? ''} last_seq = last_seq + $9::int, updated_at = now()
          WHERE id = $1::uuid AND lease_owner = $2::text AND status = 'running' RETURNING last_seq, $4::text AS node_id
       ), f AS (
         SELECT r.last_seq - $9::int + x.i AS seq, x.type, x.payload, x.node_id, x.ts
           FROM r, unnest($6::text[], $7::jsonb[], $8::text[], $3::text[]) WITH ORDINALITY AS x(type, payload, node_id, ts, i)
       ), e AS (
         INSERT INTO run_events (run_id, seq, type, node_id, payload, created_at)
         SELECT $1::uuid, seq, type, node_id, payload, ts::timestamptz FROM f
       ), ob AS (
         INSERT INTO outbox (subject, payload, msg_id)
         SELECT ${p(OUTBOX_BATCH_SUBJECT)}::text,
                jsonb_agg(jsonb_build_object(
                  'subject', $5::text || type,
                  'payload', jsonb_build_object('runId', $1::text, 'seq', seq, 'type', type, 'timestamp', ts, 'payload', payload)
                               || CASE WHEN node_id IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('nodeId', node_id) END,
                  'msgId', 'run:' || $1::text || ':' || seq) ORDER BY seq),
                'batch:run:' || $1::text || ':' || min(seq)
           FROM f HAVING count(*) > 0
         RETURNING id
       )${changes}${more}
       SELECT last_seq, (SELECT id FROM ob) AS ob_id,
              ${more ? `(SELECT json_agg(json_build_object('id', id, 'subject', subject, 'payload', payload, 'msgId', msg_id)) FROM more)` : 'NULL'} AS more,
              ${parts.extra ?? 'NULL'} AS extra
         FROM r`,
      params,
    );
    if (held.length && batch) {
      // Settles either way (failures are the caller's to handle; the next writer only waits).
      const carrying: Promise<unknown> = statement.then(
        () => undefined,
        () => undefined,
      ).finally(() => {
        if (batch!.carrying === carrying) batch!.carrying = undefined;
      });
      batch.carrying = carrying;
    }
    let rows: TransitionRow[];
    try {
      rows = await statement;
    } catch (err) {
      // The held settlements are gone with the statement; the execution's memory no longer matches the stored run.
      if (held.length && batch && this.batches.get(runId) === batch) batch.poisoned = err as Error;
      throw err;
    }
    if (!rows.length) throw new LeaseLostError(runId);
    const row = rows[0]!;
    const lastSeq = Number(row.last_seq);
    for (const f of all) this.kit.metrics.events.inc({ type: f.type });
    // Published from here at once (the relay is the fallback), built from what this statement wrote: one
    // outbox row holds all its frames (OUTBOX_BATCH_SUBJECT), each published as a message of its own.
    const times = params[2] as string[];
    const nodes = params[7] as Array<string | null>;
    const messages: OutboxRow[] = all.map((f, i) => {
      const seq = lastSeq - all.length + i + 1;
      const msgId = `run:${runId}:${seq}`;
      return {
        id: String(row.ob_id),
        subject: this.kit.subjects.run(runId, f.type),
        payload: { runId, seq, type: f.type, timestamp: times[i], payload: f.payload, ...(nodes[i] !== null ? { nodeId: nodes[i] } : {}) },
        msgId,
      };
    });
    for (const m of row.more ?? []) messages.push({ id: String(m.id), subject: m.subject, payload: m.payload, msgId: m.msgId });
    this.kit.relay.publishCommitted(messages);
    return row;
  }

  /** A write without a frame, fenced by the lease in the same statement (the run row is locked, like a transition). */
  private async fenced(runId: string, owner: string, nodeId: string, build: (p: Bind) => string[]): Promise<void> {
    await this.flush(runId, owner);
    // $3 is unused (kept so node id is $4, as in transitions).
    const params: unknown[] = [runId, owner, null, nodeId];
    const changes = build((value) => {
      params.push(value);
      return `$${params.length}`;
    })
      .map((sql, i) => `, c${i} AS (\n${sql}\n)`)
      .join('');
    const rows = await preparedRows(
      this.kit.db,
      `WITH r AS (
         UPDATE runs SET updated_at = now() WHERE id = $1::uuid AND lease_owner = $2::text AND status = 'running' RETURNING id, $3::text AS fence_unused, $4::text AS fence_node
       )${changes}
       SELECT id FROM r`,
      params,
    );
    if (!rows.length) throw new LeaseLostError(runId);
  }

  /** Throws LeaseLostError unless `owner` holds the lease on a running run. */
  private async fence(runId: string, owner: string): Promise<void> {
    const rows = await preparedRows(this.kit.db, `SELECT 1 FROM runs WHERE id = $1 AND lease_owner = $2 AND status = 'running'`, [runId, owner]);
    if (!rows.length) throw new LeaseLostError(runId);
  }
}

/** The held settlements' node states and outputs, as parts of a fenced statement. */
function heldSql(p: Bind, held: Deferred[]): string[] {
  const outputs = held.flatMap((d) => (d.output ? d.output.ids.map((id) => [id, d.output!.json] as const) : []));
  return [
    `UPDATE node_states n SET status = d.status, attempt = COALESCE(d.attempt, n.attempt),
            skip_reason = CASE WHEN d.status = 'skipped' THEN d.skip_reason ELSE n.skip_reason END,
            error = CASE WHEN d.status = 'skipped' THEN NULL ELSE n.error END,
            started_at = CASE WHEN d.status = 'completed' THEN COALESCE(n.started_at, now()) ELSE n.started_at END,
            finished_at = now(), wait_until = NULL
       FROM unnest(${p(held.map((d) => d.nodeId))}::text[], ${p(held.map((d) => d.status))}::text[], ${p(held.map((d) => d.attempt))}::int[],
                   ${p(held.map((d) => d.skipReason))}::text[]) AS d(node_id, status, attempt, skip_reason)
      WHERE n.run_id = $1::uuid AND n.node_id = d.node_id AND EXISTS (SELECT 1 FROM r)`,
    ...(outputs.length
      ? [
          `INSERT INTO node_outputs (run_id, node_id, output)
           SELECT $1::uuid, o.node_id, o.output FROM r, unnest(${p(outputs.map((o) => o[0]))}::text[], ${p(outputs.map((o) => o[1]))}::jsonb[]) AS o(node_id, output)
           ON CONFLICT (run_id, node_id) DO UPDATE SET output = EXCLUDED.output, created_at = now()`,
        ]
      : []),
  ];
}

/** Marks a policy firing applied (or awaiting a plan) inside a fenced statement. */
function firingAppliedSql(p: Bind, key: string, status: 'applied' | 'awaiting_plan'): string {
  return `UPDATE policy_firings SET status = ${p(status)}::text, applied_at = now() WHERE run_id = $1::uuid AND key = ${p(key)}::text AND EXISTS (SELECT 1 FROM r)`;
}
