/**
 * Plan versions and runtime-policy firings: reading them, the replan
 * transaction (request side — ReplanRun — and executor side, fenced by the
 * lease) and the request-side effects of a manual trigger. Each is one
 * transaction with its frames (run_events + outbox).
 */
import { AppError, sqlRows, type OutboxMessage, type ServiceKit } from '@af/service-kit';
import type { PlanGraph } from '@af/plan';
import type { EntityManager } from 'typeorm';
import { agentFramePayload } from '../domain/agent-facts.js';
import { replanChanges, type ReplanChange, type ReplanViolation } from '../domain/replan.js';
import type { NodeState, NodeStatus, PlanVersionInfo, PolicyFiring, RunStatus } from '../domain/run-state.js';
import type { PolicyAction } from '../domain/runtime-policy.js';
import { outcomePayload } from '../domain/task-outcome.js';
import { recordOutcome } from './run-outcome.sql.js';
import { LeaseLostError, type Frame } from './run-execution.store.js';

type Emit = (...msgs: OutboxMessage[]) => void;

const TERMINAL: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'cancelled']);

export interface FiringRecord {
  key: string;
  policyId: string;
  trigger: Record<string, unknown>;
  action: PolicyAction;
}

export interface ReplanRequest {
  /** Parsed and validated; its `version` is set here. */
  plan: PlanGraph;
  /** What asked for it: `api` (ReplanRun), `policy` (a firing), `manual` (a manual policy via ReplanRun / TriggerPolicy). */
  trigger: 'api' | 'policy' | 'manual';
  policyId?: string;
  rationale?: string;
  idempotencyKey?: string;
  expectedPlanVersion?: number;
  /** Executor side: the lease owner the writes are fenced by; its plan_requested was emitted before the planner was asked. */
  owner?: string;
  /** Executor side: the pending firing this replan applies. */
  appliesKey?: string;
  /** Request side, for a manual policy: the firing to record (its policy_triggered comes first). */
  firing?: FiringRecord & { payload: Record<string, unknown> };
}

export type ReplanOutcome =
  | { kind: 'replanned'; version: number; previousVersion: number; change: ReplanChange; queued: boolean }
  | { kind: 'rejected'; violations: ReplanViolation[]; version: number }
  | { kind: 'duplicate'; version: number };

interface RunLockRow {
  status: RunStatus;
  plan: PlanGraph;
  plan_version: number;
  lease_owner: string | null;
  rollback: unknown;
  parent_run_id: string | null;
  agent_profile_id?: string | null;
  invoked_by?: string | null;
  agent_team_id?: string | null;
  user_id?: string;
}

export class PolicyStore {
  constructor(private readonly kit: ServiceKit) {}

  async firings(runId: string): Promise<PolicyFiring[]> {
    const rows = await sqlRows<{ key: string; policy_id: string; trigger: Record<string, unknown>; action: PolicyAction; status: PolicyFiring['status']; created_at: Date }>(
      this.kit.db,
      'SELECT key, policy_id, trigger, action, status, created_at FROM policy_firings WHERE run_id = $1 ORDER BY created_at, key',
      [runId],
    );
    return rows.map((r) => ({ key: r.key, policyId: r.policy_id, trigger: r.trigger, action: r.action, status: r.status, createdAt: r.created_at }));
  }

  async planVersions(runId: string): Promise<PlanVersionInfo[]> {
    const rows = await sqlRows<{ version: number; source: 'start' | 'replan'; policy_id: string | null; rationale: string | null; created_at: Date }>(
      this.kit.db,
      'SELECT version, source, policy_id, rationale, created_at FROM plan_versions WHERE run_id = $1 ORDER BY version',
      [runId],
    );
    return rows.map((r) => ({ version: r.version, source: r.source, policyId: r.policy_id, rationale: r.rationale, createdAt: r.created_at }));
  }

  /** A stored plan version (the plan as it ran). */
  async planVersion(runId: string, version: number): Promise<PlanGraph | undefined> {
    const rows = await sqlRows<{ plan: PlanGraph }>(this.kit.db, 'SELECT plan FROM plan_versions WHERE run_id = $1 AND version = $2', [runId, version]);
    return rows[0]?.plan;
  }

