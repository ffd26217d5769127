/**
 * Run records and the request-side changes to them (create, pause, resume,
 * cancel), each with its event in one transaction (state + run_events +
 * outbox). The executor's lease-fenced writes are in run-execution.store.ts,
 * timers / orphans / retention in run-maintenance.ts.
 */
import { randomUUID } from 'node:crypto';
import { AppError, sqlRows, type OutboxMessage, type ServiceKit } from '@af/service-kit';
import type { PlanGraph } from '@af/plan';
import type { EntityManager } from 'typeorm';
import type { Decision, NodeState, NodeStatus, Run, RunFrame, RunStatus, RunView } from '../domain/run-state.js';
import { locateNode, parseInstanceId } from '../domain/instance-id.js';
import { outcomePayload, type TaskStatus } from '../domain/task-outcome.js';
import { preparedRows } from './prepared.js';
import { recordOutcome } from './run-outcome.sql.js';
import { agentFramePayload, type AgentFacts } from '../domain/agent-facts.js';


type Emit = (...msgs: OutboxMessage[]) => void;

export interface RunRow {
  id: string;
  user_id: string;
  team_ids?: string[] | null;
  status: RunStatus;
  run_context: string;
  plan: PlanGraph;
  plan_version: number;
  inputs: Record<string, unknown>;
  error: string | null;
  created_at: Date;
  updated_at: Date;
  parent_run_id?: string | null;
  parent_node_id?: string | null;
  depth?: number;
  output_contract?: Record<string, unknown> | null;
  goal_condition?: unknown[] | null;
  goal_condition_results?: unknown[] | null;
  rollback?: Run['rollback'];
  policies?: Run['policies'];
  policy_timer?: Date | null;
  last_execution_at?: Date | null;
  task_status?: TaskStatus | null;
  steps_completed?: number | null;
  steps_failed?: number | null;
  steps_skipped?: number | null;
  error_summary?: string | null;
  /** bigint: pg answers text. */
  active_ms?: string | number | null;
  agent_profile_id?: string | null;
  invoked_by?: string | null;
  agent_team_id?: string | null;
  connectors_called?: AgentFacts['connectorsCalled'] | null;
  entities_discovered?: number | null;
  outputs_produced?: AgentFacts['outputsProduced'] | null;
}

interface NodeRow {
  node_id: string;
  status: NodeStatus;
  attempt: number;
  error: string | null;
  started_at: Date | null;
  finished_at: Date | null;
  wait_until: Date | null;
  skip_reason: string | null;
  decision: Decision | null;
  child_run_id?: string | null;
  rollback_status?: string | null;
  approval_request_id?: string | null;
}

const toNodeState = (r: NodeRow): NodeState => ({
  nodeId: r.node_id,
  status: r.status,
  attempt: r.attempt,
  error: r.error,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  waitUntil: r.wait_until,
  skipReason: r.skip_reason,
  decision: r.decision,
  childRunId: r.child_run_id ?? null,
  rollbackStatus: r.rollback_status ?? null,
});

/** A waiting node state as the engine re-reads it, with its child run's status (subflows). */
export interface WaitingRow extends NodeState {
  childStatus: string | null;
  /** The approval-service request the node waits for (approval, human, clarify and policy gates). */
  approvalRequestId: string | null;
}

const dateOrNull = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(v as string));

/** A node_states row read as JSON (`to_jsonb(n)`, timestamps as text), with its child run's status. */
export function nodeStateFromJson(j: Record<string, unknown>): WaitingRow {
  return {
    ...toNodeState({
      ...(j as unknown as NodeRow),
      started_at: dateOrNull(j.started_at),
      finished_at: dateOrNull(j.finished_at),
      wait_until: dateOrNull(j.wait_until),
    }),
    childStatus: (j.child_status as string | null | undefined) ?? null,
    approvalRequestId: (j.approval_request_id as string | null | undefined) ?? null,
  };
}

/**
 * SQL for a run's node states (each with its subflow child's status) and
 * outputs as JSON, read in the statement that uses them; `runId` is an SQL
 * expression. Parsed by runStateFromJson.
 */
export function runStateJsonSql(runId: string): { states: string; outputs: string } {
  return {
    states: `(SELECT json_agg(to_jsonb(n) || jsonb_build_object('child_status', c.status))
                FROM node_states n LEFT JOIN runs c ON c.id = n.child_run_id WHERE n.run_id = ${runId})`,
    outputs: `(SELECT json_agg(json_build_object('node_id', o.node_id, 'output', o.output)) FROM node_outputs o WHERE o.run_id = ${runId})`,
  };
}

