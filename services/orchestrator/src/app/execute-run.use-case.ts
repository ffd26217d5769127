/**
 * The execution loop for one run on one replica: take the lease, load what is
 * already done, start ready nodes (bounded), persist each transition before
 * going on, finish. A crash anywhere resumes from the persisted node states;
 * a node that was running is replayed with the same attempt number, so its
 * idempotency key — and the callee's stored result — are the same.
 *
 * The same loop runs every graph level: the plan itself, and each iteration
 * of a `map` node's body, whose node instances (`<id>[i]`) have durable states
 * of their own — a replayed map re-enters its iterations and runs only what
 * did not finish. Waiting nodes (approvals, delays, subflows, maps whose
 * iterations wait) hold no worker: when nothing else can move, the run parks
 * until a decision, a timer or a child run's end queues it again.
 *
 * On the way out: a node with `rollbackOnError` that failed rolls back the
 * completed nodes (reverse completion order, each once); a completed run's
 * output is checked against its OutputContract and its goal conditions are
 * evaluated.
 *
 * Runtime policies (run-policies.ts) are looked at on the way: when the run
 * starts, when nodes complete, when a policy timer is due and when the output
 * contract fails. A pending policy action or an open policy gate lets running
 * nodes finish but starts none; at the next safe point (nothing in flight) the
 * action applies — a replan swaps in plan version N+1 and the loop goes on
 * with it from the persisted node states.
 */
import { interpolate, type Scope } from '@af/expr';
import { compileNodeCondition, type PlanNode } from '@af/plan';
import { AppError, type Logger } from '@af/service-kit';
import { bodyNodeIds, isInsideMap, itemsKey, iterationSuffix, locateNode, parseInstanceId } from '../domain/instance-id.js';
import { DEFAULT_MAP_CONCURRENCY, iterationResult, limitItems, readItems } from '../domain/map-iteration.js';
import { Completed, idempotencyKey, type ExecutorOptions, type NodeContext, type NodeExecutors } from '../domain/node-executor.js';
import { checkOutput, evaluateGoals, type GoalCondition, type OutputContract } from '../domain/output-contract.js';
import { rollbackNode, rollbackOrder, type RollbackState } from '../domain/rollback.js';
import { TERMINAL_RUN, type NodeState, type Run, type RunStatus } from '../domain/run-state.js';
import { backoffMs, fallbacksOf, readyNodes, ROUTE_NOT_TAKEN, routeSkips, runOutcome, unneededFallbacks, type StateLookup } from '../domain/scheduler.js';
import { LevelScopes, OutputMap, runVars } from '../domain/scope.js';
import { Semaphore } from '../domain/semaphore.js';
import { nextTimer, resolveSubflow, resolveWaiting, WaitFor, type ChildRun } from '../domain/waiting.js';
import { LeaseLostError, type Frame, type LeasedRun, type RunExecutionStore } from '../infra/run-execution.store.js';
import { finalOutput, type RunRepository, type WaitingRow } from '../infra/run.repository.js';
import type { PolicyRuntime, RunPolicies } from './run-policies.js';

export interface ExecuteRunOptions {
  owner: string;
  leaseMs: number;
  /** Nodes of one run executing at once (map iterations' nodes included). */
  concurrency: number;
  nodeTimeoutMs: number;
  /** Items a map iterates when its body sets no maxIterations. */
  mapMaxIterations?: number;
}

export type ExecuteResult = 'finished' | 'not_owner' | 'lease_lost' | 'stopped' | 'parked';
/** A request-side replan or policy gate hands a running run back to the queue; this many immediate re-takes at most. */
const MAX_RETAKES = 3;
/** Runs this process finished, remembered so a late work item for one of them costs no query. */
const FINISHED_MEMORY = 4096;

const TRANSIENT = new Set(['UNAVAILABLE', 'DEADLINE_EXCEEDED', 'RESOURCE_EXHAUSTED', 'ABORTED']);
/** While a level has waiting nodes and work in flight, re-check them this often (a decision or a child's end may arrive). */
const WAITING_POLL_MS = 500;
const DEFAULT_MAP_MAX_ITERATIONS = 1000;

/** One graph level: the plan, or one iteration of a map body. */
interface Level {
  nodes: readonly PlanNode[];
  /** '' for the plan; `[i]` (nested: `[i][j]`) for a map iteration — appended to node ids to name instances. */
  suffix: string;
  /** What the level's nodes see before their own outputs. */
  vars: Record<string, unknown>;
  loop?: { current: unknown; index: number; mapId: string };
  fallbacks: Map<string, string[]>;
}

/** One execution of a run by this replica. */
interface Execution {
  run: Run;
  /** By instance id. */
  states: Map<string, NodeState>;
  /** By instance id (and `<map instance>#items`). */
  outputs: OutputMap;
  slots: Semaphore;
  signal: AbortSignal;
  isLost: () => boolean;
  /** A node with rollbackOnError failed: no level starts anything more; the run rolls back. */
  abort?: { nodeId: string; message: string };
  started: number;
  /** Runtime policies: what fired, what waits to be applied (see run-policies.ts). */
  policy: PolicyRuntime;
  /** Waiting states read with the lease: the first look at waiting nodes uses them instead of reading again. */
  leasedWaiting?: Map<string, WaitingRow>;
}

type GraphResult =
  | { kind: 'done'; status: 'completed' | 'failed'; error?: string }
  | { kind: 'waiting'; until: Date | null }
  | { kind: 'stopped' }
  | { kind: 'aborted' }
  /** A runtime policy stopped new nodes (a pending action or an open gate) and nothing is in flight. */
  | { kind: 'halted' };

