/**
 * Nodes that wait — approval gates for a person, delays for a durable timer —
 * and what they turn into once a decision arrives or their time comes. Pure:
 * the engine persists the result.
 */
import type { PlanNode } from '@af/plan';
import { approvalKind, NON_STREAMING } from './human-request.js';
import type { Decision, NodeState } from './run-state.js';

/** Returned by an executor whose node must wait (the engine persists it as `waiting`). */
export class WaitFor {
  constructor(
    /** When the node's timer fires; null waits for a decision only. */
    readonly until: Date | null,
    /** A frame to emit when the node starts waiting (e.g. `hitl_request`). */
    readonly frame: { type: string; payload: Record<string, unknown> } | null = null,
    /** A subflow's child run, whose end the node waits for. */
    readonly childRunId: string | null = null,
  ) {}
}

export type WaitingOutcome =
  | { kind: 'complete'; output: Record<string, unknown> }
  | { kind: 'skip'; reason: string }
  | { kind: 'fail'; message: string }
  /** A clarification was answered: the node that asked runs again (flex spec §15.x). */
  | { kind: 'rerun' }
  | null;

/**
 * What a waiting node becomes now, or null while it still waits. Approvals,
 * human tasks and clarifications move when their request is resolved (the
 * approval service owns their timeouts); delays when their timer fires.
 */
export function resolveWaiting(node: PlanNode, state: NodeState, now: Date): WaitingOutcome {
  const timedOut = !!state.waitUntil && now.getTime() >= state.waitUntil.getTime();
  const d = state.decision;
  if (d?.kind === 'clarify') return resolveClarify(node, d);
  if (node.kind === 'approval') {
    if (d) return resolveApproval(node, d);
    // Waits recorded before the approval service kept their own timer. Seed §5: timeout_minutes auto-skips the gate.
    return timedOut ? { kind: 'skip', reason: 'timed_out' } : null;
  }
  if (node.kind === 'human') return d ? resolveHumanTask(node, d) : null;
  if (node.kind === 'delay') {
    return timedOut ? { kind: 'complete', output: { waited_until: state.waitUntil!.toISOString() } } : null;
  }
  return null;
}

/** The resolution's status; decisions recorded before the approval service only have approve / reject. */
function statusOf(d: Decision): string {
  return d.status ?? (d.decision === 'approve' ? 'approved' : 'rejected');
}

function resolveApproval(node: PlanNode, d: Decision): WaitingOutcome {
  const status = statusOf(d);
  const by = d.decidedBy ? ` by ${d.decidedBy}` : '';
  switch (status) {
    case 'approved':
      return { kind: 'complete', output: approvedOutput(node, d) };
    case 'rejected':
      if (onReject(node) === 'skip') return { kind: 'skip', reason: 'rejected' };
      return { kind: 'fail', message: `approval ${node.id} was rejected${by}` };
    case 'timed_out':
      // Seed §5 auto-skips a playbook gate; a tool HITL timeout is a denial (multi-agent-rag), so on_reject applies.
      if (approvalKind(node) === 'approval_gate' || onReject(node) === 'skip') return { kind: 'skip', reason: 'timed_out' };
      return { kind: 'fail', message: `approval ${node.id} timed out (treated as a rejection)` };
    case 'skipped':
      return { kind: 'skip', reason: d.reasonCode ?? NON_STREAMING };
    case 'expired':
      return { kind: 'fail', message: `approval ${node.id} expired: ${d.reason ?? 'the request is no longer pending'}` };
    default:
      return { kind: 'fail', message: `approval ${node.id} ended as ${status}, which an approval node cannot take` };
  }
}

function approvedOutput(node: PlanNode, d: Decision): Record<string, unknown> {
  const out: Record<string, unknown> = { approved: true, decision: 'approve', instructions: d.instructions, decided_by: d.decidedBy, decided_at: d.decidedAt };
  if (d.requestId) out.request_id = d.requestId;
  if (d.automatic) out.automatic = true;
  if (approvalKind(node) === 'tool_hitl') {
    if (d.intent) out.intent = d.intent;
    if (d.effectiveTask !== undefined) out.effective_task = d.effectiveTask;
    if (node.params.agent_id !== undefined) out.agent_id = node.params.agent_id;
    if (Array.isArray(node.params.tool_names)) out.tool_names = node.params.tool_names;
  }
  return out;
}

