/**
 * Rollback of a run whose node with `rollbackOnError` failed: the completed
 * nodes that have a rollback action are rolled back, latest completion first,
 * each once (its progress is durable and its call keyed `runId:node:rollback`),
 * then the run fails. A rollback action that fails is recorded and the others
 * still run.
 */
import type { PlanNode } from '@af/plan';
import { locateNode, itemsKey, parseInstanceId } from '../domain/instance-id.js';
import type { NodeContext, NodeExecutors } from '../domain/node-executor.js';
import { rollbackNode, rollbackOrder, type RollbackState } from '../domain/rollback.js';
import type { Run } from '../domain/run-state.js';
import { WaitFor } from '../domain/waiting.js';
import { LeaseLostError, type Frame, type RunExecutionStore } from '../infra/run-execution.store.js';
import { nodeContext, toAppError, type Execution, type Levels } from './execution.js';

/** Ends the run (the engine's own: it also cancels the run's children). */
export type FinishRun = (x: Execution, status: 'failed', error: string, payload: Record<string, unknown>, opts: { before: Frame[] }) => Promise<void>;

export interface RunRollbackDeps {
  store: RunExecutionStore;
  executors: NodeExecutors;
  levels: Levels;
  owner: string;
  nodeTimeoutMs: number;
  finish: FinishRun;
}

export class RunRollback {
  constructor(private readonly d: RunRollbackDeps) {}

  /** Rolls back what is left to roll back (a replayed rollback goes on where it stopped), then fails the run. */
  async run(x: Execution): Promise<void> {
    const { run } = x;
    const { store, owner } = this.d;
    let state: RollbackState | null | undefined = run.rollback;
    if (!state) {
      const abort = x.abort ?? { nodeId: '', message: 'rollback requested' };
      const completions = await store.completions(run.id, owner);
      const order = rollbackOrder(completions, (id) => !!this.target(run, id));
      state = { failedNodeId: abort.nodeId, error: abort.message, order };
      await store.rollbackStarted(run.id, owner, state, { failedNodeId: abort.nodeId, error: abort.message, nodes: order });
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
      const result = await this.rollBack(x, id);
      await store.nodeRolledBack(run.id, owner, id, result.ok, result.payload);
      (result.ok ? done : failed).push(id);
    }
    const summary = `rolled back ${done.length} of ${state.order.length} node(s)${failed.length ? `; rollback failed for ${failed.join(', ')}` : ''}`;
    await this.d.finish(x, 'failed', `${state.error} (${summary})`, {}, {
      before: [{ type: 'rollback_complete', payload: { failedNodeId: state.failedNodeId, rolledBack: done, failed } }],
    });
  }

  /** The plan node of instance `id` when it has a rollback action. */
  private target(run: Run, id: string): { node: PlanNode; maps: PlanNode[]; indices: number[] } | undefined {
    const parsed = parseInstanceId(id);
    const located = parsed ? locateNode(run.plan.nodes, parsed.nodeId) : undefined;
    if (!parsed || !located?.node.errorPolicy?.rollback || located.maps.length !== parsed.indices.length) return undefined;
    return { ...located, indices: parsed.indices };
  }

  /** Runs instance `id`'s rollback action in the scope the instance ran in. */
  private async rollBack(x: Execution, id: string): Promise<{ ok: boolean; payload: Record<string, unknown> }> {
    const { executors, levels } = this.d;
    const target = this.target(x.run, id)!;
    const attempt = x.states.get(id)?.attempt ?? 1;
    let action: PlanNode;
    try {
      action = rollbackNode(target.node, target.node.errorPolicy!.rollback!);
    } catch (err) {
      return { ok: false, payload: { code: 'INVALID_ARGUMENT', error: (err as Error).message } };
    }
    let level = levels.top(x);
    target.maps.forEach((map, k) => {
      const mapInst = map.id + level.suffix;
      const items = (x.outputs.get(itemsKey(mapInst)) as { items?: unknown[] } | undefined)?.items ?? [];
      level = levels.iteration(level, map, mapInst, levels.scopeOf(x, level).vars, items[target.indices[k]!], target.indices[k]!);
    });
    const scope = levels.scopeOf(x, level);
    const release = await x.slots.acquire(x.signal).catch(() => {
      throw new LeaseLostError(x.run.id);
    });
    const t0 = Date.now();
    try {
      const ctx: NodeContext = {
        ...nodeContext(x, action, id, attempt, scope, false, executors.optionsOf(action), this.d.nodeTimeoutMs),
        idempotencyKey: `${x.run.id}:${id}:rollback`,
      };
      const result = await executors.resolve(action)(ctx);
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
}
