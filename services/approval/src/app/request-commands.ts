/**
 * The approval service's use cases: create a request; decide, submit,
 * decline or answer one. Visibility is checked first: a request the caller
 * may not act on is "not found", never "forbidden", so ids do not leak. A
 * request that is no longer pending is FAILED_PRECONDITION — unless the same
 * idempotency key resolved it, when the call just returns it.
 */
import { AppError } from '@af/service-kit';
import { effectiveTask } from '../domain/effective-task.js';
import { parseNewRequest, type CreateCommand, type TimeoutDefaults } from '../domain/new-request.js';
import { alreadyResolved, mayAct, resolutionOf, SYSTEM_ACTORS, type Action, type ApprovalRequest, type Principal } from '../domain/request.js';
import { parseAnswer, parseDecline, parseInstructions, parseRejectReason, parseSubmission } from '../domain/submission.js';
import type { IntentClassifier, RequestStore } from './ports.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ActionCommand {
  principal: Principal;
  requestId: string;
  idempotencyKey: string;
}

export class RequestCommands {
  constructor(
    private readonly store: RequestStore,
    private readonly classifier: IntentClassifier,
    private readonly defaults: TimeoutDefaults,
  ) {}

  /** Create (idempotently); `auto_approve` records the automatic approval at once. */
  async create(cmd: CreateCommand): Promise<{ request: ApprovalRequest; created: boolean }> {
    const n = parseNewRequest(cmd, this.defaults);
    if (!n.autoApprove) return this.store.insert(n);
    const task = typeof n.details.task_description === 'string' ? n.details.task_description : n.operatorPrompt;
    const resolution = { decision: 'approve' as const, instructions: '', automatic: true, ...(n.kind === 'tool_hitl' ? { effectiveTask: task } : {}) };
    return this.store.insert(n, { status: 'approved', resolution, decidedBy: SYSTEM_ACTORS.autoApprove });
  }

  async get(principal: Principal, requestId: string): Promise<ApprovalRequest> {
    return this.visible(principal, requestId);
  }

  /** Approve or reject (a reject with its `reason`); a tool HITL approval with instructions gets its intent and effective task. */
  async decide(cmd: ActionCommand & { decision: 'approve' | 'reject' | null; instructions: string; reason?: string }): Promise<ApprovalRequest> {
    if (!cmd.decision) throw AppError.invalid('decision', 'must be approve or reject');
    const instructions = parseInstructions(cmd.instructions);
    const reason = parseRejectReason(cmd.decision, cmd.reason ?? '');
    const r = await this.pending(cmd);
    if ('done' in r) return r.done;
    const base: Action = { type: 'decide', decision: cmd.decision, instructions, ...(reason ? { reason } : {}) };
    resolutionOf(r.kind, base); // the kind must take a decision before anything is spent on it
    let action: Action = base;
    if (r.kind === 'tool_hitl' && cmd.decision === 'approve') {
      const task = typeof r.details.task_description === 'string' ? r.details.task_description : r.operatorPrompt;
      const intent = instructions ? (await this.classifier.classify(task, instructions)).intent : undefined;
      action = { ...base, ...(intent ? { intent } : {}), effectiveTask: effectiveTask(task, instructions, intent ?? 'enhance') };
    }
    return this.apply(r, action, cmd);
  }

  /** A human task's output, valid against its output schema; an invalid one is refused and audited, the task stays pending. */
  async submit(cmd: ActionCommand & { outputJson: string }): Promise<ApprovalRequest> {
    const r = await this.pending(cmd);
    if ('done' in r) return r.done;
    resolutionOf(r.kind, { type: 'submit', output: null });
    let output: unknown;
    try {
      output = parseSubmission(cmd.outputJson, r.outputSchema ?? {});
    } catch (err) {
      if (err instanceof AppError) await this.store.audit(r.id, 'submission_rejected', cmd.principal.userId, { violations: err.violations });
      throw err;
    }
    return this.apply(r, { type: 'submit', output }, cmd);
  }

  async decline(cmd: ActionCommand & { reasonCode: string; reason: string }): Promise<ApprovalRequest> {
    const parsed = parseDecline(cmd.reasonCode, cmd.reason);
    const r = await this.pending(cmd);
    if ('done' in r) return r.done;
    return this.apply(r, { type: 'decline', ...parsed }, cmd);
  }

  async answer(cmd: ActionCommand & { answer: string }): Promise<ApprovalRequest> {
    const answer = parseAnswer(cmd.answer);
    const r = await this.pending(cmd);
    if ('done' in r) return r.done;
    return this.apply(r, { type: 'answer', answer }, cmd);
  }

  private async apply(r: ApprovalRequest, action: Action, cmd: ActionCommand): Promise<ApprovalRequest> {
    const { status, resolution } = resolutionOf(r.kind, action);
    const key = cmd.idempotencyKey || null;
    const resolved = await this.store.resolve(r.id, status, resolution, cmd.principal.userId, key);
    if (resolved) return resolved;
    // Someone (or the sweeper) got there first.
    const now = (await this.store.get(r.id))!;
    if (key && now.resolutionKey === key) return now;
    throw alreadyResolved(now);
  }

  /** The visible request while pending, or `done` when this very call (same key) already resolved it. */
  private async pending(cmd: ActionCommand): Promise<ApprovalRequest | { done: ApprovalRequest }> {
    const r = await this.visible(cmd.principal, cmd.requestId);
    if (r.status === 'pending') return r;
    if (cmd.idempotencyKey && r.resolutionKey === cmd.idempotencyKey) return { done: r };
    throw alreadyResolved(r);
  }

  private async visible(principal: Principal, requestId: string): Promise<ApprovalRequest> {
    if (!principal.userId) throw new AppError('UNAUTHENTICATED', 'principal.user_id is required');
    if (!UUID.test(requestId)) throw AppError.notFound('request', requestId);
    const r = await this.store.get(requestId);
    if (!r || !mayAct(r, principal)) throw AppError.notFound('request', requestId);
    return r;
  }
}