/** The run is stopping or rolling back: leave the node as it is (it is replayed or cancelled later). */
class Interrupted extends Error {
  constructor() {
    super('interrupted');
    this.name = 'Interrupted';
  }
}

export class ExecuteRun {
  private stopping = false;
  /** Runs executing in this process: the lease is per replica, so a second work item for one of them is dropped here. */
  private readonly active = new Set<string>();
  /** Active runs queued again meanwhile (a resume, a replan): looked at again when their execution here ends. */
  private readonly requeued = new Set<string>();
  /** Runs that finished here, oldest first (bounded). */
  private readonly finished = new Set<string>();
  private readonly bodyFallbacks = new WeakMap<PlanNode, Map<string, string[]>>();
  private readonly scopes = new LevelScopes<Level>();
  /** Compiled node conditions, per plan node (a map body's nodes run once per iteration). */
  private readonly conditions = new WeakMap<PlanNode, (scope: Scope) => boolean>();
  private readonly routed = new WeakMap<readonly PlanNode[], boolean>();

  constructor(
    private readonly repo: RunRepository,
    private readonly store: RunExecutionStore,
    private readonly executors: NodeExecutors,
    private readonly options: ExecuteRunOptions,
    private readonly log: Logger,
    private readonly policies: RunPolicies,
  ) {}

  /** Stop starting nodes; running executions release their runs at the next checkpoint. */
  stop(): void {
    this.stopping = true;
  }

  /** `leased`: the lease is already this replica's (taken when the run was created here), with what the run starts from. */
  async execute(runId: string, keepAlive: () => void = () => {}, leased?: LeasedRun): Promise<ExecuteResult> {
    if (this.active.has(runId)) {
      this.requeued.add(runId);
      return 'not_owner';
    }
    if (this.finished.has(runId)) return 'not_owner';
    this.active.add(runId);
    try {
      let result = await this.executeOwned(runId, keepAlive, leased);
      // A request-side replan (or policy gate, or a resume) queues the run again; its work item (or local dispatch) may have been dropped here while this execution was active.
      for (let i = 0; i < MAX_RETAKES; i++) {
        const again = this.requeued.delete(runId);
        if (result === 'finished' || result === 'stopped' || (result !== 'lease_lost' && !again)) break;
        if ((await this.repo.get(runId))?.status !== 'queued') break;
        result = await this.executeOwned(runId, keepAlive);
      }
      if (result === 'finished') {
        this.finished.add(runId);
        if (this.finished.size > FINISHED_MEMORY) this.finished.delete(this.finished.values().next().value!);
      }
      return result;
    } finally {
      this.active.delete(runId);
      this.requeued.delete(runId);
    }
  }

  private async executeOwned(runId: string, keepAlive: () => void, preleased?: LeasedRun): Promise<ExecuteResult> {
    const { owner, leaseMs } = this.options;
    const leased = preleased ?? (await this.store.leaseWithState(runId, owner, leaseMs));
    if (!leased) return 'not_owner';
    const abort = new AbortController();
    let lost = false;
    const heartbeat = setInterval(() => {
      keepAlive();
      this.store
        .renewLease(runId, owner, leaseMs)
        .then((ok) => {
          if (!ok) {
            lost = true;
            abort.abort();
          }
        })
        .catch((err) => this.log.warn({ err, runId }, 'lease renewal failed'));
    }, Math.max(100, Math.floor(leaseMs / 3)));
    heartbeat.unref();
    try {
      const result = await this.loop(leased, abort.signal, () => lost);
      if (result === 'stopped') await this.store.releaseLease(runId, owner);
      return result;
    } catch (err) {
      if (err instanceof LeaseLostError) return 'lease_lost';
      throw err;
    } finally {
      clearInterval(heartbeat);
      abort.abort();
      this.store.discard(runId);
    }
  }

  private async loop(leased: LeasedRun, signal: AbortSignal, isLost: () => boolean): Promise<ExecuteResult> {
    for (let current = leased; ; ) {
      const result = await this.epoch(current, signal, isLost);
      if (result !== 'replanned') return result;
      // Plan version N+1 is in place: go on from the persisted node states with it.
      const again = await this.store.leaseWithState(current.run.id, this.options.owner, this.options.leaseMs);
      if (!again) throw new LeaseLostError(current.run.id);
      current = again;
    }
  }

  /** One plan version of the run: until it finishes, parks, stops, or a policy's replan swaps the plan. */
  private async epoch(leased: LeasedRun, signal: AbortSignal, isLost: () => boolean): Promise<ExecuteResult | 'replanned'> {
    // Node states and outputs as of the lease (read by the statement that took it).
    const { run, states } = leased;
    const x: Execution = {
      run,
      states,
      outputs: new OutputMap(leased.outputs),
      slots: new Semaphore(this.options.concurrency),
      signal,
      isLost,
      started: Date.now(),
      policy: await this.policies.load(run, states),
      leasedWaiting: leased.waiting,
    };
    if (!run.rollback) {
      const top = this.topLevel(x);
      await this.policies.onStart(x);
      for (;;) {
        // A safe point (nothing in flight): decided policy gates close, a pending policy action applies.
        const step = await this.policies.settle(x);
        if (step.kind === 'fail') {
          await this.finish(x, 'failed', step.error, { policyId: step.policyId }, { firingKey: step.firingKey });
          return 'finished';
        }
        if (step.kind === 'paused') return 'parked';
        if (step.kind === 'replan') return (await this.policies.replan(x, step.firing)) === 'replanned' ? 'replanned' : 'parked';
        await this.policies.checkTimers(x);
        const result = await this.runGraph(x, top);
        if (result.kind === 'stopped') return 'stopped';
        if (result.kind === 'aborted') break;
        if (x.policy.pending.length) continue;
        if (result.kind === 'waiting' || result.kind === 'halted') {
          // Only waiting nodes (or an undecided policy gate) are left: hand the run back until a decision, timer or child run moves one.
          if (await this.store.park(run.id, this.options.owner)) return 'parked';
          await sleep(20, signal);
          continue;
        }
        if (result.status === 'completed') {
          if ((await this.complete(x)) === 'halted') continue;
        } else await this.finish(x, 'failed', result.error ?? 'failed', {});
        return 'finished';
      }
    }
    await this.rollback(x);
    return 'finished';
  }