  /**
   * Plan version N+1: under the run's row lock, the new plan is checked
   * against the completed nodes (locked) and node states change as
   * replanChanges says, with plan_requested (request side) → plan_generated →
   * plan_updated. Request side: a running run is handed back to the queue (its
   * executor is fenced off and a replica picks it up with the new plan), a
   * parked one is queued; a paused one stays paused unless a policy's replan
   * was waiting for this plan.
   */
  async replan(runId: string, req: ReplanRequest): Promise<ReplanOutcome> {
    return this.kit.transaction(async (m, emit) => {
      const [run] = await sqlRows<RunLockRow>(m, 'SELECT status, plan, plan_version, lease_owner, rollback, parent_run_id FROM runs WHERE id = $1 FOR UPDATE', [runId]);
      if (!run) throw AppError.notFound('run', runId);
      if (req.owner !== undefined) {
        if (run.status !== 'running' || run.lease_owner !== req.owner) throw new LeaseLostError(runId);
      } else {
        if (TERMINAL.has(run.status)) throw new AppError('FAILED_PRECONDITION', `run ${runId} is ${run.status}; only an unfinished run can be replanned`);
        if (run.rollback) throw new AppError('FAILED_PRECONDITION', `run ${runId} is rolling back; it cannot be replanned`);
      }
      if (req.idempotencyKey) {
        const [seen] = await sqlRows<{ version: number }>(m, 'SELECT version FROM plan_versions WHERE run_id = $1 AND idempotency_key = $2', [runId, req.idempotencyKey]);
        if (seen) return { kind: 'duplicate', version: seen.version };
      }
      if (req.expectedPlanVersion && req.expectedPlanVersion !== run.plan_version) {
        throw new AppError('FAILED_PRECONDITION', `run ${runId} is at plan version ${run.plan_version}, not ${req.expectedPlanVersion}`, {
          violations: [{ field: 'expected_plan_version', reason: `the run is at plan version ${run.plan_version}` }],
        });
      }
      const states = await this.states(m, runId);
      const outputIds = new Set((await sqlRows<{ node_id: string }>(m, 'SELECT node_id FROM node_outputs WHERE run_id = $1', [runId])).map((r) => r.node_id));
      const diff = replanChanges(run.plan, req.plan, states, outputIds);
      if ('violations' in diff) return { kind: 'rejected', violations: diff.violations, version: run.plan_version };
      const { change } = diff;
      const previousVersion = run.plan_version;
      const version = previousVersion + 1;
      const plan: PlanGraph = { ...req.plan, version };

      if (req.firing) {
        await sqlRows(m, `INSERT INTO policy_firings (run_id, key, policy_id, trigger, action, status, applied_at) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, 'applied', now())`, [
          runId,
          req.firing.key,
          req.firing.policyId,
          JSON.stringify(req.firing.trigger),
          JSON.stringify(req.firing.action),
        ]);
        await this.appendEvent(m, emit, runId, 'policy_triggered', null, req.firing.payload);
      }
      const trigger = { source: req.trigger, ...(req.policyId ? { policyId: req.policyId } : {}), ...(req.rationale ? { rationale: req.rationale } : {}) };
      if (req.owner === undefined) await this.appendEvent(m, emit, runId, 'plan_requested', null, { previousVersion, trigger });

      if (change.remove.length) await sqlRows(m, 'DELETE FROM node_states WHERE run_id = $1 AND node_id = ANY($2::text[])', [runId, change.remove]);
      if (change.dropOutputs.length) await sqlRows(m, 'DELETE FROM node_outputs WHERE run_id = $1 AND node_id = ANY($2::text[])', [runId, change.dropOutputs]);
      if (change.reset.length) {
        await sqlRows(
          m,
          `UPDATE node_states SET status = 'pending', error = NULL, skip_reason = NULL, wait_until = NULL, decision = NULL, child_run_id = NULL,
                  finished_at = NULL, rollback_status = NULL
            WHERE run_id = $1 AND node_id = ANY($2::text[])`,
          [runId, change.reset],
        );
      }
      if (change.insert.length) {
        await sqlRows(m, `INSERT INTO node_states (run_id, node_id, status) SELECT $1, unnest($2::text[]), 'pending' ON CONFLICT (run_id, node_id) DO NOTHING`, [
          runId,
          change.insert,
        ]);
      }
      await sqlRows(m, `INSERT INTO plan_versions (run_id, version, plan, source, policy_id, rationale, idempotency_key) VALUES ($1, $2, $3::jsonb, 'replan', $4, $5, $6)`, [
        runId,
        version,
        JSON.stringify(plan),
        req.policyId ?? null,
        req.rationale ?? null,
        req.idempotencyKey || null,
      ]);
      // A policy's replan waiting for a plan (or not applied yet) is answered by this one.
      const awaiting = await sqlRows<{ status: string }>(
        m,
        `UPDATE policy_firings f SET status = 'applied', applied_at = now() FROM policy_firings old
          WHERE f.run_id = $1 AND old.run_id = f.run_id AND old.key = f.key
            AND (f.status = 'awaiting_plan' OR (f.status = 'pending' AND f.action->>'type' = 'replan'))
          RETURNING old.status`,
        [runId],
      );
      if (req.appliesKey) await sqlRows(m, `UPDATE policy_firings SET status = 'applied', applied_at = now() WHERE run_id = $1 AND key = $2`, [runId, req.appliesKey]);
      // A request-side replan hands a running or parked run back to the queue; a paused one stays paused unless it waited for this plan.
      const waitedForPlan = awaiting.some((a) => a.status === 'awaiting_plan');
      const queue = req.owner === undefined && (run.status === 'running' || run.status === 'waiting' || run.status === 'queued' || (run.status === 'paused' && waitedForPlan));
      await sqlRows(
        m,
        `UPDATE runs SET plan = $2::jsonb, plan_version = $3,
                status = CASE WHEN $4::boolean THEN 'queued' ELSE status END,
                lease_owner = CASE WHEN $4::boolean THEN NULL ELSE lease_owner END,
                lease_until = CASE WHEN $4::boolean THEN NULL ELSE lease_until END
          WHERE id = $1`,
        [runId, JSON.stringify(plan), version, queue],
      );
      const after = await this.states(m, runId);
      await this.appendEvent(m, emit, runId, 'plan_generated', null, {
        version,
        nodes: plan.nodes.map((n) => ({ id: n.id, kind: n.kind, ...(n.capabilityId ? { capabilityId: n.capabilityId } : {}), label: n.description ?? n.action ?? n.kind })),
      });
      await this.appendEvent(m, emit, runId, 'plan_updated', null, {
        previousVersion,
        version,
        trigger,
        nodes: plan.nodes.map((n) => ({ id: n.id, status: after.get(n.id)?.status ?? 'pending' })),
        locked: change.locked,
        reset: change.reset,
        added: change.insert,
        removed: change.remove.filter((id) => !id.includes('[')),
      });
      if (queue) emit({ subject: this.kit.subjects.runWork(runId), payload: { runId }, msgId: `work:${runId}:replan:${version}` });
      return { kind: 'replanned', version, previousVersion, change, queued: queue };
    });
  }

