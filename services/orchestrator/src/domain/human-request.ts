/**
 * Nodes that wait for a person through the approval service: what request a
 * node opens (kind, prompt, contract summary, timeout), the `hitl_request`
 * frame interactive clients render, and the decision a resolved request
 * becomes on the node. Pure; the executors call the service and the store.
 */
import type { PlanNode } from '@af/plan';
import type { Decision } from './run-state.js';

export type RequestKind = 'approval_gate' | 'tool_hitl' | 'policy_hitl' | 'human_task' | 'clarify';

/** The approval service's view of a request, as the orchestrator needs it. */
export interface RequestView {
  id: string;
  kind: RequestKind;
  /** pending | approved | rejected | timed_out | expired | declined | submitted | answered */
  status: string;
  ownerUserId: string;
  runId: string;
  nodeId: string;
  timeoutAt: string | null;
  resolution: {
    decidedBy: string;
    decidedAt: string;
    decision?: 'approve' | 'reject';
    instructions?: string;
    intent?: 'enhance' | 'override';
    effectiveTask?: string;
    output?: unknown;
    answer?: string;
    reasonCode?: string;
    reason?: string;
    automatic?: boolean;
  } | null;
}

/** Skip reason of a tool HITL gate skipped by the non-streaming run option (seed multi-agent-rag). */
export const NON_STREAMING = 'hitl_skipped_non_streaming';
/** A node may ask at most this many clarifications unless `params.max_clarifications` says otherwise. */
export const DEFAULT_MAX_CLARIFICATIONS = 3;

/** A gate in front of an agent's requires_approval tools (master plans: action `hitl_approval`, or tool names given). */
export function approvalKind(node: PlanNode): 'approval_gate' | 'tool_hitl' {
  return node.action === 'hitl_approval' || Array.isArray(node.params.tool_names) ? 'tool_hitl' : 'approval_gate';
}

/** The decision a resolved request records on its waiting node. */
export function decisionOf(r: RequestView): Decision {
  const res = r.resolution ?? { decidedBy: '', decidedAt: '' };
  const d: Decision = {
    instructions: res.instructions ?? '',
    decidedBy: res.decidedBy,
    decidedAt: res.decidedAt,
    requestId: r.id,
    kind: r.kind,
    status: r.status,
  };
  if (res.decision) d.decision = res.decision;
  for (const key of ['intent', 'effectiveTask', 'answer', 'reasonCode', 'reason', 'automatic'] as const) {
    if (res[key] !== undefined && res[key] !== '') (d as unknown as Record<string, unknown>)[key] = res[key];
  }
  if ('output' in res) d.output = res.output;
  return d;
}

/** What a person sees of a node's contract (flex spec §8: compiled facets + contracts). */
export function contractSummary(node: PlanNode, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const p = node.params;
  const summary: Record<string, unknown> = { nodeId: node.id, kind: node.kind };
  if (node.action) summary.action = node.action;
  if (node.capabilityId) summary.capabilityId = node.capabilityId;
  if (node.description) summary.description = node.description;
  if (Array.isArray(p.input_facets)) summary.inputFacets = p.input_facets;
  if (Array.isArray(p.output_facets)) summary.outputFacets = p.output_facets;
  if (node.inputSchema) summary.inputSchema = node.inputSchema;
  if (node.outputSchema) summary.outputSchema = node.outputSchema;
  if (typeof p.instruction === 'string') summary.instruction = p.instruction;
  return { ...summary, ...extra };
}

/** Timeout in seconds from `timeout_minutes` / `timeout_seconds` params; 0 = the approval service's default. */
export function timeoutSeconds(params: Record<string, unknown>): number {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null);
  const minutes = n(params.timeout_minutes);
  if (minutes !== null) return Math.max(0, minutes * 60);
  return Math.max(0, n(params.timeout_seconds) ?? 0);
}

/** Who besides the owner may act: `params.team_ids` with `allow_team_decisions`, and `params.assignees`. */
export function audience(params: Record<string, unknown>): { teamIds: string[]; allowTeamDecisions: boolean; assigneeUserIds: string[] } {
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : []);
  return { teamIds: list(params.team_ids), allowTeamDecisions: params.allow_team_decisions === true, assigneeUserIds: list(params.assignees) };
}

