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
}

export interface RunView extends Run {
  nodes: NodeState[];
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