  /** Runs one graph level until it is done, waits, stops or the run rolls back. */
  private async runGraph(x: Execution, level: Level): Promise<GraphResult> {
    const owner = this.options.owner;
    const inFlight = new Map<string, Promise<void>>();
    const view = this.view(x, level);
    let fatal: string | undefined;
    const canSettle = () => !fatal && !x.abort && !this.stopping;
    // A runtime policy's pending action or open gate lets nodes finish but none start.
    const canStart = () => canSettle() && !this.policies.halted(x);
    // Nodes are skipped as routes not taken only below a route node (or below nodes an earlier plan version skipped so).
    const routeSkipping = this.hasRoutes(level) || this.levelStates(x, level).some((st) => st.skipReason === ROUTE_NOT_TAKEN);
    for (;;) {
      if (x.isLost()) throw new LeaseLostError(x.run.id);
      if (canSettle() && this.hasWaiting(x, level)) {
        const failure = await this.settleWaiting(x, level);
        if (failure) fatal ??= failure;
      }
      // Only the very first look may use the states read with the lease.
      x.leasedWaiting = undefined;
      if (canSettle() && x.policy.policies.length) {
        await this.policies.observe(x, level);
        if (!level.suffix) await this.policies.checkTimers(x);
      }
      if (canStart()) {
        for (const id of unneededFallbacks(level, view, level.fallbacks)) {
          await this.store.nodeEnded(x.run.id, owner, id + level.suffix, 'skipped', null, { skipped: true, reason: 'primary_succeeded' }, 'primary_succeeded', { defer: true });
          this.put(x, id + level.suffix, { ...settled(id + level.suffix, 'skipped', 0), skipReason: 'primary_succeeded' });
        }
        const outputs = { get: (id: string) => x.outputs.get(id + level.suffix) };
        for (const id of routeSkipping ? routeSkips(level, view, outputs) : []) {
          await this.store.nodeEnded(x.run.id, owner, id + level.suffix, 'skipped', null, { skipped: true, reason: ROUTE_NOT_TAKEN }, ROUTE_NOT_TAKEN, { defer: true });
          this.put(x, id + level.suffix, { ...settled(id + level.suffix, 'skipped', 0), skipReason: ROUTE_NOT_TAKEN });
        }
        for (const node of readyNodes(level, view, new Set(inFlight.keys()), level.fallbacks)) {
          const task = this.runNode(x, level, node, canStart)
            .then((failure) => {
              if (failure) fatal ??= failure;
            })
            .finally(() => inFlight.delete(node.id));
          inFlight.set(node.id, task);
        }
      }
      if (inFlight.size === 0) {
        if (canSettle() && this.hasWaiting(x, level)) return { kind: 'waiting', until: nextTimer(this.levelStates(x, level)) };
        break;
      }
      const waits: number[] = [];
      if (this.hasWaiting(x, level)) {
        const timer = nextTimer(this.levelStates(x, level));
        waits.push(WAITING_POLL_MS, ...(timer ? [Math.max(0, timer.getTime() - Date.now())] : []));
      }
      const deadline = level.suffix ? null : this.policies.nextDeadline(x);
      if (deadline) waits.push(Math.max(0, deadline.getTime() - Date.now()));
      await Promise.race([...inFlight.values(), ...(waits.length ? [sleep(Math.min(...waits), x.signal)] : [])]);
    }
    if (x.abort) return { kind: 'aborted' };
    if (this.stopping && !fatal && !runOutcome(level, view).done) return { kind: 'stopped' };
    if (!fatal && this.policies.halted(x)) return { kind: 'halted' };
    const outcome = runOutcome(level, view, fatal);
    if (!outcome.done) return { kind: 'done', status: 'failed', error: 'no node can make progress (unsatisfiable dependencies)' };
    return { kind: 'done', status: outcome.status, ...(outcome.error ? { error: outcome.error } : {}) };
  }

