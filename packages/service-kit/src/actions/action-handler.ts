/**
 * What a service implements to serve a built-in playbook action through
 * ActionService: a name, whether it acts on the world, and `execute`.
 * Idempotent replay, deadlines and error mapping are the dispatcher's; a
 * handler may also keep its own receipt with its effect (`replay`).
 */
export interface ActionPrincipal {
  userId: string;
  teamIds: string[];
}

export interface ActionContext {
  action: string;
  inputs: Record<string, unknown>;
  params: Record<string, unknown>;
  principal: ActionPrincipal;
  /** `runId:nodeId:attempt`; empty for calls outside a run (no replay then). */
  idempotencyKey: string;
  runId: string;
  nodeId: string;
  attempt: number;
  /** Aborted when the deadline passes: stop work that is no longer awaited. */
  signal: AbortSignal;
  /** Epoch milliseconds after which nobody waits for the answer. */
  deadline: number;
  /**
   * Set on a keyed call of a handler that keeps its own receipt (`ActionHandler.replay`): where the
   * handler records, in the same write as its effect, what it did.
   */
  receipt?: ActionReceipt;
}

/**
 * A side-effecting call's record as a handler that keeps its own receipt sees it. The handler writes
 * the receipt in the same transaction or statement as its effect (`receiptSql`, `writeReceipt`):
 * a call whose process dies after that write is answered from the receipt (`replay`) instead of acting
 * twice, and the answer costs no write of its own. A receipt written with `final: false` is a
 * checkpoint: the call is still running, and a call that takes its claim over (its holder went
 * silent) starts from it.
 */
export interface ActionReceipt {
  /** The call's idempotency key. */
  readonly key: string;
  readonly action: string;
  readonly userId: string;
  /**
   * Whether the key was claimed before the handler ran (its record is in progress: the receipt
   * completes it). Not for an `optimistic` handler: its receipt write creates the record.
   */
  readonly claimed: boolean;
  /** The checkpoint an earlier holder of this key committed before it went silent, when this call took its claim over. */
  readonly prior?: unknown;
  /** Set by the handler once a write carrying its final receipt has committed: the dispatcher then stores no answer of its own. */
  completed: boolean;
}

/**
 * Thrown by a handler whose receipt write found its call finished by another holder of the key (this
 * call had taken over a claim whose holder was only slow; or, optimistic, it is a repeat or a
 * duplicate that wrote second). The handler's transaction rolls back with it, and the dispatcher
 * answers from the record the other holder wrote.
 */
export class ReceiptSuperseded extends Error {
  constructor(readonly key: string) {
    super(`the call with idempotency key ${key} was finished by another holder of its claim`);
    this.name = 'ReceiptSuperseded';
  }
}

export interface ActionHandler {
  /** The action's registry name, e.g. `save_to_workspace`. */
  name: string;
  /** The contract version implemented (default `1`). */
  version?: string;
  /** True when the action changes something outside the run (a document, a message, a row). */
  sideEffects: boolean;
  execute(ctx: ActionContext): Promise<Record<string, unknown>>;
  /**
   * The outputs of a call whose effect is already recorded, from the receipt its write stored. With
   * it, the handler keeps its own receipts: each keyed call gets `ctx.receipt`.
   */
  replay?(ctx: ActionContext, receipt: unknown): Promise<Record<string, unknown>>;
  /**
   * With `replay`: every effect of a call is one write carrying its final receipt (or there is none,
   * and nothing happened). The call then runs without claiming its key first (a statement less): its
   * write creates the completed record, and a call whose key is recorded already writes nothing
   * (ReceiptSuperseded) and is answered as a repeat. Duplicates running at once both read, one
   * writes. A failure is not remembered: a repeat runs again.
   */
  optimistic?: boolean;
}

/** What ListActions answers. */
export interface ActionDescriptor {
  name: string;
  version: string;
  sideEffects: boolean;
  /** The I/O contract, for actions the Action I/O Registry does not hold (plugin tools). */
  contract?: Record<string, unknown>;
}

/**
 * Actions that come and go while the service runs (connector-runtime's
 * plugin tools): listed and looked up on each call instead of fixed at start.
 */
export interface ActionSource {
  list(): Promise<ActionDescriptor[]>;
  find(name: string): Promise<ActionHandler | undefined>;
}
