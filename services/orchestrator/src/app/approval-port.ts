/**
 * What the orchestrator needs from the approval service (implemented over
 * gRPC in infra/approval.client.ts) and from its own tables for waits on it
 * (infra/approval-waits.store.ts).
 */
import type { ClarificationEntry, RequestKind, RequestView } from '../domain/human-request.js';
import type { Decision } from '../domain/run-state.js';

export interface OpenRequest {
  ownerUserId: string;
  kind: RequestKind;
  runId: string;
  nodeId: string;
  runContext: string;
  operatorPrompt: string;
  details: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  capabilityId?: string;
  teamIds: string[];
  allowTeamDecisions: boolean;
  assigneeUserIds: string[];
  /** 0: the service's default for the kind. */
  timeoutSeconds: number;
  autoApprove: boolean;
  idempotencyKey: string;
}

export interface ApprovalService {
  /** Idempotent by `idempotencyKey`. */
  create(r: OpenRequest): Promise<RequestView>;
  /** As the user (the run's owner); NOT_FOUND when it is not theirs. */
  get(userId: string, requestId: string): Promise<RequestView>;
  decide(userId: string, requestId: string, decision: 'approve' | 'reject', instructions: string, idempotencyKey: string): Promise<RequestView>;
}

export interface ApprovalWaits {
  /**
   * The node (running and about to wait, or already waiting — a runtime
   * policy's gate) waits for `requestId`; `decision`
   * pre-records a resolution already known (a replay after the request was
   * resolved), otherwise any earlier one is cleared.
   */
  register(runId: string, nodeId: string, requestId: string | null, decision: Decision | null): Promise<void>;
  /** Records a resolved request on its waiting node (and wakes a parked run); false when nothing waits for it. */
  apply(request: RequestView): Promise<boolean>;
  /** The request a waiting node waits for. */
  requestOf(runId: string, nodeId: string): Promise<string | null>;
  /** A clarification question a node asked (its answer arrives with `apply`). */
  addQuestion(runId: string, entry: ClarificationEntry & { requestId: string }): Promise<void>;
  /** The run's hitlClarifications, oldest first. */
  clarifications(runId: string): Promise<ClarificationEntry[]>;
  /** A node's status and skip reason (an agent looks at its tool HITL gate). */
  nodeState(runId: string, nodeId: string): Promise<{ status: string; skipReason: string | null } | null>;
  /** The run's plan metadata (run options such as `non_streaming`). */
  runOptions(runId: string): Promise<Record<string, unknown>>;
}
