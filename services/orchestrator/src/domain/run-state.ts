/** Run and node state as the domain sees it (no wire or ORM types). */
import type { AgentFacts } from './agent-facts.js';
import type { PlanGraph } from '@af/plan';
import type { PolicyAction, RuntimePolicy } from './runtime-policy.js';

export const RUN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled', 'paused', 'waiting'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const TERMINAL_RUN: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'cancelled']);

/** What a run did, beside how it ended (see task-outcome.ts). */
export const TASK_STATUSES = ['complete', 'partial', 'error', 'awaiting_approval'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const NODE_STATUSES = ['pending', 'running', 'completed', 'failed', 'skipped', 'cancelled', 'waiting'] as const;
export type NodeStatus = (typeof NODE_STATUSES)[number];
export const TERMINAL_NODE: ReadonlySet<NodeStatus> = new Set(['completed', 'failed', 'skipped', 'cancelled']);

/**
 * How a waiting approval, human task or clarification was resolved. Requests
 * of the approval service carry its record (`requestId`, `kind`, `status` and
 * what was handed in); `decision` is set for approve / reject.
 */
export interface Decision {
  decision?: 'approve' | 'reject';
  instructions: string;
  decidedBy: string;
  decidedAt: string;
  requestId?: string;
  /** approval_gate | tool_hitl | policy_hitl | human_task | clarify; `non_streaming` when the gate was skipped by the run option. */
  kind?: string;
  /** approved | rejected | timed_out | expired | declined | submitted | answered | skipped. */
  status?: string;
  intent?: 'enhance' | 'override';
  effectiveTask?: string;
  /** A human task's submitted output. */
  output?: unknown;
  answer?: string;
  reasonCode?: string;
  reason?: string;
  automatic?: boolean;
}

export interface NodeState {
  nodeId: string;
  status: NodeStatus;
  attempt: number;
  error: string | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** Waiting nodes: when their timer fires (delay end, approval timeout). */
  waitUntil?: Date | null;
  /** Skipped nodes: why (condition_false, rejected, timed_out, …). */
  skipReason?: string | null;
  /** Waiting approvals: the decision once someone made it. */
  decision?: Decision | null;
  /** Subflow nodes: the child run they started. */
  childRunId?: string | null;
  /** Nodes with a rollback action during a rollback: pending | done | failed. */
  rollbackStatus?: string | null;
}

/**
 * Node states by instance id that also index which ones are waiting, so that
 * "does this level wait on anything?" costs O(waiting nodes), not a scan of
 * the level. Every write goes through set/delete/clear, which keep the index.
 */
export class NodeStates extends Map<string, NodeState> {
  /** Instance ids whose state is `waiting`. */
  readonly waiting = new Set<string>();

  constructor(entries?: Iterable<readonly [string, NodeState]> | null) {
    // The Map constructor calls set() before the field above exists; the entries are indexed below.
    super(entries);
    for (const [id, state] of this) if (state.status === 'waiting') this.waiting.add(id);
  }

  override set(id: string, state: NodeState): this {
    if (this.waiting) {
      if (state.status === 'waiting') this.waiting.add(id);
      else this.waiting.delete(id);
    }
    return super.set(id, state);
  }

  override delete(id: string): boolean {
    this.waiting?.delete(id);
    return super.delete(id);
  }

  override clear(): void {
    this.waiting?.clear();
    super.clear();
  }
}

export interface Run {
  id: string;
  userId: string;
  /** The owner's teams when the run started: what its capability lookups may see besides the owner's own and shared ones. */
  teamIds?: readonly string[];
  /** Start of the owner's last finished run of the same stored playbook (`{last_execution_date}`); null for the first. */
  lastExecutionAt?: Date | null;
  status: RunStatus;
  /**
   * What the run did (task-outcome.ts): set when it finished; `awaiting_approval`
   * while it is parked waiting on a person; null while it runs.
   */
  taskStatus?: TaskStatus | null;
  stepsCompleted?: number;
  stepsFailed?: number;
  stepsSkipped?: number;
  /** The failed and upstream_failed steps and why (or the run's own error). */
  errorSummary?: string | null;
  runContext: string;
  plan: PlanGraph;
  planVersion: number;
  inputs: Record<string, unknown>;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** Subflow children: the run and node (instance id) that started this run. */
  parentRunId?: string | null;
  parentNodeId?: string | null;
  /** 0 for a run started by a caller, parent's depth + 1 for a subflow child. */
  depth?: number;
  /** Validated at StartRun (see domain/output-contract.ts). */
  outputContract?: Record<string, unknown> | null;
  goalCondition?: unknown[] | null;
  goalConditionResults?: unknown[] | null;
  /** Set while (and after) the run's completed nodes are rolled back. */
  rollback?: { failedNodeId: string; error: string; order: string[] } | null;
  /** Runtime policies, validated at StartRun. */
  policies?: RuntimePolicy[] | null;
  /** When the earliest onTimeout policy that has not fired is due. */
  policyTimer?: Date | null;
  /** Time spent executing in the leases that ended parked or stopped (run-timing.ts). */
  activeMs?: number;
  /** An agent's run: the profile, who invoked it and the team it was shared through (null otherwise). */
  agent?: { profileId: string; invokedBy: string; teamId: string | null } | null;
  /** Once an agent run finished: what it did (agent-facts.ts). */
  agentFacts?: AgentFacts | null;
}

/** A runtime policy that fired (durable: a resumed run never fires it again for the same key). */
export interface PolicyFiring {
  key: string;
  policyId: string;
  /** The trigger kind and details (`hitl` + decision for a gate's follow-up). */
  trigger: Record<string, unknown>;
  action: PolicyAction;
  status: 'pending' | 'applied' | 'awaiting_plan';
  createdAt: Date;
}

/** One version of a run's plan. */
export interface PlanVersionInfo {
  version: number;
  source: 'start' | 'replan';
  policyId: string | null;
  rationale: string | null;
  createdAt: Date;
}

export interface RunView extends Run {
  /** Top-level nodes, in plan order. */
  nodes: NodeState[];
  /** Node instances inside map iterations (`<id>[i]`), by iteration then body order. */
  iterations: NodeState[];
  /** Outputs of the iteration instances, by instance id. */
  instanceOutputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  /** GetRun: plan history, policy firings and policy hitl gates. */
  planVersions?: PlanVersionInfo[];
  policyFirings?: PolicyFiring[];
  policyGates?: NodeState[];
}

/** The frame shape of the seeds: `{type, id, timestamp, payload, runId, nodeId?}` plus `seq`. */
export interface RunFrame {
  runId: string;
  seq: number;
  type: string;
  timestamp: string;
  nodeId?: string;
  payload: Record<string, unknown>;
}
