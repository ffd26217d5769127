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
  node: PlanNode;
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
  /** Run-level settings executors honour (approval policy, run context). */
  run: { approvalPolicy: 'require' | 'auto_approve'; runContext: string };
}

/** Resolves to the node's output, or to a WaitFor when the node must wait (approval, delay). */
export type NodeExecutor = (ctx: NodeContext) => Promise<unknown>;

/** Executors by `kind` or `kind:action`; the more specific one wins. */
export class NodeExecutors {
  private readonly byKey = new Map<string, NodeExecutor>();
  private readonly pure = new Set<string>();

  /**
   * `pure`: in-process and free of side effects (e.g. transform_data). Such a
   * node's start and completion are committed together: a crash before that
   * commit just computes it again.
   */
  register(key: string, executor: NodeExecutor, options: { pure?: boolean } = {}): this {
    this.byKey.set(key, executor);
    if (options.pure) this.pure.add(key);
    return this;
  }

  isPure(node: PlanNode): boolean {
    if (node.action && this.byKey.has(`${node.kind}:${node.action}`)) return this.pure.has(`${node.kind}:${node.action}`);
    return this.pure.has(node.kind);
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
