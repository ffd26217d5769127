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
 *
 * This file holds the loop, the levels and single nodes; map nodes
 * (map-nodes.ts), waiting nodes (waiting-nodes.ts) and rollback
 * (run-rollback.ts) are handled by parts it owns, over the execution state of
 * execution.ts.
 */
import { interpolate, type Scope } from '@af/expr';
import { outputRoutingReport, type PlanNode } from '@af/plan';
import { AppError, type Logger } from '@af/service-kit';
import { Completed, Skipped, type NodeExecutors } from '../domain/node-executor.js';
import { actsOutsideRun, DRY_RUN, refusesSideEffects, wouldBeInputs } from '../domain/dry-run.js';
import { checkOutput, evaluateGoals, type GoalCondition, type OutputContract } from '../domain/output-contract.js';
import { checkWorkflowOutput } from '../domain/workflow-output.js';
import { backoffMs, readyNodes, ROUTE_NOT_TAKEN, routeSkips, runOutcome, unneededFallbacks } from '../domain/scheduler.js';
import { NodeStates } from '../domain/run-state.js';
import { OutputMap } from '../domain/scope.js';
import { Semaphore } from '../domain/semaphore.js';
import { nextTimer, WaitFor } from '../domain/waiting.js';
import { locateNode, parseInstanceId } from '../domain/instance-id.js';
import { agentFacts, agentFramePayload } from '../domain/agent-facts.js';
import { outcomePayload, taskOutcome, waitsOnPerson } from '../domain/task-outcome.js';
import { skipsOnUpstreamFailure, UPSTREAM_FAILED, upstreamFailure } from '../domain/upstream.js';
import { LeaseLostError, type Frame, type LeasedRun, type RunExecutionStore } from '../infra/run-execution.store.js';
import { finalOutput, type RunRepository } from '../infra/run.repository.js';
import {
  Interrupted,
  Levels,
  nodeContext,
  putState,
  settled,
  sleep,
  summarize,
  toAppError,
  type Execution,
  type ExecuteRunOptions,
  type GraphResult,
  type Level,
} from './execution.js';
import { LateStart } from './late-start.js';
import { MapNodes } from './map-nodes.js';
import { DEFAULT_NODE_OUTPUT_MAX_BYTES, oversize } from '../domain/payload-size.js';
import type { RunPolicies } from './run-policies.js';
import { RunRollback } from './run-rollback.js';
import { WaitingNodes } from './waiting-nodes.js';
import { leaseActiveMs, runTimes } from '../domain/run-timing.js';
import { monitorCompletion, SUPPRESSED, suppressedStep } from './monitor-run-hooks.js';

export type ExecuteResult = 'finished' | 'not_owner' | 'lease_lost' | 'stopped' | 'parked';
/** A request-side replan or policy gate hands a running run back to the queue; this many immediate re-takes at most. */
const MAX_RETAKES = 3;
/** Runs this process finished, remembered so a late work item for one of them costs no query. */
const FINISHED_MEMORY = 4096;

const TRANSIENT = new Set(['UNAVAILABLE', 'DEADLINE_EXCEEDED', 'RESOURCE_EXHAUSTED', 'ABORTED']);
/** While a level has waiting nodes and work in flight, re-check them this often (a decision or a child's end may arrive). */
const WAITING_POLL_MS = 500;

export class ExecuteRun {
  private stopping = false;
  /** Runs executing in this process: the lease is per replica, so a second work item for one of them is dropped here. */
  private readonly active = new Set<string>();
  /** Active runs queued again meanwhile (a resume, a replan): looked at again when their execution here ends. */
  private readonly requeued = new Set<string>();
  /** Runs that finished here, oldest first (bounded). */
  private readonly finished = new Set<string>();
  private readonly levels = new Levels();
  private readonly maps: MapNodes;
  private readonly waiting: WaitingNodes;
  private readonly rollbacks: RunRollback;