  /** Runs one node to a terminal (or waiting) state; returns a message when its level must fail. */
  private async runNode(x: Execution, level: Level, node: PlanNode, canStart: () => boolean): Promise<string | undefined> {
    const { run } = x;
    const owner = this.options.owner;
    const inst = node.id + level.suffix;
    const prior = x.states.get(inst);
    const replay = prior?.status === 'running';
    let attempt = replay ? prior!.attempt : (prior?.attempt ?? 0) + 1;
    const scope = this.scopeOf(x, level);

    if (node.condition) {
      let pass: boolean;
      try {
        pass = this.conditionOf(node)(scope);
      } catch (err) {
        return this.fail(x, level, node, attempt, toAppError(err), 'condition');
      }
      if (!pass) {
        await this.store.nodeEnded(run.id, owner, inst, 'skipped', null, { skipped: true, reason: 'condition_false' }, 'condition_false', { defer: true });
        this.put(x, inst, { ...settled(inst, 'skipped', attempt), skipReason: 'condition_false' });
        return undefined;
      }
    }

    const policy = node.errorPolicy;
    const retry = policy?.retry;
    const maxRetries = retry?.maxRetries ?? (policy?.onError === 'retry' ? 1 : 0);
    // Seed §10: a skipped or failed step's output reads as empty downstream.
    const lenient = node.dependsOn.some((dep) => x.states.get(dep + level.suffix)?.status !== 'completed');
    let cacheKey: string | undefined;
    if (node.cache) {
      try {
        cacheKey = String(interpolate(node.cache.key, scope));
      } catch (err) {
        return this.fail(x, level, node, attempt, toAppError(err), 'cache_key');
      }
      const hit = await this.store.cacheGet(run.userId, cacheKey);
      if (hit) {
        await this.store.nodeCompleted(run.id, owner, inst, hit.output, {
          attempt,
          cached: true,
          outputKey: node.outputKey ?? node.id,
          summary: summarize(hit.output),
        });
        x.outputs.set(inst, hit.output);
        this.put(x, inst, settled(inst, 'completed', attempt));
        return undefined;
      }
    }
    const isMap = node.kind === 'map';
    const opts = isMap ? {} : this.executors.optionsOf(node);
    const pure = !!opts.pure;
    let resumed = replay;
    for (;;) {
      // Each executing node holds a slot of the run's concurrency; a map holds none (its iterations' nodes do).
      let release: (() => void) | undefined;
      if (!isMap) {
        try {
          release = await x.slots.acquire(x.signal);
        } catch {
          throw new LeaseLostError(run.id);
        }
      }
      try {
        if (!canStart()) return undefined;
        const startPayload = { kind: node.kind, action: node.action ?? null, ...(level.loop ? { map: level.loop.mapId, index: level.loop.index } : {}) };
        // A pure node's start is committed with its completion (below), or just before its failure.
        let started = resumed;
        if (!resumed && !pure) {
          await this.store.nodeStarted(run.id, owner, inst, attempt, startPayload);
          started = true;
        }
        resumed = false;
        this.put(x, inst, { nodeId: inst, status: 'running', attempt, error: null, startedAt: new Date(), finishedAt: null });
        const t0 = Date.now();
        try {
          const ctx = this.context(x, level, node, inst, attempt, scope, lenient, opts);
          const result = isMap ? await this.runMap(x, level, node, ctx) : await this.executors.resolve(node)(ctx);
          if (result instanceof WaitFor) {
            await this.store.nodeWaiting(run.id, owner, inst, result.until, result.frame, result.childRunId);
            this.put(x, inst, { nodeId: inst, status: 'waiting', attempt, error: null, startedAt: new Date(), finishedAt: null, waitUntil: result.until, childRunId: result.childRunId });
            return undefined;
          }
          const { output, payload: extra } = result instanceof Completed ? result : { output: result, payload: {} };
          // A fallback's output stands in for its primary's, for later references and for GetRun.
          const primary = node.fallbackFor ? level.nodes.find((n) => n.id === node.fallbackFor) : undefined;
          await this.store.nodeCompleted(
            run.id,
            owner,
            inst,
            output,
            {
              attempt,
              durationMs: Date.now() - t0,
              outputKey: node.outputKey ?? node.id,
              summary: summarize(output),
              ...extra,
              ...(primary ? { fallbackFor: primary.id + level.suffix } : {}),
            },
            primary ? primary.id + level.suffix : undefined,
            started ? undefined : { attempt, ...startPayload },
            // A pure node (never started on its own) is computed again if this is lost: it may ride on the run's next statement.
            { defer: !started && cacheKey === undefined },
          );
          x.outputs.set(inst, output);
          if (primary) x.outputs.set(primary.id + level.suffix, output);
          if (cacheKey !== undefined && node.cache) await this.store.cachePut(run.userId, cacheKey, output, node.cache.ttlSeconds);
          this.put(x, inst, settled(inst, 'completed', attempt));
          return undefined;
        } catch (err) {
          if (err instanceof Interrupted) return undefined;
          if (err instanceof LeaseLostError || x.signal.aborted) throw err instanceof LeaseLostError ? err : new LeaseLostError(run.id);
          if (!started) await this.store.nodeStarted(run.id, owner, inst, attempt, startPayload);
          const app = toAppError(err);
          const retryable =
            policy?.onError === 'retry' ||
            (retry?.retryableCodes.length ? retry.retryableCodes.includes(app.code) : app.retryable || TRANSIENT.has(app.code));
          if (retryable && attempt <= maxRetries) {
            const wait = app.retryAfterMs ?? backoffMs(attempt, { backoffMs: 1000, multiplier: 2, maxBackoffMs: 60_000, ...retry });
            this.log.info({ runId: run.id, nodeId: inst, attempt, code: app.code, waitMs: wait }, 'retrying node');
            release?.();
            release = undefined;
            await sleep(wait, x.signal);
            attempt++;
            continue;
          }
          return this.fail(x, level, node, attempt, app, 'execution');
        }
      } finally {
        release?.();
      }
    }
  }