export interface RunStateJson {
  states: Array<Record<string, unknown>> | null;
  outputs: Array<{ node_id: string; output: unknown }> | null;
}

/** The columns runStateJsonSql reads: node states by instance id, the waiting ones (with child status and request), outputs. */
export function runStateFromJson(j: RunStateJson): { states: Map<string, NodeState>; waiting: Map<string, WaitingRow>; outputs: Map<string, unknown> } {
  const states = new Map<string, NodeState>();
  const waiting = new Map<string, WaitingRow>();
  for (const sj of j.states ?? []) {
    const { childStatus, approvalRequestId, ...state } = nodeStateFromJson(sj);
    states.set(state.nodeId, state);
    if (state.status === 'waiting') waiting.set(state.nodeId, { ...state, childStatus, approvalRequestId });
  }
  return { states, waiting, outputs: new Map((j.outputs ?? []).map((o) => [o.node_id, o.output])) };
}

const ACTIVE = `('queued','running','waiting','paused')`;
const TERMINAL_STATUSES: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'cancelled']);

export const toRun = (r: RunRow): Run => ({
  id: r.id,
  userId: r.user_id,
  teamIds: r.team_ids ?? [],
  lastExecutionAt: r.last_execution_at ?? null,
  activeMs: Number(r.active_ms ?? 0),
  status: r.status,
  // A run queued again after it parked waiting on a person keeps the column until it is leased: it is not awaiting anyone.
  taskStatus: r.task_status && (r.status === 'waiting' || TERMINAL_STATUSES.has(r.status)) ? r.task_status : null,
  stepsCompleted: r.steps_completed ?? 0,
  stepsFailed: r.steps_failed ?? 0,
  stepsSkipped: r.steps_skipped ?? 0,
  errorSummary: r.error_summary ?? null,
  runContext: r.run_context,
  plan: r.plan,
  planVersion: r.plan_version,
  inputs: r.inputs,
  error: r.error,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  parentRunId: r.parent_run_id ?? null,
  parentNodeId: r.parent_node_id ?? null,
  depth: r.depth ?? 0,
  outputContract: r.output_contract ?? null,
  goalCondition: r.goal_condition ?? null,
  goalConditionResults: r.goal_condition_results ?? null,
  rollback: r.rollback ?? null,
  policies: r.policies ?? null,
  policyTimer: r.policy_timer ?? null,
  agent: r.agent_profile_id ? { profileId: r.agent_profile_id, invokedBy: r.invoked_by ?? r.user_id, teamId: r.agent_team_id ?? null } : null,
  agentFacts: r.agent_profile_id
    ? { connectorsCalled: r.connectors_called ?? [], entitiesDiscovered: r.entities_discovered ?? 0, outputsProduced: r.outputs_produced ?? [] }
    : null,
});

/**
 * An execution slot on this replica, offered to a run being created: the run
 * is created with this owner's lease already taken, then handed to `start`
 * with what it starts from (all nodes pending, no outputs); `abandon` gives
 * the slot back when nothing was created.
 */
export interface LocalClaim {
  owner: string;
  leaseMs: number;
  start(leased: { run: Run; states: Map<string, NodeState>; waiting: Map<string, WaitingRow>; outputs: Map<string, unknown> }): void;
  abandon(): void;
}

export class RunRepository {
  private claim: () => LocalClaim | null = () => null;

  constructor(private readonly kit: ServiceKit) {}

  /** Where created runs may start at once (see LocalClaim); without it they wait for their work item. */
  claimLocally(claim: () => LocalClaim | null): void {
    this.claim = claim;
  }

