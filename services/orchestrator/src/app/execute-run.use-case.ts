/**
 * The execution loop for one run on one replica: take the lease, load what is
 * already done, start ready nodes (bounded), persist each transition before
 * going on, finish. A crash anywhere resumes from the persisted node states;
 * a node that was running is replayed with the same attempt number, so its
 * idempotency key — and the callee's stored result — are the same.
 */
import { interpolate } from '@af/expr';
import { compileNodeCondition, type PlanNode } from '@af/plan';
import { AppError, type Logger } from '@af/service-kit';
import { idempotencyKey, type NodeExecutors } from '../domain/node-executor.js';
import type { NodeState, Run } from '../domain/run-state.js';
import { backoffMs, fallbacksOf, readyNodes, ROUTE_NOT_TAKEN, routeSkips, runOutcome, unneededFallbacks } from '../domain/scheduler.js';
import { buildScope } from '../domain/scope.js';
import { nextTimer, resolveWaiting, WaitFor } from '../domain/waiting.js';
import { LeaseLostError, type RunExecutionStore } from '../infra/run-execution.store.js';
import type { RunRepository } from '../infra/run.repository.js';

export interface ExecuteRunOptions {
  owner: string;
  leaseMs: number;
  concurrency: number;
  nodeTimeoutMs: number;
}

export type ExecuteResult = 'finished' | 'not_owner' | 'lease_lost' | 'stopped' | 'parked';

const TRANSIENT = new Set(['UNAVAILABLE', 'DEADLINE_EXCEEDED', 'RESOURCE_EXHAUSTED', 'ABORTED']);

export class ExecuteRun {
  private stopping = false;
  /** Runs executing in this process: the lease is per replica, so a second work item for one of them is dropped here. */
  private readonly active = new Set<string>();

  constructor(
    private readonly repo: RunRepository,
    private readonly store: RunExecutionStore,
    private readonly executors: NodeExecutors,
    private readonly options: ExecuteRunOptions,
    private readonly log: Logger,
  ) {}

  /** Stop starting nodes; running executions release their runs at the next checkpoint. */
  stop(): void {
    this.stopping = true;
  }

  async execute(runId: string, keepAlive: () => void = () => {}): Promise<ExecuteResult> {
    if (this.active.has(runId)) return 'not_owner';
    this.active.add(runId);
    try {
      return await this.executeOwned(runId, keepAlive);
    } finally {
      this.active.delete(runId);
    }
  }