  /**
   * A map node: items fixed per attempt (durably, with a pending state per body
   * node instance), iterations run `concurrency` at a time, each a graph level
   * of its own. Results in item order; `continueOnError` turns a failed
   * iteration into `null` instead of failing the map.
   */
  private async runMap(x: Execution, level: Level, node: PlanNode, ctx: NodeContext): Promise<unknown> {
    const body = node.body!;
    const inst = ctx.instanceId;
    const key = itemsKey(inst);
    let prepared = x.outputs.get(key) as { attempt: number; items: unknown[]; total: number } | undefined;
    if (!prepared || prepared.attempt !== ctx.attempt || !Array.isArray(prepared.items)) {
      const from = body.itemsFrom ?? '';
      let value: unknown;
      try {
        value = ctx.resolve(from.includes('{') ? from : `{${from}}`);
      } catch (err) {
        throw new AppError('INVALID_ARGUMENT', `node ${inst}: body.itemsFrom: ${(err as Error).message}`, {
          violations: [{ field: 'body.itemsFrom', reason: (err as Error).message }],
          retryable: false,
        });
      }
      const read = readItems(value);
      if ('error' in read) {
        throw new AppError('INVALID_ARGUMENT', `node ${inst}: body.itemsFrom (${from}) ${read.error}`, {
          violations: [{ field: 'body.itemsFrom', reason: read.error }],
          retryable: false,
        });
      }
      const max = body.maxIterations ?? this.options.mapMaxIterations ?? DEFAULT_MAP_MAX_ITERATIONS;
      const limited = limitItems(read.items, max);
      const instanceIds = limited.items.flatMap((_, i) => body.nodes.map((b) => b.id + iterationSuffix(level.suffix, i)));
      const bodyIds = bodyNodeIds(node);
      // A retried map starts over only the instances that did not complete.
      const reset = [...x.states.keys()].filter((id) => isInsideMap(id, node, level.suffix, bodyIds) && x.states.get(id)!.status !== 'completed');
      prepared = { attempt: ctx.attempt, items: limited.items, total: limited.total };
      const frame: Frame | null = limited.truncated
        ? { type: 'log', payload: { event: 'map_truncated', nodeId: inst, total: limited.total, maxIterations: max, dropped: limited.total - max } }
        : null;
      await this.store.mapPrepared(x.run.id, this.options.owner, inst, { key, value: prepared }, instanceIds, reset, frame);
      x.outputs.set(key, prepared);
      for (const id of reset) {
        const s = x.states.get(id)!;
        x.states.set(id, { ...s, status: 'pending', error: null, skipReason: null, waitUntil: null, decision: null, childRunId: null, finishedAt: null });
      }
      for (const id of instanceIds) if (!x.states.has(id)) x.states.set(id, { nodeId: id, status: 'pending', attempt: 0, error: null, startedAt: null, finishedAt: null });
    }

    const items = prepared.items;
    const concurrency = body.concurrency ?? DEFAULT_MAP_CONCURRENCY;
    const vars = this.scopeOf(x, level).vars;
    const results: unknown[] = items.map(() => null);
    const failed: Array<{ index: number; error: string }> = [];
    const waits: Array<Date | null> = [];
    let stopped = false;
    let next = 0;
    const active = new Map<number, Promise<void>>();
    const iterate = async (i: number) => {
      const iteration = this.iterationLevel(level, node, inst, vars, items[i], i);
      const r = await this.runGraph(x, iteration);
      if (r.kind === 'done') {
        if (r.status === 'completed') {
          results[i] = iterationResult(body.nodes, (id) => {
            const k = id + iteration.suffix;
            return x.outputs.has(k) ? { value: x.outputs.get(k) } : undefined;
          });
        } else {
          failed.push({ index: i, error: r.error ?? 'failed' });
        }
      } else if (r.kind === 'waiting') {
        waits.push(r.until);
      } else {
        stopped = true;
      }
    };
    const mustStop = () => (!body.continueOnError && failed.length > 0) || stopped || this.stopping || !!x.abort;
    for (;;) {
      while (next < items.length && active.size + waits.length < concurrency && !mustStop()) {
        const i = next++;
        active.set(
          i,
          iterate(i).finally(() => active.delete(i)),
        );
      }
      if (active.size === 0) break;
      await Promise.race(active.values());
    }
    if (x.abort || stopped || (this.stopping && (next < items.length || waits.length > 0))) throw new Interrupted();
    failed.sort((a, b) => a.index - b.index);
    if (failed.length && !body.continueOnError) {
      // Iterations still waiting (or never started) will not run: close them.
      const open = [...x.states.entries()]
        .filter(([id, s]) => isInsideMap(id, node, level.suffix) && (s.status === 'waiting' || s.status === 'pending' || s.status === 'running'))
        .map(([id]) => id);
      await this.store.instancesCancelled(x.run.id, this.options.owner, inst, open);
      for (const id of open) {
        const s = x.states.get(id)!;
        if (s.childRunId) await this.repo.cancel(s.childRunId, 'map_failed');
        x.states.set(id, { ...s, status: 'cancelled' });
      }
      const first = failed[0]!;
      throw new AppError('FAILED_PRECONDITION', `map ${inst}: iteration ${first.index} failed: ${first.error}`, {
        violations: failed.map((f) => ({ field: `iterations[${f.index}]`, reason: f.error })),
        retryable: false,
      });
    }
    if (waits.length) {
      const timers = waits.filter((w): w is Date => w !== null);
      return new WaitFor(timers.length ? new Date(Math.min(...timers.map((t) => t.getTime()))) : null, null);
    }
    return new Completed(results, {
      iterations: items.length,
      ...(prepared.total > items.length ? { total: prepared.total } : {}),
      ...(failed.length ? { failedIterations: failed.map((f) => f.index) } : {}),
    });
  }

