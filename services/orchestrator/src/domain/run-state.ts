/** Run and node state as the domain sees it (no wire or ORM types). */
import type { PlanGraph } from '@af/plan';

export const RUN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled', 'paused', 'waiting'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const TERMINAL_RUN: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'cancelled']);

export const NODE_STATUSES = ['pending', 'running', 'completed', 'failed', 'skipped', 'cancelled', 'waiting'] as const;
export type NodeStatus = (typeof NODE_STATUSES)[number];
export const TERMINAL_NODE: ReadonlySet<NodeStatus> = new Set(['completed', 'failed', 'skipped', 'cancelled']);

export interface Decision {
  decision: 'approve' | 'reject';
  instructions: string;
  decidedBy: string;
  decidedAt: string;
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

export interface Run {
  id: string;
  userId: string;
  status: RunStatus;
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
}

export interface RunView extends Run {
  /** Top-level nodes, in plan order. */
  nodes: NodeState[];
  /** Node instances inside map iterations (`<id>[i]`), by iteration then body order. */
  iterations: NodeState[];
  /** Outputs of the iteration instances, by instance id. */
  instanceOutputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
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