  /**
   * Create the run, its node states, plan version 1, the `start` frame and
   * the work item in ONE statement (one round trip, atomic on its own) — or
   * return the run an earlier call with the same key created. With a local
   * claim the run is created running, leased to this replica, and starts here
   * at once, without a work item (if this replica dies first, the lease lapses
   * and the sweeper hands the run to another one).
   */
  async create(input: {
    userId: string;
    /** The starting principal's teams (a subflow child: its parent's). */
    teamIds?: readonly string[];
    plan: PlanGraph;
    inputs: Record<string, unknown>;
    runContext: string;
    idempotencyKey: string | null;
    /** A subflow child: the parent run and the node instance waiting for it. */
    parent?: { runId: string; nodeId: string; depth: number };
    outputContract?: Record<string, unknown> | null;
    goalCondition?: unknown[] | null;
    /** Validated runtime policies, and the age (ms) at which the earliest onTimeout one fires. */
    policies?: Run['policies'];
    policyTimeoutMs?: number | null;
    /** A run id derived by the caller (a schedule fire: from the schedule and fire time); default random. */
    id?: string;
    /** The agent the run answers for. */
    agent?: { profileId: string; invokedBy: string; teamId: string | null } | null;
  }): Promise<{ run: Run; created: boolean }> {
    const id = input.id ?? randomUUID();
    const nodeIds = input.plan.nodes.map((n) => n.id);
    const timestamp = new Date().toISOString();
    const start: RunFrame = {
      runId: id,
      seq: 1,
      type: 'start',
      timestamp,
      payload: {
        planVersion: 1,
        nodeCount: nodeIds.length,
        runContext: input.runContext,
        ...(input.parent ? { parentRunId: input.parent.runId, parentNodeId: input.parent.nodeId } : {}),
      },
    };
    const claim = this.claim();
    // A run created leased here needs no work item: if this replica dies, its lease lapses and the sweeper
    // (RunWorkConsumer.sweepOnce) queues it for another one — the same path that covers any execution lost mid-way.
    const messages: OutboxMessage[] = [
      { subject: this.kit.subjects.run(id, 'start'), payload: start, msgId: `run:${id}:1` },
      ...(claim ? [] : [{ subject: this.kit.subjects.runWork(id), payload: { runId: id }, msgId: `work:${id}:start` }]),
    ];
    let rows: Array<RunRow & { ob_ids: string[] | null; ob_msg_ids: string[] | null }>;
    try {
      rows = await preparedRows(
      this.kit.db,
      `WITH ins AS (
         INSERT INTO runs (id, user_id, status, run_context, plan, inputs, idempotency_key, parent_run_id, parent_node_id, depth, output_contract, goal_condition,
                           policies, policy_timer, last_seq, lease_owner, lease_until, team_ids, last_execution_at, agent_profile_id, invoked_by, agent_team_id)
         VALUES ($1, $2, CASE WHEN $20::text IS NULL THEN 'queued' ELSE 'running' END, $3, $4::jsonb, $5::jsonb, $6, $7, $8, $9, $10::jsonb, $11::jsonb,
                 $12::jsonb, now() + ($13::bigint * interval '1 millisecond'), 1,
                 $20::text, CASE WHEN $20::text IS NULL THEN NULL ELSE now() + ($21::int * interval '1 millisecond') END, $22::text[],
                 -- {last_execution_date}: the start of the owner's last finished run of the same stored playbook.
                 CASE WHEN $23::text IS NULL THEN NULL ELSE (
                   SELECT max(p.created_at) FROM runs p
                    WHERE p.user_id = $2 AND p.plan->'provenance'->>'sourceId' = $23::text AND p.status IN ('completed','failed','cancelled')
                 ) END,
                 $24::text, $25::text, $26::text)
         ON CONFLICT (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
         RETURNING *
       ), ns AS (
         INSERT INTO node_states (run_id, node_id, status) SELECT ins.id, n, 'pending' FROM ins, unnest($14::text[]) AS n
       ), pv AS (
         INSERT INTO plan_versions (run_id, version, plan, source) SELECT ins.id, 1, $4::jsonb, 'start' FROM ins
       ), ev AS (
         INSERT INTO run_events (run_id, seq, type, node_id, payload, created_at) SELECT ins.id, 1, 'start', NULL, $15::jsonb, $16::timestamptz FROM ins
       ), ob AS (
         INSERT INTO outbox (subject, payload, msg_id)
         SELECT m.subject, m.payload, m.msg_id FROM ins, unnest($17::text[], $18::jsonb[], $19::text[]) WITH ORDINALITY AS m(subject, payload, msg_id, i) ORDER BY m.i
         RETURNING id, msg_id
       )
       SELECT ins.*, (SELECT array_agg(id) FROM ob) AS ob_ids, (SELECT array_agg(msg_id) FROM ob) AS ob_msg_ids FROM ins`,
      [
        id,
        input.userId,
        input.runContext,
        JSON.stringify(input.plan),
        JSON.stringify(input.inputs),
        input.idempotencyKey,
        input.parent?.runId ?? null,
        input.parent?.nodeId ?? null,
        input.parent?.depth ?? 0,
        input.outputContract ? JSON.stringify(input.outputContract) : null,
        input.goalCondition?.length ? JSON.stringify(input.goalCondition) : null,
        input.policies?.length ? JSON.stringify(input.policies) : null,
        input.policyTimeoutMs ?? null,
        nodeIds,
        JSON.stringify(start.payload),
        timestamp,
        messages.map((m) => m.subject),
        messages.map((m) => JSON.stringify(m.payload)),
        messages.map((m) => m.msgId),
        claim?.owner ?? null,
        claim?.leaseMs ?? 0,
        [...new Set(input.teamIds ?? [])],
        input.plan.provenance?.frontEnd === 'playbook' ? (input.plan.provenance.sourceId ?? null) : null,
        input.agent?.profileId ?? null,
        input.agent ? input.agent.invokedBy : null,
        input.agent?.teamId ?? null,
      ],
    );
    } catch (err) {
      claim?.abandon();
      throw err;
    }
    const inserted = rows[0];
    if (!inserted) {
      claim?.abandon();
      const [existing]: RunRow[] = await sqlRows(this.kit.db, 'SELECT * FROM runs WHERE user_id = $1 AND idempotency_key = $2', [input.userId, input.idempotencyKey]);
      if (!existing) throw new AppError('ABORTED', 'the run was created and removed concurrently; retry', { retryable: true });
      return { run: toRun(existing), created: false };
    }
    this.kit.metrics.events.inc({ type: 'start' });
    const run = toRun(inserted);
    // First, so that the work item, when this process sees it go out, finds the run executing here.
    claim?.start({
      run,
      states: new Map(nodeIds.map((nodeId) => [nodeId, { nodeId, status: 'pending' as const, attempt: 0, error: null, startedAt: null, finishedAt: null, waitUntil: null, skipReason: null, decision: null, childRunId: null, rollbackStatus: null }])),
      waiting: new Map(),
      outputs: new Map(),
    });
    const ids = new Map((inserted.ob_msg_ids ?? []).map((m, i) => [m, String(inserted.ob_ids![i])]));
    this.kit.relay.publishCommitted(messages.map((m) => ({ ...m, id: ids.get(m.msgId)! })));
    return { run, created: true };
  }

