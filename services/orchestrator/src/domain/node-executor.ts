/**
 * How a node does its work. Each node kind/action has one executor; the
 * engine gives it resolved inputs and the idempotency key `runId:nodeId:attempt`
 * that every side-effecting callee de-duplicates on.
 */
import type { PlanNode } from '@af/plan';
import type { Scope } from '@af/expr';
import { AppError } from '@af/service-kit';

export interface NodeContext {
  runId: string;
  userId: string;
  /** The run owner's teams when the run started (capability lookups are the owner's, with these teams). */
  teamIds?: readonly string[];
  node: PlanNode;
  /** The node's instance id: its id, or `<id>[i]` inside map iteration i (the id its events and idempotency key use). */
  instanceId: string;
  /** The node's inputs with `{…}` references resolved. */
  inputs: Record<string, unknown>;
  /** The node's params with `{…}` references resolved (seed §5: variables may appear in params). */
  params: Record<string, unknown>;
  attempt: number;
  idempotencyKey: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** What `{…}` references see (run inputs, finished nodes' outputs) — for executors that evaluate expressions. */
  scope: Scope;
  /** Run-level settings executors honour (approval policy, run context, subflow depth). */
  run: {
    approvalPolicy: 'require' | 'auto_approve';
    runContext: string;
    depth: number;
    /** A dry run that refuses side effects: executors must not act outside the run (connector writes are refused). */
    dryRun: boolean;
  };
  /**
   * Resolves `{…}` references in `value` against the node's scope (leniently
   * when a dependency did not complete), with `extra` (e.g. loop variables) on
   * top — for executors registered `raw`, which get unresolved inputs/params.
   */
  resolve(value: unknown, extra?: Partial<Scope>): unknown;
}

/**
 * An executor's output together with fields for its `node_complete` frame
 * (metadata only — e.g. a map's iteration count).
 */
export class Completed {
  constructor(
    readonly output: unknown,
    readonly payload: Record<string, unknown> = {},
  ) {}
}

/**
 * The node did not run and is settled `skipped` with `reason` (e.g. a dry run
 * refusing a connector endpoint that writes); `payload` goes on its
 * `node_complete` frame.
 */
export class Skipped {
  constructor(
    readonly reason: string,
    readonly payload: Record<string, unknown> = {},
  ) {}
}

export interface ExecutorOptions {
  /**
   * In-process and free of side effects (e.g. transform_data). Such a node's
   * start and completion are committed together: a crash before that commit
   * just computes it again.
   */
  pure?: boolean;
  /**
   * Whether this node's action changes nothing outside the run (a read-only
   * action a service serves). Its start is committed as usual, but its
   * completion may ride on the run's next statement like a pure node's: a
   * crash before that runs it again, which does nothing twice.
   */
  readOnly?: (node: PlanNode) => boolean;
  /** Inputs and params are handed over unresolved; the executor resolves what it needs with `ctx.resolve`. */
  raw?: boolean;
  /** Params left unresolved (the rest are resolved), e.g. a subflow's inline `plan`, whose references are the child's. */
  rawParams?: string[];
}

/** Resolves to the node's output, or to a WaitFor when the node must wait (approval, delay). */
export type NodeExecutor = (ctx: NodeContext) => Promise<unknown>;

/** Executors by `kind` or `kind:action`; the more specific one wins. */
export class NodeExecutors {
  private readonly byKey = new Map<string, NodeExecutor>();
  private readonly options = new Map<string, ExecutorOptions>();

  register(key: string, executor: NodeExecutor, options: ExecutorOptions = {}): this {
    this.byKey.set(key, executor);
    this.options.set(key, options);
    return this;
  }

  /** The options the node's executor was registered with. */
  optionsOf(node: PlanNode): ExecutorOptions {
    if (node.action && this.byKey.has(`${node.kind}:${node.action}`)) return this.options.get(`${node.kind}:${node.action}`) ?? {};
    return this.options.get(node.kind) ?? {};
  }

  isPure(node: PlanNode): boolean {
    return this.optionsOf(node).pure === true;
  }

  resolve(node: PlanNode): NodeExecutor {
    const executor = (node.action && this.byKey.get(`${node.kind}:${node.action}`)) || this.byKey.get(node.kind);
    if (executor) return executor;
    const what = node.action ? `${node.kind} node action '${node.action}'` : `${node.kind} node`;
    return async () => {
      throw new AppError('UNIMPLEMENTED', `${what} is not supported by this orchestrator yet (node ${node.id})`, {
        retryable: false,
      });
    };
  }
}

export function idempotencyKey(runId: string, nodeId: string, attempt: number): string {
  return `${runId}:${nodeId}:${attempt}`;
}