  /**
   * Waiting nodes of a level whose decision arrived (ResumeRun, possibly via
   * another process), whose timer fired, whose child run ended — or maps with
   * such an iteration — move on; returns a message when the level must fail.
   */
  private async settleWaiting(x: Execution, level: Level): Promise<string | undefined> {
    const { run } = x;
    const owner = this.options.owner;
    const waitingNodes = level.nodes.filter((n) => x.states.get(n.id + level.suffix)?.status === 'waiting');
    if (!waitingNodes.length) return undefined;
    // A decision that lands after this read is seen at the next look (a parked run is queued again; park refuses while one is pending).
    const fresh = x.leasedWaiting ?? (await this.repo.waitingStates(run.id));
    x.leasedWaiting = undefined;
    const now = new Date();
    let fatal: string | undefined;
    for (const node of waitingNodes) {
      const inst = node.id + level.suffix;
      const row = fresh.get(inst);
      if (!row) continue;
      const { childStatus, ...state } = row;
      this.put(x, inst, state);
      if (node.kind === 'map') {
        const bodyIds = bodyNodeIds(node);
        const due =
          (!!state.waitUntil && now >= state.waitUntil) ||
          [...fresh.values()].some(
            (r) =>
              isInsideMap(r.nodeId, node, level.suffix, bodyIds) &&
              (!!r.decision || (!!r.waitUntil && now >= r.waitUntil) || TERMINAL_RUN.has(r.childStatus as RunStatus)),
          );
        if (due) {
          await this.store.nodeResumed(run.id, owner, inst);
          this.put(x, inst, { ...state, status: 'running', waitUntil: null });
        }
        continue;
      }
      if (node.kind === 'subflow') {
        const outcome = resolveSubflow(node, state, await this.childRun(state.childRunId ?? null, childStatus), now);
        if (!outcome) continue;
        if (outcome.kind === 'complete') {
          await this.store.nodeCompleted(run.id, owner, inst, outcome.output, {
            attempt: state.attempt,
            outputKey: node.outputKey ?? node.id,
            summary: summarize(outcome.output),
            childRunId: state.childRunId,
          });
          x.outputs.set(inst, outcome.output);
          this.put(x, inst, settled(inst, 'completed', state.attempt));
        } else {
          if (outcome.cancelChild && state.childRunId) await this.repo.cancel(state.childRunId, 'parent_timeout');
          const failure = await this.fail(x, level, node, state.attempt, new AppError(outcome.code, outcome.message, { retryable: false }), 'subflow', {
            childRunId: state.childRunId,
          });
          if (failure) fatal ??= failure;
        }
        continue;
      }
      const outcome = resolveWaiting(node, state, now);
      if (!outcome) continue;
      if (outcome.kind === 'complete') {
        // Decided (durably) or timed out: resolved the same way again if this is lost.
        await this.store.nodeCompleted(
          run.id,
          owner,
          inst,
          outcome.output,
          { attempt: state.attempt, outputKey: node.outputKey ?? node.id, summary: summarize(outcome.output) },
          undefined,
          undefined,
          { defer: true },
        );
        x.outputs.set(inst, outcome.output);
        this.put(x, inst, settled(inst, 'completed', state.attempt));
      } else if (outcome.kind === 'skip') {
        await this.store.nodeEnded(run.id, owner, inst, 'skipped', null, { skipped: true, reason: outcome.reason }, outcome.reason, { defer: true });
        this.put(x, inst, { ...settled(inst, 'skipped', state.attempt), skipReason: outcome.reason });
      } else if (outcome.kind === 'rerun') {
        // A clarification was answered: the node that asked runs again (replayed with its attempt).
        await this.store.nodeResumed(run.id, owner, inst);
        this.put(x, inst, { ...state, status: 'running', waitUntil: null });
      } else {
        await this.store.nodeEnded(run.id, owner, inst, 'failed', outcome.message, {
          attempt: state.attempt,
          code: 'FAILED_PRECONDITION',
          error: outcome.message,
          continues: false,
        });
        this.put(x, inst, { ...settled(inst, 'failed', state.attempt), error: outcome.message });
        fatal ??= outcome.message;
      }
    }
    return fatal;
  }

  /** The child run as it is now (`status` was read earlier: the child may have completed since). */
  private async childRun(childRunId: string | null, status: string | null): Promise<ChildRun | null> {
    if (!childRunId) return null;
    const view = async () => {
      const v = await this.repo.view(childRunId);
      return v ? { id: v.id, status: v.status, error: v.error, outputs: v.outputs, createdAt: v.createdAt, updatedAt: v.updatedAt } : null;
    };
    if (status === 'completed') return view();
    const run = await this.repo.get(childRunId);
    // Completed in between: its outputs are what the node resumes with.
    if (run?.status === 'completed') return view();
    return run ? { id: run.id, status: run.status, error: run.error, outputs: {}, createdAt: run.createdAt, updatedAt: run.updatedAt } : null;
  }

  private async fail(
    x: Execution,
    level: Level,
    node: PlanNode,
    attempt: number,
    err: AppError,
    phase: string,
    extra: Record<string, unknown> = {},
  ): Promise<string | undefined> {
    const inst = node.id + level.suffix;
    const onError = node.errorPolicy?.onError ?? 'stop';
    const hasFallbacks = (node.errorPolicy?.fallback.length ?? 0) > 0 || level.nodes.some((n) => n.fallbackFor === node.id);
    // Seed §10: `retry` behaves as `skip` once its retries are used up; a node with fallbacks hands over to them.
    let continues = onError === 'skip' || onError === 'retry' || (onError === 'fallback' && hasFallbacks);
    let fatalMessage = `node ${inst} failed: ${err.message}`;
    // The node whose rollbackOnError counts: the node itself, or the primary a fallback stands in for.
    let owner: PlanNode | undefined = node;
    let handedOver = onError === 'fallback' && hasFallbacks;
    if (node.fallbackFor) {
      // The run fails only when the primary and every one of its fallbacks failed.
      const siblings = level.fallbacks.get(node.fallbackFor) ?? [];
      const others = siblings.filter((id) => id !== node.id).map((id) => x.states.get(id + level.suffix)?.status ?? 'pending');
      const primary = level.nodes.find((n) => n.id === node.fallbackFor);
      handedOver = others.some((st) => st === 'completed' || st === 'pending' || st === 'running');
      continues = handedOver || primary?.errorPolicy?.onError === 'skip';
      fatalMessage = `node ${node.fallbackFor}${level.suffix} and its fallbacks failed (last: ${inst}: ${err.message})`;
      owner = primary;
    }
    const rollback = !!owner?.errorPolicy?.rollbackOnError && !handedOver;
    if (rollback) {
      // rollbackOnError wins over skip: the completed work is undone and the run fails.
      continues = false;
      x.abort ??= { nodeId: inst, message: fatalMessage };
    }
    await this.store.nodeEnded(x.run.id, this.options.owner, inst, 'failed', err.message, {
      attempt,
      phase,
      code: err.code,
      error: err.message,
      ...(err.violations.length ? { violations: err.violations } : {}),
      continues,
      ...(rollback ? { rollback: true } : {}),
      ...extra,
    });
    this.put(x, inst, { ...settled(inst, 'failed', attempt), error: err.message });
    return continues ? undefined : fatalMessage;
  }