  async get(runId: string): Promise<Run | null> {
    const rows: RunRow[] = await preparedRows(this.kit.db, 'SELECT * FROM runs WHERE id = $1', [runId]);
    return rows[0] ? toRun(rows[0]) : null;
  }

  /** The run with its node states and outputs, read by one statement (so as of one moment). */
  async view(runId: string): Promise<RunView | null> {
    const json = runStateJsonSql('r.id');
    const rows = await preparedRows<RunRow & RunStateJson>(this.kit.db, `SELECT r.*, ${json.states} AS states, ${json.outputs} AS outputs FROM runs r WHERE r.id = $1`, [runId]);
    const row = rows[0];
    if (!row) return null;
    const run = toRun(row);
    const { states: nodes, outputs } = runStateFromJson(row);
    const iterations = iterationStates(run, nodes);
    const instanceOutputs: Record<string, unknown> = {};
    for (const n of iterations) if (outputs.has(n.nodeId)) instanceOutputs[n.nodeId] = outputs.get(n.nodeId);
    return { ...run, nodes: topLevel(run, nodes), iterations, instanceOutputs, outputs: finalOutput(run, outputs) };
  }

  async nodeStates(runId: string): Promise<Map<string, NodeState>> {
    const rows: NodeRow[] = await preparedRows(this.kit.db, 'SELECT * FROM node_states WHERE run_id = $1', [runId]);
    return new Map(rows.map((r) => [r.node_id, toNodeState(r)]));
  }

  /** The run's waiting node states, fresh, with each subflow child's status. */
  async waitingStates(runId: string): Promise<Map<string, WaitingRow>> {
    const rows: Array<NodeRow & { child_status: string | null }> = await preparedRows(
      this.kit.db,
      `SELECT n.*, c.status AS child_status FROM node_states n LEFT JOIN runs c ON c.id = n.child_run_id
        WHERE n.run_id = $1 AND n.status = 'waiting'`,
      [runId],
    );
    return new Map(rows.map((r) => [r.node_id, { ...toNodeState(r), childStatus: r.child_status, approvalRequestId: r.approval_request_id ?? null }]));
  }

  async outputs(runId: string): Promise<Map<string, unknown>> {
    const rows: Array<{ node_id: string; output: unknown }> = await preparedRows(this.kit.db, 
      'SELECT node_id, output FROM node_outputs WHERE run_id = $1',
      [runId],
    );
    return new Map(rows.map((r) => [r.node_id, r.output]));
  }