function resolveHumanTask(node: PlanNode, d: Decision): WaitingOutcome {
  const status = statusOf(d);
  switch (status) {
    case 'submitted': {
      const output = d.output;
      return { kind: 'complete', output: (output && typeof output === 'object' && !Array.isArray(output) ? output : { value: output ?? null }) as Record<string, unknown> };
    }
    case 'declined':
      if (node.params.on_decline === 'skip') return { kind: 'skip', reason: 'declined' };
      return { kind: 'fail', message: `human task ${node.id} was declined by ${d.decidedBy} (${d.reasonCode ?? 'other'}${d.reason ? `: ${d.reason}` : ''})` };
    case 'timed_out':
      return { kind: 'fail', message: `human task ${node.id} missed its SLA: nobody submitted it before it timed out` };
    default:
      return { kind: 'fail', message: `human task ${node.id} ended as ${status}${d.reason ? `: ${d.reason}` : ''}` };
  }
}

function resolveClarify(node: PlanNode, d: Decision): WaitingOutcome {
  const status = statusOf(d);
  if (status === 'answered') return { kind: 'rerun' };
  if (status === 'declined') return { kind: 'fail', message: `node ${node.id}: its clarification was declined by ${d.decidedBy} (${d.reasonCode ?? 'other'}${d.reason ? `: ${d.reason}` : ''})` };
  if (status === 'timed_out') return { kind: 'fail', message: `node ${node.id}: nobody answered its clarification in time` };
  return { kind: 'fail', message: `node ${node.id}: its clarification ended as ${status}${d.reason ? `: ${d.reason}` : ''}` };
}

export function onReject(node: PlanNode): 'stop' | 'skip' {
  return node.params.on_reject === 'skip' ? 'skip' : 'stop';
}

/** What the engine knows of a subflow's child run when it looks. */
export interface ChildRun {
  id: string;
  status: string;
  error: string | null;
  /** The child's final output: its nodes' outputs by output key. */
  outputs: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export type SubflowOutcome =
  | { kind: 'complete'; output: Record<string, unknown> }
  | { kind: 'fail'; code: 'FAILED_PRECONDITION' | 'DEADLINE_EXCEEDED' | 'NOT_FOUND'; message: string; cancelChild: boolean }
  | null;

/**
 * What a waiting subflow node becomes now (seed delegation-tool-schemas.md
 * spawn_and_await: the output is `{execution_id, status, final_output,
 * duration_ms}`), or null while its child still runs and time is left.
 */
export function resolveSubflow(node: PlanNode, state: NodeState, child: ChildRun | null, now: Date): SubflowOutcome {
  if (!child) return { kind: 'fail', code: 'NOT_FOUND', message: `subflow ${node.id}: its child run is gone`, cancelChild: false };
  if (child.status === 'completed') {
    return {
      kind: 'complete',
      output: { execution_id: child.id, status: 'completed', final_output: child.outputs, duration_ms: Math.max(0, child.updatedAt.getTime() - child.createdAt.getTime()) },
    };
  }
  const timedOut = !!state.waitUntil && now.getTime() >= state.waitUntil.getTime();
  if (timedOut) {
    const active = child.status !== 'failed' && child.status !== 'cancelled';
    return { kind: 'fail', code: 'DEADLINE_EXCEEDED', message: `subflow ${node.id}: child run ${child.id} did not finish by ${state.waitUntil!.toISOString()}`, cancelChild: active };
  }
  if (child.status === 'failed' || child.status === 'cancelled') {
    const why = child.status === 'failed' ? `failed: ${child.error ?? 'unknown error'}` : 'was cancelled';
    return { kind: 'fail', code: 'FAILED_PRECONDITION', message: `subflow ${node.id}: child run ${child.id} ${why}`, cancelChild: false };
  }
  return null;
}

/** The earliest pending timer among waiting nodes, if any. */
export function nextTimer(states: Iterable<NodeState>): Date | null {
  let next: Date | null = null;
  for (const s of states) {
    if (s.status === 'waiting' && s.waitUntil && (!next || s.waitUntil < next)) next = s.waitUntil;
  }
  return next;
}

/** A delay's duration: durationMs | duration_ms | seconds | until (ISO time). */
export function delayUntil(params: Record<string, unknown>, now: Date): Date | string {
  if (params.until !== undefined) {
    const t = typeof params.until === 'string' ? Date.parse(params.until) : NaN;
    return Number.isNaN(t) ? 'params.until must be an ISO-8601 time' : new Date(t);
  }
  const ms = num(params.durationMs) ?? num(params.duration_ms) ?? (num(params.seconds) !== null ? num(params.seconds)! * 1000 : null);
  if (ms === null) return 'a delay needs params.durationMs, params.seconds or params.until';
  if (ms < 0 || ms > 366 * 24 * 3600_000) return 'the delay must be between 0 and 366 days';
  return new Date(now.getTime() + ms);
}

function num(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}