  /**
   * A completed run: its output checked against the OutputContract (a
   * violation may fire onValidationFail policies: 'halted' when one must be
   * applied first), its goal conditions evaluated.
   */
  private async complete(x: Execution): Promise<'finished' | 'halted'> {
    const { run } = x;
    const output = finalOutput(run, x.outputs);
    let accepted = false;
    if (run.outputContract) {
      const errors = checkOutput(run.outputContract as unknown as OutputContract, output);
      if (errors.length && x.policy.validationAccepted) accepted = true;
      else if (errors.length) {
        const fired = x.policy.policies.length ? await this.policies.onValidationFail(x, errors, output) : 'none';
        if (fired === 'halted') return 'halted';
        const first = errors[0]!;
        const error = `the final output does not satisfy the output contract: ${first.path} ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`;
        // When a policy fired, its statement already carried the validation_error frame.
        await this.finish(x, 'failed', error, {}, fired === 'fired' ? {} : { before: [{ type: 'validation_error', payload: { scope: 'output_contract', errors } }] });
        return 'finished';
      }
    }
    const goals = run.goalCondition?.length ? evaluateGoals(run.goalCondition as GoalCondition[], output) : undefined;
    const payload = {
      ...(goals ? { goal_condition_results: goals, goals_met: goals.every((g) => g.satisfied) } : {}),
      // An operator approved an onValidationFail policy's gate: the output stands as it is.
      ...(accepted ? { output_contract: 'accepted_by_operator' } : {}),
    };
    await this.finish(x, 'completed', null, payload, goals ? { goalConditionResults: goals } : {});
    return 'finished';
  }

  private async finish(
    x: Execution,
    status: 'completed' | 'failed',
    error: string | null,
    payload: Record<string, unknown>,
    opts: { before?: Frame[]; goalConditionResults?: unknown[]; firingKey?: string } = {},
  ): Promise<void> {
    const children = await this.store.finish(x.run.id, this.options.owner, status, error, { durationMs: Date.now() - x.started, ...payload }, opts);
    // Subflow children still running have no one to report to.
    for (const child of children) {
      await this.repo.cancel(child, 'parent_finished').catch((err) => this.log.warn({ err, runId: x.run.id, child }, 'could not cancel child run'));
    }
  }

  /**
   * Roll back the completed nodes that have a rollback action, latest
   * completion first, each once (its progress is durable and its call keyed
   * `runId:node:rollback`), then fail the run. A rollback action that fails is
   * recorded and the others still run.
   */
  private async rollback(x: Execution): Promise<void> {
    const { run } = x;
    const owner = this.options.owner;
    let state: RollbackState | null | undefined = run.rollback;
    if (!state) {
      const abort = x.abort ?? { nodeId: '', message: 'rollback requested' };
      const completions = await this.store.completions(run.id, owner);
      const order = rollbackOrder(completions, (id) => !!this.rollbackTarget(run, id));
      state = { failedNodeId: abort.nodeId, error: abort.message, order };
      await this.store.rollbackStarted(run.id, owner, state, { failedNodeId: abort.nodeId, error: abort.message, nodes: order });
      for (const id of order) {
        const s = x.states.get(id);
        if (s) x.states.set(id, { ...s, rollbackStatus: 'pending' });
      }
    }
    const done: string[] = [];
    const failed: string[] = [];
    for (const id of state.order) {
      const current = x.states.get(id)?.rollbackStatus;
      if (current === 'done' || current === 'failed') {
        (current === 'done' ? done : failed).push(id);
        continue;
      }
      const result = await this.runRollback(x, id);
      await this.store.nodeRolledBack(run.id, owner, id, result.ok, result.payload);
      (result.ok ? done : failed).push(id);
    }
    const summary = `rolled back ${done.length} of ${state.order.length} node(s)${failed.length ? `; rollback failed for ${failed.join(', ')}` : ''}`;
    await this.finish(x, 'failed', `${state.error} (${summary})`, {}, {
      before: [{ type: 'rollback_complete', payload: { failedNodeId: state.failedNodeId, rolledBack: done, failed } }],
    });
  }

  /** The plan node of instance `id` when it has a rollback action. */
  private rollbackTarget(run: Run, id: string): { node: PlanNode; maps: PlanNode[]; indices: number[] } | undefined {
    const parsed = parseInstanceId(id);
    const located = parsed ? locateNode(run.plan.nodes, parsed.nodeId) : undefined;
    if (!parsed || !located?.node.errorPolicy?.rollback || located.maps.length !== parsed.indices.length) return undefined;
    return { ...located, indices: parsed.indices };
  }

