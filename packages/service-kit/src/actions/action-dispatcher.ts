/**
 * Serves a service's built-in actions: finds the handler, enforces the
 * deadline, and answers a repeated idempotency key of a side-effecting action
 * with the first answer — written once here so no serving service
 * re-implements it. Read-only actions (`sideEffects: false`) simply run again.
 */
import { AppError, ERROR_CODES, type ErrorCode } from '../errors.js';
import { ReceiptSuperseded, type ActionContext, type ActionDescriptor, type ActionHandler, type ActionPrincipal, type ActionReceipt, type ActionSource } from './action-handler.js';
import type { ActionRecords, StoredActionError } from './action-records.js';

export interface ExecuteAction {
  action: string;
  inputs: Record<string, unknown>;
  params: Record<string, unknown>;
  principal: ActionPrincipal;
  idempotencyKey: string;
  runId: string;
  nodeId: string;
  attempt: number;
  /** 0: the dispatcher's default. */
  timeoutMs: number;
}

/**
 * A caller's handle on one call (ExecuteStream's cancel): `cancel()` aborts
 * the action's signal and fails the call CANCELLED. Plain fields, not an
 * AbortSignal: one per call on a hot path.
 */
export interface CallControl {
  /** Set by the caller when it gives up; a call not yet running fails at once when it would start. */
  cancelled?: boolean;
  /** Set by the dispatcher while the action runs. */
  cancel?: () => void;
}

export interface ActionResult {
  outputs: Record<string, unknown>;
  replayed: boolean;
}

export interface ActionDispatcherOptions {
  /** Used when a call names no timeout (default 30 s). */
  defaultTimeoutMs?: number;
  /** The longest deadline a caller may ask for (default 15 min). */
  maxTimeoutMs?: number;
  /** How often a running call refreshes its claim (default 5 s); a claim silent for 3× this is taken over. */
  heartbeatMs?: number;
  /** How often a replay polls for the first call's answer (default 100 ms). */
  pollMs?: number;
  /** Actions beyond the fixed handlers, looked up per call (a name a fixed handler has is never asked of it). */
  source?: ActionSource;
}

const KEY = /^[^\s]{1,512}$/;

export class ActionDispatcher {
  private readonly handlers = new Map<string, ActionHandler>();
  private readonly opts: Required<Omit<ActionDispatcherOptions, 'source'>>;
  private readonly source: ActionSource | undefined;

  constructor(
    /** The serving service's name, e.g. `output-router`. */
    readonly service: string,
    handlers: ActionHandler[],
    private readonly records: ActionRecords,
    options: ActionDispatcherOptions = {},
  ) {
    for (const h of handlers) {
      if (this.handlers.has(h.name)) throw new Error(`action ${h.name} is served twice by ${service}`);
      this.handlers.set(h.name, h);
    }
    const { source, ...rest } = options;
    this.source = source;
    this.opts = { defaultTimeoutMs: 30_000, maxTimeoutMs: 15 * 60_000, heartbeatMs: 5_000, pollMs: 100, ...rest };
  }