  async events(runId: string, afterSeq: number): Promise<RunFrame[]> {
    const rows: Array<{ seq: string; type: string; node_id: string | null; payload: Record<string, unknown>; created_at: Date }> =
      await preparedRows(this.kit.db, 'SELECT * FROM run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq', [runId, afterSeq]);
    return rows.map((r) => ({
      runId,
      seq: Number(r.seq),
      type: r.type,
      timestamp: r.created_at.toISOString(),
      ...(r.node_id ? { nodeId: r.node_id } : {}),
      payload: r.payload,
    }));
  }

  /**
   * The owner's runs, newest first, keyset-paged by (created_at, id), as list
   * rows: `inputs` is `{}` and the plan has no nodes (see GetRun for both).
   * `taskStatuses`: only runs with one of these task statuses (none = all).
   * `playbookId`: only runs whose plan came from that playbook (its provenance).
   */
  async list(userId: string, statuses: RunStatus[], limit: number, after: { createdAt: string; id: string } | null, taskStatuses: TaskStatus[] = [], agentProfileId = '', playbookId = ''): Promise<Run[]> {
    const rows: RunRow[] = await sqlRows(
      this.kit.db,
      // A list row carries neither inputs nor the plan (either may be large): GetRun has them.
      `SELECT id, user_id, status, run_context, plan_version, error, created_at, updated_at, parent_run_id, parent_node_id, depth,
              goal_condition_results, task_status, steps_completed, steps_failed, steps_skipped, error_summary,
              agent_profile_id, invoked_by, agent_team_id, connectors_called, entities_discovered, outputs_produced,
              '{}'::jsonb AS inputs, '{"nodes":[]}'::jsonb AS plan
         FROM runs WHERE user_id = $1
          AND (cardinality($2::text[]) = 0 OR status = ANY($2::text[]))
          AND (cardinality($6::text[]) = 0 OR (task_status = ANY($6::text[]) AND status IN ('waiting','completed','failed','cancelled')))
          AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
          AND ($7::text = '' OR agent_profile_id = $7::text)
          AND ($8::text = '' OR (plan->'provenance'->>'frontEnd' = 'playbook' AND plan->'provenance'->>'sourceId' = $8::text))
        ORDER BY created_at DESC, id DESC LIMIT $5`,
      [userId, statuses, after?.createdAt ?? null, after?.id ?? null, limit, taskStatuses, agentProfileId, playbookId],
    );
    return rows.map(toRun);
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

  /**
   * Cancel unless already finished (false when it was), with every
   * unfinished descendant subflow run; a cancelled child wakes its parent.
   */
  async cancel(runId: string, reason?: string): Promise<boolean> {
    return this.kit.transaction(async (m, emit) => {
      const rows = await sqlRows<{ id: string; parent_run_id: string | null; agent_profile_id: string | null; invoked_by: string | null; agent_team_id: string | null; user_id: string }>(
        m,
        `UPDATE runs SET status = 'cancelled', lease_owner = NULL, lease_until = NULL, updated_at = now()
          WHERE id = $1 AND status IN ${ACTIVE} RETURNING id, parent_run_id, agent_profile_id, invoked_by, agent_team_id, user_id`,
        [runId],
      );
      if (rows.length === 0) return false;
      const descendants = await sqlRows<{ id: string }>(
        m,
        `WITH RECURSIVE d(id) AS (
           SELECT id FROM runs WHERE parent_run_id = $1
           UNION SELECT c.id FROM runs c JOIN d ON c.parent_run_id = d.id
         )
         UPDATE runs SET status = 'cancelled', lease_owner = NULL, lease_until = NULL, updated_at = now()
          WHERE id IN (SELECT id FROM d) AND status IN ${ACTIVE} RETURNING id`,
        [runId],
      );
      for (const id of [runId, ...descendants.map((d) => d.id)]) {
        await sqlRows(m, `UPDATE node_states SET status = 'cancelled', finished_at = now(), wait_until = NULL WHERE run_id = $1 AND status IN ('pending','running','waiting')`, [id]);
        const why = id === runId ? reason : 'parent_cancelled';
        const outcome = await recordOutcome(m, id, 'cancelled', why ?? null);
        const r = rows[0]!;
        const agent = id === runId && r.agent_profile_id ? agentFramePayload({ profileId: r.agent_profile_id, invokedBy: r.invoked_by ?? r.user_id, teamId: r.agent_team_id }) : {};
        await this.appendEvent(m, emit, id, 'complete', undefined, { status: 'cancelled', ...(why ? { reason: why } : {}), ...outcomePayload(outcome), ...agent });
      }
      const parent = rows[0]!.parent_run_id;
      if (parent) await this.wakeParent(m, emit, parent, runId);
      return true;
    });
  }

  /** Runs still unfinished whose parent run finished (a parent that ended without cancelling them). */
  async orphanChildren(limit: number): Promise<string[]> {
    const rows = await sqlRows<{ id: string }>(
      this.kit.db,
      `SELECT c.id FROM runs c JOIN runs p ON p.id = c.parent_run_id
        WHERE c.status IN ${ACTIVE} AND p.status IN ('completed','failed','cancelled') LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.id);
  }

  /** Unfinished child runs of `runId` (direct children). */
  async activeChildren(runId: string): Promise<string[]> {
    const rows = await sqlRows<{ id: string }>(this.kit.db, `SELECT id FROM runs WHERE parent_run_id = $1 AND status IN ${ACTIVE}`, [runId]);
    return rows.map((r) => r.id);
  }

  async enqueue(runId: string, msgId: string): Promise<void> {
    await this.kit.transaction(async (_m, emit) => emit({ subject: this.kit.subjects.runWork(runId), payload: { runId }, msgId }));
  }

  /** A parked parent whose child ended is queued again and gets a work item. */
  private async wakeParent(m: EntityManager, emit: Emit, parentRunId: string, childRunId: string): Promise<void> {
    await sqlRows(m, `UPDATE runs SET status = 'queued', updated_at = now() WHERE id = $1 AND status = 'waiting'`, [parentRunId]);
    emit({ subject: this.kit.subjects.runWork(parentRunId), payload: { runId: parentRunId }, msgId: `work:${parentRunId}:child:${childRunId}` });
  }

  /**
   * Next per-run sequence number, the event row and its outbox message, inside
   * the caller's transaction (request-side changes: create, pause, resume,
   * cancel, a person's resolution — approval-waits.store.ts). The executor's
   * fenced writes go through RunExecutionStore.
   */
  async appendEvent(
    m: EntityManager,
    emit: Emit,
    runId: string,
    type: string,
    nodeId: string | undefined,
    payload: Record<string, unknown>,
  ): Promise<number> {
    const rows: Array<{ last_seq: string }> = await sqlRows(
      m,
      'UPDATE runs SET last_seq = last_seq + 1, updated_at = now() WHERE id = $1 RETURNING last_seq',
      [runId],
    );
    if (rows.length === 0) throw AppError.notFound('run', runId);
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

/** Top-level node states in plan order, so callers can rely on positions. */
function topLevel(run: Run, nodes: Map<string, NodeState>): NodeState[] {
  return run.plan.nodes.map((n) => nodes.get(n.id)).filter((n): n is NodeState => !!n);
}

/** Instances inside map iterations, ordered by iteration indexes, then body order. */
function iterationStates(run: Run, nodes: Map<string, NodeState>): NodeState[] {
  const out: Array<{ state: NodeState; indices: number[]; order: number }> = [];
  const order = new Map<string, number>();
  const visit = (list: Run['plan']['nodes']) => {
    for (const n of list) {
      order.set(n.id, order.size);
      if (n.body) visit(n.body.nodes);
    }
  };
  visit(run.plan.nodes);
  for (const [id, state] of nodes) {
    const parsed = parseInstanceId(id);
    if (!parsed || parsed.indices.length === 0 || !locateNode(run.plan.nodes, parsed.nodeId)) continue;
    out.push({ state, indices: parsed.indices, order: order.get(parsed.nodeId) ?? 0 });
  }
  out.sort((a, b) => {
    for (let k = 0; k < Math.min(a.indices.length, b.indices.length); k++) if (a.indices[k] !== b.indices[k]) return a.indices[k]! - b.indices[k]!;
    return a.indices.length - b.indices.length || a.order - b.order;
  });
  return out.map((o) => o.state);
}

/** The run's final output: each top-level node's output under its output key. */
export function finalOutput(run: Pick<Run, 'plan'>, outputs: ReadonlyMap<string, unknown>): Record<string, unknown> {
  const byKey: Record<string, unknown> = {};
  for (const node of run.plan.nodes) if (outputs.has(node.id)) byKey[node.outputKey ?? node.id] = outputs.get(node.id);
  return byKey;
}
