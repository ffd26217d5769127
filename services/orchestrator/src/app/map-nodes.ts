/**
 * A map node: items fixed per attempt (durably, with a pending state per body
 * node instance), iterations run `concurrency` at a time, each a graph level
 * of its own. Results in item order; `continueOnError` turns a failed
 * iteration into `null` instead of failing the map.
 */
import type { PlanNode } from '@af/plan';
import { AppError } from '@af/service-kit';
import { bodyNodeIds, isInsideMap, itemsKey, iterationSuffix } from '../domain/instance-id.js';
import { DEFAULT_MAP_CONCURRENCY, iterationResult, limitItems, readItems } from '../domain/map-iteration.js';
import { Completed, type NodeContext } from '../domain/node-executor.js';
import { WaitFor } from '../domain/waiting.js';
import type { Frame, RunExecutionStore } from '../infra/run-execution.store.js';
import type { RunRepository } from '../infra/run.repository.js';
import { Interrupted, type Execution, type Level, type Levels, type RunGraph } from './execution.js';

const DEFAULT_MAP_MAX_ITERATIONS = 1000;

export interface MapNodesDeps {
  repo: RunRepository;
  store: RunExecutionStore;
  levels: Levels;
  owner: string;
  /** Items a map iterates when its body sets no maxIterations. */
  mapMaxIterations?: number;
  /** Runs an iteration's level (the engine's own loop). */
  runGraph: RunGraph;
  /** The replica is stopping: start no more iterations. */
  stopping: () => boolean;
}

export class MapNodes {
  constructor(private readonly d: MapNodesDeps) {}

  /** Runs map node `node` of `level` (its context `ctx`): its output, or a WaitFor while iterations wait. */
  async run(x: Execution, level: Level, node: PlanNode, ctx: NodeContext): Promise<unknown> {
    const body = node.body!;
    const inst = ctx.instanceId;
    const prepared = await this.prepare(x, level, node, ctx);
    const items = prepared.items;
    const concurrency = body.concurrency ?? DEFAULT_MAP_CONCURRENCY;
    const vars = this.d.levels.scopeOf(x, level).vars;
    const results: unknown[] = items.map(() => null);
    const failed: Array<{ index: number; error: string }> = [];
    const waits: Array<Date | null> = [];
    let stopped = false;
    let next = 0;
    const active = new Map<number, Promise<void>>();
    const iterate = async (i: number) => {
      const iteration = this.d.levels.iteration(level, node, inst, vars, items[i], i);
      const r = await this.d.runGraph(x, iteration);
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
    const mustStop = () => (!body.continueOnError && failed.length > 0) || stopped || this.d.stopping() || !!x.abort;
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
    if (x.abort || stopped || (this.d.stopping() && (next < items.length || waits.length > 0))) throw new Interrupted();
    failed.sort((a, b) => a.index - b.index);
    if (failed.length && !body.continueOnError) {
      // Iterations still waiting (or never started) will not run: close them.
      const open = [...x.states.entries()]
        .filter(([id, s]) => isInsideMap(id, node, level.suffix) && (s.status === 'waiting' || s.status === 'pending' || s.status === 'running'))
        .map(([id]) => id);
      await this.d.store.instancesCancelled(x.run.id, this.d.owner, inst, open);
      for (const id of open) {
        const s = x.states.get(id)!;
        if (s.childRunId) await this.d.repo.cancel(s.childRunId, 'map_failed');
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

  /** The attempt's items: read and persisted (with the body instances' pending states) once per attempt. */
  private async prepare(x: Execution, level: Level, node: PlanNode, ctx: NodeContext): Promise<{ attempt: number; items: unknown[]; total: number }> {
    const body = node.body!;
    const inst = ctx.instanceId;
    const key = itemsKey(inst);
    const known = x.outputs.get(key) as { attempt: number; items: unknown[]; total: number } | undefined;
    if (known && known.attempt === ctx.attempt && Array.isArray(known.items)) return known;
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
    const max = body.maxIterations ?? this.d.mapMaxIterations ?? DEFAULT_MAP_MAX_ITERATIONS;
    const limited = limitItems(read.items, max);
    const instanceIds = limited.items.flatMap((_, i) => body.nodes.map((b) => b.id + iterationSuffix(level.suffix, i)));
    const bodyIds = bodyNodeIds(node);
    // A retried map starts over only the instances that did not complete.
    const reset = [...x.states.keys()].filter((id) => isInsideMap(id, node, level.suffix, bodyIds) && x.states.get(id)!.status !== 'completed');
    const prepared = { attempt: ctx.attempt, items: limited.items, total: limited.total };
    const frame: Frame | null = limited.truncated
      ? { type: 'log', payload: { event: 'map_truncated', nodeId: inst, total: limited.total, maxIterations: max, dropped: limited.total - max } }
      : null;
    await this.d.store.mapPrepared(x.run.id, this.d.owner, inst, { key, value: prepared }, instanceIds, reset, frame);
    x.outputs.set(key, prepared);
    for (const id of reset) {
      const s = x.states.get(id)!;
      x.states.set(id, { ...s, status: 'pending', error: null, skipReason: null, waitUntil: null, decision: null, childRunId: null, finishedAt: null });
    }
    for (const id of instanceIds) if (!x.states.has(id)) x.states.set(id, { nodeId: id, status: 'pending', attempt: 0, error: null, startedAt: null, finishedAt: null });
    return prepared;
  }
}