  private async executeOwned(runId: string, keepAlive: () => void): Promise<ExecuteResult> {
    const { owner, leaseMs } = this.options;
    const run = await this.store.acquireLease(runId, owner, leaseMs);
    if (!run) return 'not_owner';
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
      const result = await this.loop(run, abort.signal, () => lost);
      if (result === 'stopped') await this.store.releaseLease(runId, owner);
      return result;
    } catch (err) {
      if (err instanceof LeaseLostError) return 'lease_lost';
      throw err;
    } finally {
      clearInterval(heartbeat);
      abort.abort();
    }
  }

  private async loop(run: Run, signal: AbortSignal, isLost: () => boolean): Promise<ExecuteResult> {
    const plan = run.plan;
    const states = await this.repo.nodeStates(run.id);
    const outputs = await this.repo.outputs(run.id);
    const inFlight = new Map<string, Promise<void>>();
    const fallbacks = fallbacksOf(plan);
    let fatal: string | undefined;
    const started = Date.now();

    for (;;) {
      if (isLost()) throw new LeaseLostError(run.id);
      if (!fatal && !this.stopping && hasWaiting(states)) {
        const failure = await this.settleWaiting(run, states, outputs);
        if (failure) fatal ??= failure;
      }
      if (!fatal && !this.stopping) {
        for (const id of unneededFallbacks(plan, states, fallbacks)) {
          await this.store.nodeEnded(run.id, this.options.owner, id, 'skipped', null, { skipped: true, reason: 'primary_succeeded' }, 'primary_succeeded');
          states.set(id, { ...settled(id, 'skipped', 0), skipReason: 'primary_succeeded' });
        }
        for (const id of routeSkips(plan, states, outputs)) {
          await this.store.nodeEnded(run.id, this.options.owner, id, 'skipped', null, { skipped: true, reason: ROUTE_NOT_TAKEN }, ROUTE_NOT_TAKEN);
          states.set(id, { ...settled(id, 'skipped', 0), skipReason: ROUTE_NOT_TAKEN });
        }
        for (const node of readyNodes(plan, states, new Set(inFlight.keys()), fallbacks)) {
          if (inFlight.size >= this.options.concurrency) break;
          const task = this.runNode(run, node, states, outputs, signal)
            .then((failure) => {
              if (failure) fatal ??= failure;
            })
            .finally(() => inFlight.delete(node.id));
          inFlight.set(node.id, task);
        }
      }
      if (inFlight.size === 0) {
        if (!fatal && !this.stopping && hasWaiting(states)) {
          // Only waiting nodes are left: hand the run back until a decision or timer.
          if (await this.store.park(run.id, this.options.owner)) return 'parked';
          continue;
        }
        break;
      }
      const timer = nextTimer(states.values());
      await Promise.race([...inFlight.values(), ...(timer ? [sleep(Math.max(0, timer.getTime() - Date.now()), signal)] : [])]);
    }
    if (this.stopping && !fatal) {
      const outcome = runOutcome(plan, states);
      if (!outcome.done) return 'stopped';
    }
    const outcome = runOutcome(plan, states, fatal);
    const status = outcome.done ? outcome.status : 'failed';
    const error = outcome.done ? (outcome.error ?? null) : 'no node can make progress (unsatisfiable dependencies)';
    await this.store.finish(run.id, this.options.owner, status, error, { durationMs: Date.now() - started });
    return 'finished';
  }

  /** Runs one node to a terminal state; returns a message when the run must fail. */
  private async runNode(
    run: Run,
    node: PlanNode,
    states: Map<string, NodeState>,
    outputs: Map<string, unknown>,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const owner = this.options.owner;
    const prior = states.get(node.id);
    const replay = prior?.status === 'running';
    let attempt = replay ? prior!.attempt : (prior?.attempt ?? 0) + 1;
    const scope = buildScope(run.plan, run.inputs, outputs, run.id);

    if (node.condition) {
      let pass: boolean;
      try {
        pass = compileNodeCondition(node)!(scope);
      } catch (err) {
        return this.fail(run, node, states, attempt, toAppError(err), 'condition');
      }
      if (!pass) {
        await this.store.nodeEnded(run.id, owner, node.id, 'skipped', null, { skipped: true, reason: 'condition_false' }, 'condition_false');
        states.set(node.id, settled(node.id, 'skipped', attempt));
        return undefined;
      }
    }

    const policy = node.errorPolicy;
    const retry = policy?.retry;
    const maxRetries = retry?.maxRetries ?? (policy?.onError === 'retry' ? 1 : 0);
    // Seed §10: a skipped or failed step's output reads as empty downstream.
    const lenient = node.dependsOn.some((dep) => states.get(dep)?.status !== 'completed');
    let cacheKey: string | undefined;
    if (node.cache) {
      try {
        cacheKey = String(interpolate(node.cache.key, scope));
      } catch (err) {
        return this.fail(run, node, states, attempt, toAppError(err), 'cache_key');
      }
      const hit = await this.store.cacheGet(run.userId, cacheKey);
      if (hit) {
        await this.store.nodeCompleted(run.id, owner, node.id, hit.output, {
          attempt,
          cached: true,
          outputKey: node.outputKey ?? node.id,
          summary: summarize(hit.output),
        });
        outputs.set(node.id, hit.output);
        states.set(node.id, settled(node.id, 'completed', attempt));
        return undefined;
      }
    }
    let resumed = replay;
    const pure = this.executors.isPure(node);
    for (;;) {
      const startPayload = { kind: node.kind, action: node.action ?? null };
      // A pure node's start is committed with its completion (below), or just before its failure.
      let started = resumed;
      if (!resumed && !pure) {
        await this.store.nodeStarted(run.id, owner, node.id, attempt, startPayload);
        started = true;
      }
      resumed = false;
      states.set(node.id, { nodeId: node.id, status: 'running', attempt, error: null, startedAt: new Date(), finishedAt: null });
      const t0 = Date.now();
      try {
        const inputs = interpolate(node.inputs, scope, { lenient }) as Record<string, unknown>;
        const params = interpolate(node.params, scope, { lenient }) as Record<string, unknown>;
        const output = await this.executors.resolve(node)({
          runId: run.id,
          userId: run.userId,
          node,
          inputs,
          params,
          attempt,
          idempotencyKey: idempotencyKey(run.id, node.id, attempt),
          timeoutMs: policy?.timeoutMs ?? this.options.nodeTimeoutMs,
          signal,
          run: { approvalPolicy: run.plan.approvalPolicy, runContext: run.runContext },
          scope,
        });
        if (output instanceof WaitFor) {
          await this.store.nodeWaiting(run.id, owner, node.id, output.until, output.frame);
          states.set(node.id, { nodeId: node.id, status: 'waiting', attempt, error: null, startedAt: new Date(), finishedAt: null, waitUntil: output.until });
          return undefined;
        }
        // A fallback's output stands in for its primary's, for later references and for GetRun.
        const primary = node.fallbackFor ? run.plan.nodes.find((n) => n.id === node.fallbackFor) : undefined;
        await this.store.nodeCompleted(
          run.id,
          owner,
          node.id,
          output,
          { attempt, durationMs: Date.now() - t0, outputKey: node.outputKey ?? node.id, summary: summarize(output), ...(primary ? { fallbackFor: primary.id } : {}) },
          primary?.id,
          started ? undefined : { attempt, ...startPayload },
        );
        outputs.set(node.id, output);
        if (primary) outputs.set(primary.id, output);
        if (cacheKey !== undefined && node.cache) await this.store.cachePut(run.userId, cacheKey, output, node.cache.ttlSeconds);
        states.set(node.id, settled(node.id, 'completed', attempt));
        return undefined;
      } catch (err) {
        if (err instanceof LeaseLostError || signal.aborted) throw err instanceof LeaseLostError ? err : new LeaseLostError(run.id);
        if (!started) await this.store.nodeStarted(run.id, owner, node.id, attempt, startPayload);
        const app = toAppError(err);
        const retryable =
          policy?.onError === 'retry' ||
          (retry?.retryableCodes.length ? retry.retryableCodes.includes(app.code) : app.retryable || TRANSIENT.has(app.code));
        if (retryable && attempt <= maxRetries) {
          const wait = app.retryAfterMs ?? backoffMs(attempt, { backoffMs: 1000, multiplier: 2, maxBackoffMs: 60_000, ...retry });
          this.log.info({ runId: run.id, nodeId: node.id, attempt, code: app.code, waitMs: wait }, 'retrying node');
          await sleep(wait, signal);
          attempt++;
          continue;
        }
        return this.fail(run, node, states, attempt, app, 'execution');
      }
    }
  }

  /**
   * Waiting nodes whose decision arrived (ResumeRun, possibly from another
   * process) or whose timer fired move on; returns a message when the run must fail.
   */
  private async settleWaiting(run: Run, states: Map<string, NodeState>, outputs: Map<string, unknown>): Promise<string | undefined> {
    const fresh = await this.repo.nodeStates(run.id);
    const now = new Date();
    let fatal: string | undefined;
    for (const node of run.plan.nodes) {
      const state = fresh.get(node.id);
      if (state?.status !== 'waiting') continue;
      states.set(node.id, state);
      const outcome = resolveWaiting(node, state, now);
      if (!outcome) continue;
      const owner = this.options.owner;
      if (outcome.kind === 'complete') {
        await this.store.nodeCompleted(run.id, owner, node.id, outcome.output, {
          attempt: state.attempt,
          outputKey: node.outputKey ?? node.id,
          summary: summarize(outcome.output),
        });
        outputs.set(node.id, outcome.output);
        states.set(node.id, settled(node.id, 'completed', state.attempt));
      } else if (outcome.kind === 'skip') {
        await this.store.nodeEnded(run.id, owner, node.id, 'skipped', null, { skipped: true, reason: outcome.reason }, outcome.reason);
        states.set(node.id, { ...settled(node.id, 'skipped', state.attempt), skipReason: outcome.reason });
      } else {
        await this.store.nodeEnded(run.id, owner, node.id, 'failed', outcome.message, {
          attempt: state.attempt,
          code: 'FAILED_PRECONDITION',
          error: outcome.message,
          continues: false,
        });
        states.set(node.id, { ...settled(node.id, 'failed', state.attempt), error: outcome.message });
        fatal ??= outcome.message;
      }
    }
    return fatal;
  }

  private async fail(
    run: Run,
    node: PlanNode,
    states: Map<string, NodeState>,
    attempt: number,
    err: AppError,
    phase: string,
  ): Promise<string | undefined> {
    const onError = node.errorPolicy?.onError ?? 'stop';
    const hasFallbacks = (node.errorPolicy?.fallback.length ?? 0) > 0 || run.plan.nodes.some((n) => n.fallbackFor === node.id);
    // Seed §10: `retry` behaves as `skip` once its retries are used up; a node with fallbacks hands over to them.
    let continues = onError === 'skip' || onError === 'retry' || (onError === 'fallback' && hasFallbacks);
    let fatalMessage = `node ${node.id} failed: ${err.message}`;
    if (node.fallbackFor) {
      // The run fails only when the primary and every one of its fallbacks failed.
      const siblings = fallbacksOf(run.plan).get(node.fallbackFor) ?? [];
      const others = siblings.filter((id) => id !== node.id).map((id) => states.get(id)?.status ?? 'pending');
      const primaryPolicy = run.plan.nodes.find((n) => n.id === node.fallbackFor)?.errorPolicy?.onError;
      continues = others.some((st) => st === 'completed' || st === 'pending' || st === 'running') || primaryPolicy === 'skip';
      fatalMessage = `node ${node.fallbackFor} and its fallbacks failed (last: ${node.id}: ${err.message})`;
    }
    await this.store.nodeEnded(run.id, this.options.owner, node.id, 'failed', err.message, {
      attempt,
      phase,
      code: err.code,
      error: err.message,
      ...(err.violations.length ? { violations: err.violations } : {}),
      continues,
    });
    states.set(node.id, { ...settled(node.id, 'failed', attempt), error: err.message });
    return continues ? undefined : fatalMessage;
  }
}

function hasWaiting(states: Map<string, NodeState>): boolean {
  for (const s of states.values()) if (s.status === 'waiting') return true;
  return false;
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
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}
