/** What the use cases need from the outside: persistence and the instruction classifier. */
import type { NewRequest } from '../domain/new-request.js';
import type { ApprovalRequest, Principal, RequestKind, RequestStatus, Resolution } from '../domain/request.js';
import type { Intent } from '../domain/effective-task.js';

export interface ListFilter {
  principal: Principal;
  kinds: RequestKind[];
  statuses: RequestStatus[];
  capabilityId: string | null;
  runId: string | null;
}

export interface RequestStore {
  /** Insert, or return the request an earlier call with the same (owner, idempotency key) created. */
  insert(n: NewRequest, resolved?: { status: RequestStatus; resolution: Resolution; decidedBy: string }): Promise<{ request: ApprovalRequest; created: boolean }>;
  get(id: string): Promise<ApprovalRequest | null>;
  /** Requests the principal may act on, newest first, after the keyset cursor. */
  list(filter: ListFilter, limit: number, after: { createdAt: string; id: string } | null): Promise<ApprovalRequest[]>;
  /**
   * Resolve a pending request (with its audit event and `decided` outbox
   * message, in one transaction); null when it was no longer pending.
   */
  resolve(id: string, status: RequestStatus, resolution: Resolution, decidedBy: string, resolutionKey: string | null): Promise<ApprovalRequest | null>;
  /** An audit entry that changes nothing (e.g. a submission that failed validation). */
  audit(id: string, type: string, actor: string, detail: Record<string, unknown>): Promise<void>;
}

/** Classifies a tool HITL approver's instructions; never throws (falls back to enhance). */
export interface IntentClassifier {
  classify(task: string, instructions: string): Promise<{ intent: Intent; source: 'model' | 'fallback'; error?: string }>;
}
