/**
 * What a service implements to serve a built-in playbook action through
 * ActionService: a name, whether it acts on the world, and `execute`.
 * Idempotent replay, deadlines and error mapping are the dispatcher's.
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
}

export interface ActionHandler {
  /** The action's registry name, e.g. `save_to_workspace`. */
  name: string;
  /** The contract version implemented (default `1`). */
  version?: string;
  /** True when the action changes something outside the run (a document, a message, a row). */
  sideEffects: boolean;
  execute(ctx: ActionContext): Promise<Record<string, unknown>>;
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
