/**
 * One execution of a run by one replica, and what the engine's parts share
 * about it: the graph levels it runs (the plan, and each iteration of a map
 * body), the context a node's executor gets, and how outcomes are recorded in
 * memory. execute-run.use-case.ts runs the levels; map-nodes.ts,
 * waiting-nodes.ts and run-rollback.ts handle map nodes, waiting nodes and
 * rollback with it.
 */
import { interpolate, type Scope } from '@af/expr';
import { compileNodeCondition, type PlanNode } from '@af/plan';
import { AppError } from '@af/service-kit';
import { iterationSuffix } from '../domain/instance-id.js';
import { idempotencyKey, type ExecutorOptions, type NodeContext } from '../domain/node-executor.js';
import type { NodeState, NodeStates, Run } from '../domain/run-state.js';
import { fallbacksOf, terminalPrefix, type StateLookup } from '../domain/scheduler.js';
import { LevelScopes, runVars, type BorrowedScope, type OutputMap } from '../domain/scope.js';
import type { Semaphore } from '../domain/semaphore.js';
import { dataDependencies } from '../domain/upstream.js';
import type { WaitingRow } from '../infra/run.repository.js';
import type { PolicyRuntime } from './run-policies.js';

export interface ExecuteRunOptions {
  owner: string;
  leaseMs: number;
  /** Nodes of one run executing at once (map iterations' nodes included). */
  concurrency: number;
  nodeTimeoutMs: number;
  /** Items a map iterates when its body sets no maxIterations. */
  mapMaxIterations?: number;
  /** Largest output a node may produce (bytes of JSON); larger fails the node (NODE_OUTPUT_MAX_BYTES). */
  nodeOutputMaxBytes?: number;
  /**
   * A read-only served action's start is committed only if it is still
   * running this long after it began; one that answers sooner is committed
   * with its completion, in one statement (READ_ONLY_START_GRACE_MS; 0:
   * the start is committed before the call, like a side-effecting action's).
   */
  readOnlyStartGraceMs?: number;
}

/** One graph level: the plan, or one iteration of a map body. */
export interface Level {
  nodes: readonly PlanNode[];
  /** '' for the plan; `[i]` (nested: `[i][j]`) for a map iteration — appended to node ids to name instances. */
  suffix: string;
  /** What the level's nodes see before their own outputs. */
  vars: Record<string, unknown>;
  loop?: { current: unknown; index: number; mapId: string };
  fallbacks: Map<string, string[]>;
  /** The level's first nodes that are terminal, as last counted (see Levels.open): scans skip them. */
  terminal?: number;
}

/** One execution of a run by this replica. */
export interface Execution {
  run: Run;
  /** By instance id, with the waiting ones indexed. */
  states: NodeStates;
  /** By instance id (and `<map instance>#items`). */
  outputs: OutputMap;
  slots: Semaphore;
  signal: AbortSignal;
  isLost: () => boolean;
  /** A dry run that refuses side effects (the plan's `metadata.dry_run`), read once per execution. */
  dryRun: boolean;
  /** A node with rollbackOnError failed: no level starts anything more; the run rolls back. */
  abort?: { nodeId: string; message: string };
  /** When this orchestrator's lease of the run began (active time, domain/run-timing.ts). */
  started: number;
  /** Runtime policies: what fired, what waits to be applied (see run-policies.ts). */
  policy: PolicyRuntime;
  /** Waiting states read with the lease: the first look at waiting nodes uses them instead of reading again. */
  leasedWaiting?: Map<string, WaitingRow>;
}

export type GraphResult =
  | { kind: 'done'; status: 'completed' | 'failed'; error?: string }
  | { kind: 'waiting'; until: Date | null }
  | { kind: 'stopped' }
  | { kind: 'aborted' }
  /** A runtime policy stopped new nodes (a pending action or an open gate) and nothing is in flight. */
  | { kind: 'halted' };