  /** The fixed handlers. */
  list(): ActionDescriptor[] {
    return [...this.handlers.values()]
      .map((h) => ({ name: h.name, version: h.version ?? '1', sideEffects: h.sideEffects }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** What ListActions answers: the fixed handlers and, when there is one, the source's actions now. */
  async catalog(): Promise<ActionDescriptor[]> {
    const fixed = this.list();
    if (!this.source) return fixed;
    const more = (await this.source.list()).filter((a) => !this.handlers.has(a.name));
    return [...fixed, ...more].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** `control`: lets the caller give up on the call (ExecuteStream's cancel): the handler's signal is aborted and the call fails CANCELLED. */
  async execute(req: ExecuteAction, control?: CallControl): Promise<ActionResult> {
    if (!req.action) throw AppError.invalid('action', 'is required');
    const handler = this.handlers.get(req.action) ?? (await this.source?.find(req.action));
    if (!handler) {
      const names = (await this.catalog()).map((a) => a.name);
      throw AppError.invalid('action', `${this.service} serves no action ${JSON.stringify(req.action)} (it serves: ${names.join(', ') || 'none'})`, 'unknown_action');
    }
    if (!req.principal.userId) throw new AppError('UNAUTHENTICATED', 'an action runs on behalf of a user: principal.user_id is required');
    if (req.idempotencyKey && !KEY.test(req.idempotencyKey)) throw AppError.invalid('idempotency_key', 'must be 1-512 characters without spaces');
    if (req.timeoutMs < 0 || req.timeoutMs > this.opts.maxTimeoutMs) {
      throw AppError.invalid('timeout_ms', `must be between 0 (the default, ${this.opts.defaultTimeoutMs} ms) and ${this.opts.maxTimeoutMs}`);
    }
    const deadline = Date.now() + (req.timeoutMs || this.opts.defaultTimeoutMs);
    // A read-only action has nothing to do twice: it runs again on a repeated key, without a record (two writes saved per call).
    if (!req.idempotencyKey || !handler.sideEffects) return { outputs: await this.run(req, deadline, control, (ctx) => handler.execute(ctx)), replayed: false };
    return this.once(handler, req, deadline, control);
  }

  /** Runs the call under its key, or answers from the key's record. */
  private async once(handler: ActionHandler, req: ExecuteAction, deadline: number, control: CallControl | undefined): Promise<ActionResult> {
    if (handler.optimistic && handler.replay) {
      // Its one write creates the completed record: no claim before it (see ActionHandler.optimistic).
      const receipt: ActionReceipt = { key: req.idempotencyKey, action: req.action, userId: req.principal.userId, claimed: false, completed: false };
      try {
        return { outputs: await this.run(req, deadline, control, (ctx) => handler.execute({ ...ctx, receipt })), replayed: false };
      } catch (err) {
        // Recorded already (a repeat, or a duplicate that wrote first): answered from the record below.
        if (!(err instanceof ReceiptSuperseded)) throw toAppError(err);
      }
    }
    const staleMs = this.opts.heartbeatMs * 3;
    for (;;) {
      const claim = await this.records.claim(req.idempotencyKey, req.action, req.principal.userId, staleMs);
      if (claim.state === 'completed') return { outputs: claim.outputs, replayed: true };
      if (claim.state === 'receipted') {
        const { replay } = handler;
        if (!replay) throw new AppError('INTERNAL', `action ${req.action} has a receipt for idempotency_key ${req.idempotencyKey} but cannot answer from one`);
        return { outputs: await this.run(req, deadline, control, (ctx) => replay.call(handler, ctx, claim.receipt)), replayed: true };
      }
      if (claim.state === 'failed') throw fromStored(claim.error);
      if (claim.state === 'conflict') throw new AppError('ALREADY_EXISTS', `idempotency_key ${req.idempotencyKey} ${claim.reason}`);
      if (claim.state === 'in_progress') {
        // The first call with this key (maybe from a caller that crashed) is still running: wait for its answer.
        if (Date.now() >= deadline) throw deadlineExceeded(req);
        await new Promise((r) => setTimeout(r, Math.min(this.opts.pollMs, deadline - Date.now())));
        continue;
      }
      const beat = setInterval(() => void this.records.heartbeat(req.idempotencyKey).catch(() => undefined), this.opts.heartbeatMs);
      beat.unref();
      // A handler that keeps its own receipt completes the call in its own write.
      const receipt: ActionReceipt | undefined = handler.replay
        ? {
            key: req.idempotencyKey,
            action: req.action,
            userId: req.principal.userId,
            claimed: true,
            ...(claim.prior != null ? { prior: claim.prior } : {}),
            completed: false,
          }
        : undefined;
      try {
        const outputs = await this.run(req, deadline, control, (ctx) => handler.execute(receipt ? { ...ctx, receipt } : ctx));
        if (!receipt?.completed) await this.records.complete(req.idempotencyKey, outputs);
        return { outputs, replayed: false };
      } catch (err) {
        // Another holder of the claim finished the call: answer from its receipt.
        if (err instanceof ReceiptSuperseded) continue;
        const app = toAppError(err);
        await this.records.fail(req.idempotencyKey, toStored(app), !app.retryable);
        throw app;
      } finally {
        clearInterval(beat);
      }
    }
  }

  /** `work` (the handler's execute or replay) under the call's deadline and its caller's cancel. */
  private async run(
    req: ExecuteAction,
    deadline: number,
    control: CallControl | undefined,
    work: (ctx: ActionContext) => Promise<Record<string, unknown>>,
  ): Promise<Record<string, unknown>> {
    if (control?.cancelled) throw cancelled(req);
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const ctx: ActionContext = { ...req, signal: abort.signal, deadline };
    const ended = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abort.abort();
        reject(deadlineExceeded(req));
      }, Math.max(0, deadline - Date.now()));
      if (control) {
        control.cancel = () => {
          abort.abort();
          reject(cancelled(req));
        };
      }
    });
    try {
      const outputs = await Promise.race([work(ctx), ended]);
      if (!outputs || typeof outputs !== 'object' || Array.isArray(outputs)) {
        throw new AppError('INTERNAL', `action ${req.action} answered ${Array.isArray(outputs) ? 'an array' : typeof outputs}, not an object of outputs`);
      }
      return outputs;
    } finally {
      clearTimeout(timer);
      if (control) control.cancel = undefined;
    }
  }
}

function cancelled(req: ExecuteAction): AppError {
  // Not final: the caller may try the key again.
  return new AppError('CANCELLED', `action ${req.action} was cancelled by its caller`, { retryable: true });
}

function deadlineExceeded(req: ExecuteAction): AppError {
  return new AppError('DEADLINE_EXCEEDED', `action ${req.action} did not finish within its deadline`);
}

function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return new AppError('INTERNAL', err instanceof Error ? err.message : String(err), { cause: err, retryable: false });
}

function toStored(err: AppError): StoredActionError {
  return { code: err.code, message: err.message, ...(err.violations.length ? { violations: err.violations } : {}) };
}

function fromStored(e: StoredActionError): AppError {
  const code: ErrorCode = (ERROR_CODES as readonly string[]).includes(e.code) ? (e.code as ErrorCode) : 'INTERNAL';
  return new AppError(code, e.message, { retryable: false, violations: e.violations ?? [] });
}