/** The `hitl_request` frame payload (flex spec §10.0.1: pendingNodeId, contractSummary, operatorPrompt). */
export function hitlRequestPayload(input: {
  request: Pick<RequestView, 'id' | 'kind' | 'timeoutAt'>;
  nodeId: string;
  operatorPrompt: string;
  contractSummary: Record<string, unknown>;
  runContext: string;
  extra?: Record<string, unknown>;
}): Record<string, unknown> {
  return {
    pendingNodeId: input.nodeId,
    requestId: input.request.id,
    kind: input.request.kind,
    operatorPrompt: input.operatorPrompt,
    contractSummary: input.contractSummary,
    runContext: input.runContext,
    // Interactive runs render it inline; the others find it in the owner's queue (the request was notified).
    delivery: input.runContext === 'interactive' ? 'inline' : 'queue',
    ...(input.request.timeoutAt ? { timeoutAt: input.request.timeoutAt } : {}),
    ...(input.extra ?? {}),
  };
}

/** The seed's SSE name for a resolution (multi-agent-rag "SSE Event Types for HITL"), carried in the decision log frame. */
export function hitlEventName(status: string): string {
  switch (status) {
    case 'approved':
      return 'hitl_approved';
    case 'rejected':
      return 'hitl_denied';
    case 'timed_out':
      return 'hitl_timeout';
    default:
      return `hitl_${status}`;
  }
}

/** The `log` frame payload recording a resolution on the run. */
export function decisionLogPayload(d: Decision): Record<string, unknown> {
  return {
    event: 'decision',
    hitlEvent: hitlEventName(d.status ?? (d.decision === 'approve' ? 'approved' : 'rejected')),
    ...(d.decision ? { decision: d.decision } : {}),
    ...(d.status ? { status: d.status } : {}),
    ...(d.kind ? { kind: d.kind } : {}),
    ...(d.requestId ? { requestId: d.requestId } : {}),
    decidedBy: d.decidedBy,
    ...(d.reasonCode ? { reasonCode: d.reasonCode } : {}),
  };
}

/** A clarification a node asks for by answering `{ "hitl_clarify": { "question", "questionId"? } }`. */
export function clarifyAsk(output: unknown): { question: string; questionId?: string } | null {
  if (!output || typeof output !== 'object' || Array.isArray(output)) return null;
  const ask = (output as Record<string, unknown>).hitl_clarify;
  if (!ask || typeof ask !== 'object' || Array.isArray(ask)) return null;
  const { question, questionId } = ask as Record<string, unknown>;
  if (typeof question !== 'string' || !question.trim()) return null;
  return { question: question.trim(), ...(typeof questionId === 'string' && questionId ? { questionId } : {}) };
}

/** The node's output schema widened so the model may answer with a clarification instead. */
export function clarifySchema(outputSchema: Record<string, unknown> | undefined): Record<string, unknown> {
  const ask = {
    type: 'object',
    required: ['hitl_clarify'],
    properties: { hitl_clarify: { type: 'object', required: ['question'], properties: { question: { type: 'string', minLength: 1 }, questionId: { type: 'string' } } } },
  };
  const base = outputSchema ?? { type: 'object' };
  // Providers want an object at the root of a structured answer; keep saying so when the node's schema did.
  return base.type === 'object' ? { type: 'object', anyOf: [base, ask] } : { anyOf: [base, ask] };
}

/** The seed's ClarificationEntry (flex spec §15.x). */
export interface ClarificationEntry {
  nodeId: string;
  capabilityId?: string;
  questionId: string;
  question: string;
  answer?: string;
  createdAt: string;
  answeredAt?: string;
}

/**
 * The output a tool-HITL-gated agent gets instead of running when its gate
 * did not approve (seed: synthetic AgentOutput, task_done=False).
 */
export function deniedAgentOutput(reason: string, toolNames: unknown): Record<string, unknown> {
  const error = reason === 'timed_out' ? 'hitl_timeout' : reason === NON_STREAMING ? NON_STREAMING : 'denied_by_user';
  const message =
    error === NON_STREAMING
      ? 'This agent requires human approval. Use the streaming endpoint.'
      : error === 'hitl_timeout'
        ? 'Nobody approved the action in time.'
        : 'The user denied the action.';
  return { task_done: false, error, partial_data: { reason: error, tools: Array.isArray(toolNames) ? toolNames : [], message } };
}