  /**
   * The request-side effect of a manual trigger (TriggerPolicy), recorded as
   * applied with policy_triggered first: `emit` its frame; `fail` the run
   * (unfinished nodes cancelled, a waiting parent woken); `pause` it; `hitl`
   * opens a gate — a running run is handed back to the queue so its executor
   * sees the gate. (A manual `replan` goes through replan().) Returns the
   * child runs to cancel.
   */
  async triggerManual(runId: string, firing: FiringRecord & { payload: Record<string, unknown> }, frames: Frame[], gateId?: string): Promise<{ children: string[] }> {
    return this.kit.transaction(async (m, emit) => {
      const [run] = await sqlRows<RunLockRow>(
        m,
        'SELECT status, plan, plan_version, lease_owner, rollback, parent_run_id, agent_profile_id, invoked_by, agent_team_id, user_id FROM runs WHERE id = $1 FOR UPDATE',
        [runId],
      );
      if (!run) throw AppError.notFound('run', runId);
      if (TERMINAL.has(run.status)) throw new AppError('FAILED_PRECONDITION', `run ${runId} is ${run.status}; policies fire only on an unfinished run`);
      await sqlRows(m, `INSERT INTO policy_firings (run_id, key, policy_id, trigger, action, status, applied_at) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, 'applied', now())`, [
        runId,
        firing.key,
        firing.policyId,
        JSON.stringify(firing.trigger),
        JSON.stringify(firing.action),
      ]);
      await this.appendEvent(m, emit, runId, 'policy_triggered', null, firing.payload);
      const action = firing.action;
      let children: string[] = [];
      if (action.type === 'fail') {
        const error = action.message ?? `policy ${firing.policyId} failed the run`;
        await sqlRows(m, `UPDATE runs SET status = 'failed', error = $2, lease_owner = NULL, lease_until = NULL, updated_at = now() WHERE id = $1`, [runId, error]);
        await sqlRows(m, `UPDATE node_states SET status = 'cancelled', finished_at = now(), wait_until = NULL WHERE run_id = $1 AND status IN ('pending','running','waiting')`, [runId]);
        const outcome = await recordOutcome(m, runId, 'failed', error);
        await this.appendEvent(m, emit, runId, 'complete', null, {
          status: 'failed',
          error,
          policyId: firing.policyId,
          ...outcomePayload(outcome),
          ...(run.agent_profile_id ? agentFramePayload({ profileId: run.agent_profile_id, invokedBy: run.invoked_by ?? run.user_id ?? '', teamId: run.agent_team_id ?? null }) : {}),
        });
        children = (await sqlRows<{ id: string }>(m, `SELECT id FROM runs WHERE parent_run_id = $1 AND status IN ('queued','running','waiting','paused')`, [runId])).map((r) => r.id);
        if (run.parent_run_id) {
          await sqlRows(m, `UPDATE runs SET status = 'queued', updated_at = now() WHERE id = $1 AND status = 'waiting'`, [run.parent_run_id]);
          emit({ subject: this.kit.subjects.runWork(run.parent_run_id), payload: { runId: run.parent_run_id }, msgId: `work:${run.parent_run_id}:child:${runId}` });
        }
      } else if (action.type === 'pause') {
        await sqlRows(m, `UPDATE runs SET status = 'paused', lease_owner = NULL, lease_until = NULL, updated_at = now() WHERE id = $1`, [runId]);
      } else if (action.type === 'hitl' && gateId) {
        await sqlRows(m, `INSERT INTO node_states (run_id, node_id, status, attempt, started_at) VALUES ($1, $2, 'waiting', 1, now()) ON CONFLICT (run_id, node_id) DO NOTHING`, [runId, gateId]);
        if (run.status === 'running') {
          await sqlRows(m, `UPDATE runs SET status = 'queued', lease_owner = NULL, lease_until = NULL, updated_at = now() WHERE id = $1`, [runId]);
          emit({ subject: this.kit.subjects.runWork(runId), payload: { runId }, msgId: `work:${runId}:gate:${firing.key}` });
        }
      }
      for (const f of frames) await this.appendEvent(m, emit, runId, f.type, null, f.payload);
      return { children };
    });
  }