/** Runs one graph level until it is done, waits, stops or the run rolls back. */
export type RunGraph = (x: Execution, level: Level) => Promise<GraphResult>;

/** Records a node's failure under its error policy; returns a message when its level must fail. */
export type FailNode = (
  x: Execution,
  level: Level,
  node: PlanNode,
  attempt: number,
  err: AppError,
  phase: string,
  extra?: Record<string, unknown>,
) => Promise<string | undefined>;

/** The run is stopping or rolling back: leave the node as it is (it is replayed or cancelled later). */
export class Interrupted extends Error {
  constructor() {
    super('interrupted');
    this.name = 'Interrupted';
  }
}

/**
 * The levels of executions and what is worked out once per plan node or node
 * list (fallbacks of a map body, compiled conditions, whether a level routes),
 * shared by every execution in the process.
 */
export class Levels {
  private readonly bodyFallbacks = new WeakMap<PlanNode, Map<string, string[]>>();
  private readonly scopes = new LevelScopes<Level>();
  /** Compiled node conditions, per plan node (a map body's nodes run once per iteration). */
  private readonly conditions = new WeakMap<PlanNode, (scope: Scope) => boolean>();
  private readonly routed = new WeakMap<readonly PlanNode[], boolean>();
  /** Per plan node: the dependencies whose outputs it reads. */
  private readonly reads = new WeakMap<PlanNode, string[]>();

  top(x: Execution): Level {
    return { nodes: x.run.plan.nodes, suffix: '', vars: runVars(x.run.plan, x.run.inputs, x.run.lastExecutionAt), fallbacks: fallbacksOf(x.run.plan) };
  }

  iteration(parent: Level, map: PlanNode, mapInst: string, vars: Record<string, unknown>, item: unknown, index: number): Level {
    let fallbacks = this.bodyFallbacks.get(map);
    if (!fallbacks) {
      fallbacks = fallbacksOf(map.body!);
      this.bodyFallbacks.set(map, fallbacks);
    }
    return { nodes: map.body!.nodes, suffix: iterationSuffix(parent.suffix, index), vars, loop: { current: item, index, mapId: mapInst }, fallbacks };
  }

  /** Whether a level has route nodes (only then can nodes be skipped as routes not taken). */
  hasRoutes(level: Level): boolean {
    let has = this.routed.get(level.nodes);
    if (has === undefined) {
      has = level.nodes.some((n) => n.kind === 'route');
      this.routed.set(level.nodes, has);
    }
    return has;
  }

  /** The dependencies of `node` whose outputs it reads (domain/upstream.ts), worked out once per plan node. */
  readsOf(node: PlanNode, level: Level): string[] {
    let reads = this.reads.get(node);
    if (!reads) {
      reads = dataDependencies(node, level.nodes);
      this.reads.set(node, reads);
    }
    return reads;
  }

  conditionOf(node: PlanNode): (scope: Scope) => boolean {
    let condition = this.conditions.get(node);
    if (!condition) {
      condition = compileNodeCondition(node)!;
      this.conditions.set(node, condition);
    }
    return condition;
  }

  /** The level's scope as it is now, kept unchanged for good (its holder may keep it). */
  scopeOf(x: Execution, level: Level): Scope {
    return this.scopes.scopeOf(level, x.outputs, x.run.id);
  }

  /** The level's scope as it is now, unchanged until released (then the level's next scope may reuse it). */
  borrowScope(x: Execution, level: Level): BorrowedScope {
    return this.scopes.borrow(level, x.outputs, x.run.id);
  }

  /** The level's node states by plan node id. */
  view(x: Execution, level: Level): StateLookup {
    if (!level.suffix) return x.states;
    return { get: (id: string) => x.states.get(id + level.suffix) };
  }

  states(x: Execution, level: Level): NodeState[] {
    const out: NodeState[] = [];
    for (const n of level.nodes) {
      const s = x.states.get(n.id + level.suffix);
      if (s) out.push(s);
    }
    return out;
  }