  constructor(
    private readonly repo: RunRepository,
    private readonly store: RunExecutionStore,
    private readonly executors: NodeExecutors,
    private readonly options: ExecuteRunOptions,
    private readonly log: Logger,
    private readonly policies: RunPolicies,
  ) {
    const { owner, nodeTimeoutMs, mapMaxIterations } = options;
    const levels = this.levels;
    this.maps = new MapNodes({ repo, store, levels, owner, mapMaxIterations, runGraph: (x, level) => this.runGraph(x, level), stopping: () => this.stopping });
    this.waiting = new WaitingNodes({ repo, store, owner, fail: (...args) => this.fail(...args), ...(options.nodeOutputMaxBytes ? { outputMaxBytes: options.nodeOutputMaxBytes } : {}) });
    this.rollbacks = new RunRollback({ store, executors, levels, owner, nodeTimeoutMs, finish: (x, status, error, payload, opts) => this.finish(x, status, error, payload, opts) });
  }

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
    // Active time is counted per lease (replans within it included): run-timing.ts.
    const leaseStarted = Date.now();
    try {
      const result = await this.loop(leased, abort.signal, () => lost, leaseStarted);
      if (result === 'stopped') await this.store.releaseLease(runId, owner, leaseActiveMs(leaseStarted, Date.now()));
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

  private async loop(leased: LeasedRun, signal: AbortSignal, isLost: () => boolean, leaseStarted: number): Promise<ExecuteResult> {
    for (let current = leased; ; ) {
      const result = await this.epoch(current, signal, isLost, leaseStarted);
      if (result !== 'replanned') return result;
      // Plan version N+1 is in place: go on from the persisted node states with it.
      const again = await this.store.leaseWithState(current.run.id, this.options.owner, this.options.leaseMs);
      if (!again) throw new LeaseLostError(current.run.id);
      current = again;
    }
  }

  /** One plan version of the run: until it finishes, parks, stops, or a policy's replan swaps the plan. */
  private async epoch(leased: LeasedRun, signal: AbortSignal, isLost: () => boolean, leaseStarted: number): Promise<ExecuteResult | 'replanned'> {
    // Node states and outputs as of the lease (read by the statement that took it).
    const { run } = leased;
    const states = new NodeStates(leased.states);
    const x: Execution = {
      run,
      states,
      outputs: new OutputMap(leased.outputs),
      slots: new Semaphore(this.options.concurrency),
      signal,
      isLost,
      dryRun: refusesSideEffects(run.plan),
      started: leaseStarted,
      policy: await this.policies.load(run, states),
      leasedWaiting: leased.waiting,
    };
    if (!run.rollback) {
      const top = this.levels.top(x);
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
          if (await this.store.park(run.id, this.options.owner, this.waitsOnPerson(x), leaseActiveMs(x.started, Date.now()))) return 'parked';
          await sleep(20, signal);
          continue;
        }
        if (result.status === 'completed') {
          if ((await this.complete(x)) === 'halted') continue;
        } else await this.finish(x, 'failed', result.error ?? 'failed', {});
        return 'finished';
      }
    }
    await this.rollbacks.run(x);
    return 'finished';
  }

  /** Runs one graph level until it is done, waits, stops or the run rolls back. */
  private async runGraph(x: Execution, level: Level): Promise<GraphResult> {
    const owner = this.options.owner;
    const inFlight = new Map<string, Promise<void>>();
    const view = this.levels.view(x, level);
    let fatal: string | undefined;
    const canSettle = () => !fatal && !x.abort && !this.stopping;
    // A runtime policy's pending action or open gate lets nodes finish but none start.
    const canStart = () => canSettle() && !this.policies.halted(x);
    // Nodes are skipped as routes not taken only below a route node (or below nodes an earlier plan version skipped so).
    const routeSkipping = this.levels.hasRoutes(level) || this.levels.states(x, level).some((st) => st.skipReason === ROUTE_NOT_TAKEN);
    for (;;) {
      if (x.isLost()) throw new LeaseLostError(x.run.id);
      if (canSettle() && this.levels.hasWaiting(x, level)) {
        const failure = await this.waiting.settle(x, level);
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
          putState(x, id + level.suffix, { ...settled(id + level.suffix, 'skipped', 0), skipReason: 'primary_succeeded' });
        }
        const outputs = { get: (id: string) => x.outputs.get(id + level.suffix) };
        for (const id of routeSkipping ? routeSkips(level, view, outputs) : []) {
          await this.store.nodeEnded(x.run.id, owner, id + level.suffix, 'skipped', null, { skipped: true, reason: ROUTE_NOT_TAKEN }, ROUTE_NOT_TAKEN, { defer: true });
          putState(x, id + level.suffix, { ...settled(id + level.suffix, 'skipped', 0), skipReason: ROUTE_NOT_TAKEN });
        }
        for (const node of readyNodes(level, view, new Set(inFlight.keys()), level.fallbacks, this.levels.open(x, level))) {
          const task = this.runNode(x, level, node, canStart)
            .then((failure) => {
              if (failure) fatal ??= failure;
            })
            .finally(() => inFlight.delete(node.id));
          inFlight.set(node.id, task);
        }
      }
      if (inFlight.size === 0) {
        if (canSettle() && this.levels.hasWaiting(x, level)) return { kind: 'waiting', until: nextTimer(this.levels.states(x, level)) };
        break;
      }
      const waits: number[] = [];
      if (this.levels.hasWaiting(x, level)) {
        const timer = nextTimer(this.levels.states(x, level));
        waits.push(WAITING_POLL_MS, ...(timer ? [Math.max(0, timer.getTime() - Date.now())] : []));
      }
      const deadline = level.suffix ? null : this.policies.nextDeadline(x);
      if (deadline) waits.push(Math.max(0, deadline.getTime() - Date.now()));
      await Promise.race([...inFlight.values(), ...(waits.length ? [sleep(Math.min(...waits), x.signal)] : [])]);
    }
    if (x.abort) return { kind: 'aborted' };
    if (this.stopping && !fatal && !runOutcome(level, view, undefined, this.levels.open(x, level)).done) return { kind: 'stopped' };
    if (!fatal && this.policies.halted(x)) return { kind: 'halted' };
    const outcome = runOutcome(level, view, fatal, this.levels.open(x, level));
    if (!outcome.done) return { kind: 'done', status: 'failed', error: 'no node can make progress (unsatisfiable dependencies)' };
    return { kind: 'done', status: outcome.status, ...(outcome.error ? { error: outcome.error } : {}) };
  }

  /** Runs one node to a terminal (or waiting) state; returns a message when its level must fail. */
  private async runNode(x: Execution, level: Level, node: PlanNode, canStart: () => boolean): Promise<string | undefined> {
    // What the node's references see stays as it is while it runs; once released, the level's next scope may reuse it.
    const borrowed = this.levels.borrowScope(x, level);
    try {
      return await this.runNodeIn(x, level, node, canStart, borrowed.scope);
    } finally {
      borrowed.release();
    }
  }

  private async runNodeIn(x: Execution, level: Level, node: PlanNode, canStart: () => boolean, scope: Scope): Promise<string | undefined> {
    const { run } = x;
    const owner = this.options.owner;
    const inst = node.id + level.suffix;
    const prior = x.states.get(inst);
    const replay = prior?.status === 'running';
    let attempt = replay ? prior!.attempt : (prior?.attempt ?? 0) + 1;

    // Monitors: once every detection step found nothing (suppress_if_empty), the steps not started are skipped (monitor-run-hooks.ts).
    if (!replay && suppressedStep(x, node)) {
      await this.store.nodeEnded(run.id, owner, inst, 'skipped', null, { skipped: true, reason: SUPPRESSED }, SUPPRESSED, { defer: true });
      putState(x, inst, { ...settled(inst, 'skipped', attempt), skipReason: SUPPRESSED });
      return undefined;
    }

    // A step reading a failed step's output is skipped, not run with empty inputs (domain/upstream.ts).
    const upstream = replay || !skipsOnUpstreamFailure(run.plan) ? undefined : upstreamFailure(node, this.levels.readsOf(node, level), level.nodes, this.levels.view(x, level), level.fallbacks);
    if (upstream) {
      const payload = { skipped: true, reason: UPSTREAM_FAILED, upstream: upstream.upstream + level.suffix, error: upstream.message };
      await this.store.nodeEnded(run.id, owner, inst, 'skipped', upstream.message, payload, UPSTREAM_FAILED);
      putState(x, inst, { ...settled(inst, 'skipped', attempt), skipReason: UPSTREAM_FAILED, error: upstream.message });
      return undefined;
    }

    if (node.condition) {
      let pass: boolean;
      try {
        pass = this.levels.conditionOf(node)(scope);
      } catch (err) {
        return this.fail(x, level, node, attempt, toAppError(err), 'condition');
      }
      if (!pass) {
        await this.store.nodeEnded(run.id, owner, inst, 'skipped', null, { skipped: true, reason: 'condition_false' }, 'condition_false', { defer: true });
        putState(x, inst, { ...settled(inst, 'skipped', attempt), skipReason: 'condition_false' });
        return undefined;
      }
    }

    // A dry run never acts outside the run: the node is skipped with its would-be inputs on the frame (domain/dry-run.ts).
    if (x.dryRun && actsOutsideRun(node)) {
      let inputs: unknown;
      try {
        inputs = interpolate(node.inputs, scope, { lenient: true });
      } catch (err) {
        inputs = { unresolved: (err as Error).message };
      }
      const wouldBe = wouldBeInputs(inputs);
      await this.store.nodeEnded(run.id, owner, inst, 'skipped', null, { skipped: true, reason: DRY_RUN, action: node.action ?? null, ...wouldBe }, DRY_RUN, { defer: true });
      putState(x, inst, { ...settled(inst, 'skipped', attempt), skipReason: DRY_RUN });
      return undefined;
    }

    const policy = node.errorPolicy;
    const retry = policy?.retry;
    const maxRetries = retry?.maxRetries ?? (policy?.onError === 'retry' ? 1 : 0);
    // Seed §10: a skipped step's output reads as empty downstream (a failed one's never gets here: see above).
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
        putState(x, inst, settled(inst, 'completed', attempt));
        return undefined;
      }
    }
    const isMap = node.kind === 'map';
    const opts = isMap ? {} : this.executors.optionsOf(node);
    const pure = !!opts.pure;
    const readOnly = !pure && opts.readOnly?.(node) === true;
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
        // A pure node's start is committed with its completion (below), or just before its failure; a read-only
        // action's too when it answers within the grace period (its start is committed when that ends first).
        const graceMs = readOnly && this.store.batching ? (this.options.readOnlyStartGraceMs ?? 0) : 0;
        let started = resumed;
        if (!resumed && !pure && graceMs === 0) {
          await this.store.nodeStarted(run.id, owner, inst, attempt, startPayload);
          started = true;
        }
        const lateStart = !resumed && !pure && graceMs > 0 ? new LateStart(() => this.store.nodeStarted(run.id, owner, inst, attempt, startPayload), graceMs) : undefined;
        resumed = false;
        putState(x, inst, { nodeId: inst, status: 'running', attempt, error: null, startedAt: new Date(), finishedAt: null });
        const t0 = Date.now();
        try {
          const ctx = nodeContext(x, node, inst, attempt, scope, lenient, opts, this.options.nodeTimeoutMs);
          const execution = isMap ? this.maps.run(x, level, node, ctx) : this.executors.resolve(node)(ctx);
          const result = lateStart ? await lateStart.around(execution) : await execution;
          if (lateStart?.committed) started = true;
          if (result instanceof Skipped) {
            if (!started) await this.store.nodeStarted(run.id, owner, inst, attempt, startPayload);
            await this.store.nodeEnded(run.id, owner, inst, 'skipped', null, { skipped: true, reason: result.reason, ...result.payload }, result.reason);
            putState(x, inst, { ...settled(inst, 'skipped', attempt), skipReason: result.reason });
            return undefined;
          }
          if (result instanceof WaitFor) {
            await this.store.nodeWaiting(run.id, owner, inst, result.until, result.frame, result.childRunId);
            putState(x, inst, { nodeId: inst, status: 'waiting', attempt, error: null, startedAt: new Date(), finishedAt: null, waitUntil: result.until, childRunId: result.childRunId });
            return undefined;
          }
          const { output, payload: extra } = result instanceof Completed ? result : { output: result, payload: {} };
          // Refused before it is stored: an oversized output would make the run itself unreadable.
          const tooLarge = oversize(output, this.options.nodeOutputMaxBytes ?? DEFAULT_NODE_OUTPUT_MAX_BYTES, 'NODE_OUTPUT_MAX_BYTES');
          if (tooLarge) {
            throw new AppError('PAYLOAD_TOO_LARGE', `output ${tooLarge.reason}`, {
              retryable: false,
              violations: [{ field: 'output', reason: tooLarge.reason, code: 'output_too_large' }],
            });
          }
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
            // A pure node (never started on its own) or a read-only action is run again if this is lost: it may ride on the run's next statement.
            { defer: (!started || readOnly) && cacheKey === undefined },
          );
          x.outputs.set(inst, output);
          if (primary) x.outputs.set(primary.id + level.suffix, output);
          if (cacheKey !== undefined && node.cache) await this.store.cachePut(run.userId, cacheKey, output, node.cache.ttlSeconds);
          putState(x, inst, settled(inst, 'completed', attempt));
          return undefined;
        } catch (err) {
          if (lateStart?.committed) started = true;
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
    putState(x, inst, { ...settled(inst, 'failed', attempt), error: err.message });
    return continues ? undefined : fatalMessage;
  }

  /**
   * A completed run: its output checked against the OutputContract and the
   * workflow's own output_schema (a violation may fire onValidationFail
   * policies: 'halted' when one must be applied first), its goal conditions
   * evaluated.
   */
  private async complete(x: Execution): Promise<'finished' | 'halted'> {
    const { run } = x;
    const output = finalOutput(run, x.outputs);
    let accepted = false;
    const checks = [
      { scope: 'output_contract', what: 'the output contract', errors: () => (run.outputContract ? checkOutput(run.outputContract as unknown as OutputContract, output) : []) },
      { scope: 'workflow_output_schema', what: "the workflow's output_schema", errors: () => checkWorkflowOutput(run.plan.metadata, output) },
    ];
    for (const check of checks) {
      const errors = check.errors();
      if (errors.length && x.policy.validationAccepted) accepted = true;
      else if (errors.length) {
        const fired = x.policy.policies.length ? await this.policies.onValidationFail(x, errors, output, check.scope) : 'none';
        if (fired === 'halted') return 'halted';
        const first = errors[0]!;
        const error = `the final output does not satisfy ${check.what}: ${first.path} ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`;
        // When a policy fired, its statement already carried the validation_error frame.
        await this.finish(x, 'failed', error, {}, fired === 'fired' ? {} : { before: [{ type: 'validation_error', payload: { scope: check.scope, errors } }] });
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

  /** Whether the run, about to park, waits on a person (its task_status is then awaiting_approval). */
  private waitsOnPerson(x: Execution): boolean {
    return waitsOnPerson(x.states.waiting, (id) => {
      const parsed = parseInstanceId(id);
      return parsed ? locateNode(x.run.plan.nodes, parsed.nodeId)?.node.kind : undefined;
    });
  }

  private async finish(
    x: Execution,
    status: 'completed' | 'failed',
    error: string | null,
    payload: Record<string, unknown>,
    opts: { before?: Frame[]; goalConditionResults?: unknown[]; firingKey?: string } = {},
  ): Promise<void> {
    // What the run did, beside how it ended (domain/task-outcome.ts): on the `complete` frame and the run row.
    const outcome = taskOutcome({ status, error, nodes: x.run.plan.nodes, states: x.states, instances: x.states.values() });
    // durationMs: wall time from the run's start; activeMs: time spent executing it (domain/run-timing.ts).
    // A playbook's output block: its routing report (every destination's status and details) on the frame.
    const routed = outputRoutingReport(x.run.plan, (id) => x.outputs.get(id));
    // Nobody watches an unattended run: who asked rides on the frame, so output-router can tell them it ended.
    const unattended =
      x.run.runContext === 'background' || x.run.runContext === 'scheduled'
        ? { requested_by: x.run.userId, run_context: x.run.runContext, ...(x.run.plan.name ? { run_name: x.run.plan.name } : {}) }
        : {};
    // A monitor cycle's watermarks and suppressed status commit with the completion (monitor-run-hooks.ts).
    const monitor = status === 'completed' ? monitorCompletion(x, this.log) : undefined;
    // An agent's run names the agent on its end, so the planner journals it whoever started it.
    const agent = agentFramePayload(x.run.agent);
    const frame = { ...runTimes(x.run.createdAt, x.run.activeMs, x.started, Date.now()), ...payload, ...outcomePayload(outcome), ...routed, ...unattended, ...agent, ...monitor?.framePayload };
    // An agent's run keeps what it called, found and produced on its row (domain/agent-facts.ts).
    const facts = x.run.agent ? agentFacts(x.run.plan.nodes, x.states, (n) => x.outputs.get(n.id)) : undefined;
    const children = await this.store.finish(x.run.id, this.options.owner, status, error, frame, {
      ...opts,
      outcome,
      ...(monitor ? { monitor } : {}),
      ...(facts ? { agentFacts: facts } : {}),
    });
    // Subflow children still running have no one to report to.
    for (const child of children) {
      await this.repo.cancel(child, 'parent_finished').catch((err) => this.log.warn({ err, runId: x.run.id, child }, 'could not cancel child run'));
    }
  }
}
