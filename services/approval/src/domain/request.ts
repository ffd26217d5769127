/**
 * A request that waits for a person, as the domain sees it (no wire or ORM
 * types): its kind, who may act on it, and what each action turns a pending
 * request into. Pure; the repository persists the result.
 */
import { AppError } from '@af/service-kit';

export const REQUEST_KINDS = ['approval_gate', 'tool_hitl', 'policy_hitl', 'human_task', 'clarify'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];

export const REQUEST_STATUSES = ['pending', 'approved', 'rejected', 'timed_out', 'expired', 'declined', 'submitted', 'answered'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

export const RUN_CONTEXTS = ['interactive', 'background', 'scheduled', 'monitor'] as const;
export type RunContext = (typeof RUN_CONTEXTS)[number];

/** Structured reasons a person gives when declining a human task or a clarification (flex spec §15.5). */
export const DECLINE_REASONS = ['not_qualified', 'insufficient_information', 'out_of_scope', 'conflict_of_interest', 'unavailable', 'other'] as const;
export type DeclineReason = (typeof DECLINE_REASONS)[number];

/** Kinds decided with approve / reject. */
export const DECISION_KINDS: ReadonlySet<RequestKind> = new Set(['approval_gate', 'tool_hitl', 'policy_hitl']);

/** Who acts when no person does. */
export const SYSTEM_ACTORS = { autoApprove: 'policy:auto_approve', timeout: 'system:timeout', runEnded: 'system:run_ended' } as const;

export interface Principal {
  userId: string;
  teamIds: readonly string[];
}

/** How a request was resolved (who and when live beside it: `decidedBy`, `decidedAt`). */
export interface Resolution {
  decision?: 'approve' | 'reject';
  instructions?: string;
  intent?: 'enhance' | 'override';
  effectiveTask?: string;
  /** human_task: the submitted output (any JSON). */
  output?: unknown;
  answer?: string;
  reasonCode?: string;
  reason?: string;
  automatic?: boolean;
}

export interface ApprovalRequest {
  id: string;
  kind: RequestKind;
  status: RequestStatus;
  ownerUserId: string;
  runId: string | null;
  nodeId: string | null;
  runContext: RunContext;
  operatorPrompt: string;
  details: Record<string, unknown>;
  outputSchema: Record<string, unknown> | null;
  capabilityId: string | null;
  teamIds: string[];
  allowTeamDecisions: boolean;
  assigneeUserIds: string[];
  timeoutAt: Date | null;
  notify: boolean;
  resolution: Resolution | null;
  /** The idempotency key of the call that resolved it: the same call again gets the same answer. */
  resolutionKey: string | null;
  decidedBy: string | null;
  decidedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** What resolves a pending request. */
export type Action =
  | { type: 'decide'; decision: 'approve' | 'reject'; instructions: string; reason?: string; intent?: 'enhance' | 'override'; effectiveTask?: string }
  | { type: 'submit'; output: unknown }
  | { type: 'decline'; reasonCode: DeclineReason; reason: string }
  | { type: 'answer'; answer: string }
  | { type: 'timeout' }
  | { type: 'expire'; reason: string };

/**
 * The run's owner, an assignee (a holder of a human task's capability), or —
 * when the request allows team decisions — a member of one of its teams.
 */
export function mayAct(r: Pick<ApprovalRequest, 'ownerUserId' | 'assigneeUserIds' | 'allowTeamDecisions' | 'teamIds'>, who: Principal): boolean {
  if (!who.userId) return false;
  if (r.ownerUserId === who.userId || r.assigneeUserIds.includes(who.userId)) return true;
  return r.allowTeamDecisions && r.teamIds.some((t) => who.teamIds.includes(t));
}

/** Which actions a kind takes from a person. */
function accepts(kind: RequestKind, action: Action['type']): boolean {
  switch (action) {
    case 'decide':
      return DECISION_KINDS.has(kind);
    case 'submit':
      return kind === 'human_task';
    case 'decline':
      return kind === 'human_task' || kind === 'clarify';
    case 'answer':
      return kind === 'clarify';
    default:
      return true;
  }
}

const HOW: Record<RequestKind, string> = {
  approval_gate: 'approve or reject it',
  tool_hitl: 'approve or reject it',
  policy_hitl: 'approve or reject it',
  human_task: 'submit its output or decline it',
  clarify: 'answer or decline it',
};

/** The status and resolution `action` gives a request of `kind`; throws when the kind does not take it. */
export function resolutionOf(kind: RequestKind, action: Action): { status: RequestStatus; resolution: Resolution } {
  if (!accepts(kind, action.type)) {
    throw AppError.invalid('request_id', `is a ${kind} request: ${HOW[kind]}`, 'wrong_action');
  }
  switch (action.type) {
    case 'decide': {
      const resolution: Resolution = { decision: action.decision, instructions: action.instructions };
      if (action.reason) resolution.reason = action.reason;
      if (action.intent) resolution.intent = action.intent;
      if (action.effectiveTask !== undefined) resolution.effectiveTask = action.effectiveTask;
      return { status: action.decision === 'approve' ? 'approved' : 'rejected', resolution };
    }
    case 'submit':
      return { status: 'submitted', resolution: { output: action.output } };
    case 'decline':
      return { status: 'declined', resolution: { reasonCode: action.reasonCode, reason: action.reason } };
    case 'answer':
      return { status: 'answered', resolution: { answer: action.answer } };
    case 'timeout':
      return { status: 'timed_out', resolution: { reasonCode: 'timeout', reason: 'nobody acted before the request timed out' } };
    case 'expire':
      return { status: 'expired', resolution: { reasonCode: 'run_ended', reason: action.reason } };
  }
}

/** Why a request that is no longer pending cannot be acted on (HTTP 409 at the gateway). */
export function alreadyResolved(r: ApprovalRequest): AppError {
  const by = r.decidedBy ? ` by ${r.decidedBy}` : '';
  const at = r.decidedAt ? ` at ${r.decidedAt.toISOString()}` : '';
  return new AppError('FAILED_PRECONDITION', `request ${r.id} is already ${r.status}${by}${at}`, {
    violations: [{ field: 'request_id', reason: `is ${r.status}, not pending`, code: 'already_resolved' }],
  });
}

/** A pending request of this kind times out after this long unless the caller says otherwise (null: never). */
export function defaultTimeoutSeconds(kind: RequestKind, defaults: { toolHitlSeconds: number; humanTaskSeconds: number }): number | null {
  if (kind === 'tool_hitl') return defaults.toolHitlSeconds || null;
  if (kind === 'human_task') return defaults.humanTaskSeconds || null;
  return null;
}