  /**
   * Where the level's open nodes begin: the count of its first nodes that are
   * terminal, carried on from the last count. Within a level's life a terminal
   * state is final (a retried map resets its body's instances before it
   * builds their levels; a replan starts over with new levels).
   */
  open(x: Execution, level: Level): number {
    level.terminal = terminalPrefix(level, this.view(x, level), level.terminal);
    return level.terminal;
  }

  hasWaiting(x: Execution, level: Level): boolean {
    for (const id of x.states.waiting) if (this.scopes.hasInstance(level, id)) return true;
    return false;
  }
}

/** What an executor gets; inputs and params resolved unless its registration says otherwise. */
export function nodeContext(
  x: Execution,
  node: PlanNode,
  inst: string,
  attempt: number,
  scope: Scope,
  lenient: boolean,
  opts: ExecutorOptions,
  nodeTimeoutMs: number,
): NodeContext {
  // `{node_id}` (a run variable, e.g. in an output file name) is this node's id.
  scope = { ...scope, nodeId: node.id };
  const resolve = (value: unknown, extra?: Partial<Scope>) => interpolate(value, extra ? { ...scope, ...extra } : scope, { lenient });
  let params: Record<string, unknown>;
  if (opts.raw) params = node.params;
  else if (opts.rawParams?.length) {
    const keep = new Set(opts.rawParams);
    const rest = Object.fromEntries(Object.entries(node.params).filter(([k]) => !keep.has(k)));
    params = { ...(resolve(rest) as Record<string, unknown>), ...Object.fromEntries(Object.entries(node.params).filter(([k]) => keep.has(k))) };
  } else params = resolve(node.params) as Record<string, unknown>;
  return {
    runId: x.run.id,
    userId: x.run.userId,
    teamIds: x.run.teamIds ?? [],
    node,
    instanceId: inst,
    inputs: opts.raw ? node.inputs : (resolve(node.inputs) as Record<string, unknown>),
    params,
    attempt,
    idempotencyKey: idempotencyKey(x.run.id, inst, attempt),
    timeoutMs: node.errorPolicy?.timeoutMs ?? nodeTimeoutMs,
    signal: x.signal,
    run: { approvalPolicy: x.run.plan.approvalPolicy, runContext: x.run.runContext, depth: x.run.depth ?? 0, dryRun: x.dryRun },
    scope,
    resolve,
  };
}

/** Records a node instance's state in the execution. */
export function putState(x: Execution, inst: string, state: NodeState): void {
  x.states.set(inst, { ...state, nodeId: inst });
}

export function settled(nodeId: string, status: NodeState['status'], attempt: number): NodeState {
  return { nodeId, status, attempt, error: null, startedAt: null, finishedAt: new Date() };
}

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { code?: unknown; message?: unknown; reference?: unknown };
  if (typeof e?.code === 'string' && e.code === 'unresolved_reference') {
    return new AppError('FAILED_PRECONDITION', String(e.message), { retryable: false });
  }
  // A condition over its step budget: the same data gives the same result, so never retried.
  if (typeof e?.code === 'string' && (e.code === 'condition_budget_exceeded' || e.code === 'quantifier_depth_exceeded')) {
    return new AppError('FAILED_PRECONDITION', `condition: ${String(e.message)}`, {
      retryable: false,
      violations: [{ field: 'condition', reason: String(e.message), code: e.code }],
    });
  }
  return new AppError('INTERNAL', String(e?.message ?? err), { retryable: false });
}

/** Metadata about an output for the (privacy-first) event log: shape, not content. */
export function summarize(output: unknown): Record<string, unknown> {
  if (Array.isArray(output)) return { type: 'array', length: output.length };
  if (output && typeof output === 'object') {
    const o = output as Record<string, unknown>;
    return { type: 'object', keys: Object.keys(o).slice(0, 20), ...(typeof o.count === 'number' ? { count: o.count } : {}) };
  }
  return { type: output === null ? 'null' : typeof output };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