  private async runRollback(x: Execution, id: string): Promise<{ ok: boolean; payload: Record<string, unknown> }> {
    const target = this.rollbackTarget(x.run, id)!;
    const attempt = x.states.get(id)?.attempt ?? 1;
    let action: PlanNode;
    try {
      action = rollbackNode(target.node, target.node.errorPolicy!.rollback!);
    } catch (err) {
      return { ok: false, payload: { code: 'INVALID_ARGUMENT', error: (err as Error).message } };
    }
    let level = this.topLevel(x);
    target.maps.forEach((map, k) => {
      const mapInst = map.id + level.suffix;
      const items = (x.outputs.get(itemsKey(mapInst)) as { items?: unknown[] } | undefined)?.items ?? [];
      level = this.iterationLevel(level, map, mapInst, this.scopeOf(x, level).vars, items[target.indices[k]!], target.indices[k]!);
    });
    const scope = this.scopeOf(x, level);
    const release = await x.slots.acquire(x.signal).catch(() => {
      throw new LeaseLostError(x.run.id);
    });
    const t0 = Date.now();
    try {
      const ctx: NodeContext = {
        ...this.context(x, level, action, id, attempt, scope, false, this.executors.optionsOf(action)),
        idempotencyKey: `${x.run.id}:${id}:rollback`,
      };
      const result = await this.executors.resolve(action)(ctx);
      if (result instanceof WaitFor) return { ok: false, payload: { code: 'INVALID_ARGUMENT', error: `the rollback action of ${id} would wait; rollback actions must run to completion` } };
      return { ok: true, payload: { action: action.action ?? null, durationMs: Date.now() - t0 } };
    } catch (err) {
      if (err instanceof LeaseLostError || x.signal.aborted) throw err instanceof LeaseLostError ? err : new LeaseLostError(x.run.id);
      const app = toAppError(err);
      return { ok: false, payload: { action: action.action ?? null, code: app.code, error: app.message } };
    } finally {
      release();
    }
  }

  /** What an executor gets; inputs and params resolved unless its registration says otherwise. */
  private context(
    x: Execution,
    level: Level,
    node: PlanNode,
    inst: string,
    attempt: number,
    scope: Scope,
    lenient: boolean,
    opts: ExecutorOptions,
  ): NodeContext {
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
      node,
      instanceId: inst,
      inputs: opts.raw ? node.inputs : (resolve(node.inputs) as Record<string, unknown>),
      params,
      attempt,
      idempotencyKey: idempotencyKey(x.run.id, inst, attempt),
      timeoutMs: node.errorPolicy?.timeoutMs ?? this.options.nodeTimeoutMs,
      signal: x.signal,
      run: { approvalPolicy: x.run.plan.approvalPolicy, runContext: x.run.runContext, depth: x.run.depth ?? 0 },
      scope,
      resolve,
    };
  }

  private topLevel(x: Execution): Level {
    return { nodes: x.run.plan.nodes, suffix: '', vars: runVars(x.run.plan, x.run.inputs), fallbacks: fallbacksOf(x.run.plan) };
  }

  private iterationLevel(parent: Level, map: PlanNode, mapInst: string, vars: Record<string, unknown>, item: unknown, index: number): Level {
    let fallbacks = this.bodyFallbacks.get(map);
    if (!fallbacks) {
      fallbacks = fallbacksOf(map.body!);
      this.bodyFallbacks.set(map, fallbacks);
    }
    return { nodes: map.body!.nodes, suffix: iterationSuffix(parent.suffix, index), vars, loop: { current: item, index, mapId: mapInst }, fallbacks };
  }

  /** Whether a level has route nodes (only then can nodes be skipped as routes not taken). */
  private hasRoutes(level: Level): boolean {
    let has = this.routed.get(level.nodes);
    if (has === undefined) {
      has = level.nodes.some((n) => n.kind === 'route');
      this.routed.set(level.nodes, has);
    }
    return has;
  }

  private conditionOf(node: PlanNode): (scope: Scope) => boolean {
    let condition = this.conditions.get(node);
    if (!condition) {
      condition = compileNodeCondition(node)!;
      this.conditions.set(node, condition);
    }
    return condition;
  }

  private scopeOf(x: Execution, level: Level): Scope {
    return this.scopes.scopeOf(level, x.outputs, x.run.id);
  }

  /** The level's node states by plan node id. */
  private view(x: Execution, level: Level): StateLookup {
    if (!level.suffix) return x.states;
    return { get: (id: string) => x.states.get(id + level.suffix) };
  }

  private levelStates(x: Execution, level: Level): NodeState[] {
    const out: NodeState[] = [];
    for (const n of level.nodes) {
      const s = x.states.get(n.id + level.suffix);
      if (s) out.push(s);
    }
    return out;
  }

  private hasWaiting(x: Execution, level: Level): boolean {
    return level.nodes.some((n) => x.states.get(n.id + level.suffix)?.status === 'waiting');
  }

  private put(x: Execution, inst: string, state: NodeState): void {
    x.states.set(inst, { ...state, nodeId: inst });
  }
}

function settled(nodeId: string, status: NodeState['status'], attempt: number): NodeState {
  return { nodeId, status, attempt, error: null, startedAt: null, finishedAt: new Date() };
}

function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { code?: unknown; message?: unknown; reference?: unknown };
  if (typeof e?.code === 'string' && e.code === 'unresolved_reference') {
    return new AppError('FAILED_PRECONDITION', String(e.message), { retryable: false });
  }
  return new AppError('INTERNAL', String(e?.message ?? err), { retryable: false });
}

/** Metadata about an output for the (privacy-first) event log: shape, not content. */
function summarize(output: unknown): Record<string, unknown> {
  if (Array.isArray(output)) return { type: 'array', length: output.length };
  if (output && typeof output === 'object') {
    const o = output as Record<string, unknown>;
    return { type: 'object', keys: Object.keys(o).slice(0, 20), ...(typeof o.count === 'number' ? { count: o.count } : {}) };
  }
  return { type: output === null ? 'null' : typeof output };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
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