  /** How many manual firings a policy has had (for the next firing key). */
  async manualCount(runId: string, policyId: string): Promise<number> {
    const rows = await sqlRows<{ n: string }>(this.kit.db, `SELECT count(*) AS n FROM policy_firings WHERE run_id = $1 AND key LIKE $2`, [runId, `${policyId}@manual:%`]);
    return Number(rows[0]?.n ?? 0);
  }

  private async states(m: EntityManager, runId: string): Promise<Map<string, NodeState>> {
    const rows = await sqlRows<{ node_id: string; status: NodeStatus; attempt: number; error: string | null; child_run_id: string | null }>(
      m,
      'SELECT node_id, status, attempt, error, child_run_id FROM node_states WHERE run_id = $1',
      [runId],
    );
    return new Map(
      rows.map((r) => [r.node_id, { nodeId: r.node_id, status: r.status, attempt: r.attempt, error: r.error, startedAt: null, finishedAt: null, childRunId: r.child_run_id }]),
    );
  }

  /** Next per-run sequence number, the event row and its outbox message, inside the caller's transaction. */
  private async appendEvent(m: EntityManager, emit: Emit, runId: string, type: string, nodeId: string | null, payload: Record<string, unknown>): Promise<void> {
    const rows = await sqlRows<{ last_seq: string }>(m, 'UPDATE runs SET last_seq = last_seq + 1, updated_at = now() WHERE id = $1 RETURNING last_seq', [runId]);
    if (!rows.length) throw AppError.notFound('run', runId);
    const seq = Number(rows[0]!.last_seq);
    const timestamp = new Date().toISOString();
    await sqlRows(m, 'INSERT INTO run_events (run_id, seq, type, node_id, payload, created_at) VALUES ($1, $2, $3, $4, $5::jsonb, $6)', [
      runId,
      seq,
      type,
      nodeId,
      JSON.stringify(payload),
      timestamp,
    ]);
    emit({ subject: this.kit.subjects.run(runId, type), payload: { runId, seq, type, timestamp, ...(nodeId ? { nodeId } : {}), payload }, msgId: `run:${runId}:${seq}` });
    this.kit.metrics.events.inc({ type });
  }
}
