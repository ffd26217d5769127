/**
 * Waiting nodes of a level whose decision arrived (ResumeRun, possibly via
 * another process), whose timer fired, whose child run ended — or maps with
 * such an iteration — move on.
 */
import { AppError } from '@af/service-kit';
import { bodyNodeIds, isInsideMap } from '../domain/instance-id.js';
import { DEFAULT_NODE_OUTPUT_MAX_BYTES, oversize } from '../domain/payload-size.js';
import { TERMINAL_RUN, type RunStatus } from '../domain/run-state.js';
import { resolveSubflow, resolveWaiting, type ChildRun } from '../domain/waiting.js';
import type { RunExecutionStore } from '../infra/run-execution.store.js';
import type { RunRepository } from '../infra/run.repository.js';
import { putState, settled, summarize, type Execution, type FailNode, type Level } from './execution.js';

export interface WaitingNodesDeps {
  repo: RunRepository;
  store: RunExecutionStore;
  owner: string;
  /** Records a failed node under its error policy (the engine's own). */
  fail: FailNode;
  /** Largest output a node may settle with (bytes of JSON; NODE_OUTPUT_MAX_BYTES). */
  outputMaxBytes?: number;
}

export class WaitingNodes {
  constructor(private readonly d: WaitingNodesDeps) {}

  /** The failure for an output over NODE_OUTPUT_MAX_BYTES (a child run's outputs, a submitted form), else undefined. */
  private tooLarge(output: unknown): AppError | undefined {
    const over = oversize(output, this.d.outputMaxBytes ?? DEFAULT_NODE_OUTPUT_MAX_BYTES, 'NODE_OUTPUT_MAX_BYTES');
    if (!over) return undefined;
    return new AppError('PAYLOAD_TOO_LARGE', `output ${over.reason}`, { retryable: false, violations: [{ field: 'output', reason: over.reason, code: 'output_too_large' }] });
  }

  /** Moves on the level's waiting nodes that can; returns a message when the level must fail. */
  async settle(x: Execution, level: Level): Promise<string | undefined> {
    const { run } = x;
    const { store, owner } = this.d;
    const waitingNodes = level.nodes.filter((n) => x.states.get(n.id + level.suffix)?.status === 'waiting');
    if (!waitingNodes.length) return undefined;
    // A decision that lands after this read is seen at the next look (a parked run is queued again; park refuses while one is pending).
    const fresh = x.leasedWaiting ?? (await this.d.repo.waitingStates(run.id));
    x.leasedWaiting = undefined;
    const now = new Date();
    let fatal: string | undefined;
    for (const node of waitingNodes) {
      const inst = node.id + level.suffix;
      const row = fresh.get(inst);
      if (!row) continue;
      const { childStatus, ...state } = row;
      putState(x, inst, state);
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
          await store.nodeResumed(run.id, owner, inst);
          putState(x, inst, { ...state, status: 'running', waitUntil: null });
        }
        continue;
      }
      if (node.kind === 'subflow') {
        const outcome = resolveSubflow(node, state, await this.childRun(state.childRunId ?? null, childStatus), now);
        if (!outcome) continue;
        const tooLarge = outcome.kind === 'complete' ? this.tooLarge(outcome.output) : undefined;
        if (tooLarge) {
          const failure = await this.d.fail(x, level, node, state.attempt, tooLarge, 'subflow', { childRunId: state.childRunId });
          if (failure) fatal ??= failure;
          continue;
        }
        if (outcome.kind === 'complete') {
          await store.nodeCompleted(run.id, owner, inst, outcome.output, {
            attempt: state.attempt,
            outputKey: node.outputKey ?? node.id,
            summary: summarize(outcome.output),
            childRunId: state.childRunId,
          });
          x.outputs.set(inst, outcome.output);
          putState(x, inst, settled(inst, 'completed', state.attempt));
        } else {
          if (outcome.cancelChild && state.childRunId) await this.d.repo.cancel(state.childRunId, 'parent_timeout');
          const failure = await this.d.fail(x, level, node, state.attempt, new AppError(outcome.code, outcome.message, { retryable: false }), 'subflow', {
            childRunId: state.childRunId,
          });
          if (failure) fatal ??= failure;
        }
        continue;
      }
      const outcome = resolveWaiting(node, state, now);
      if (!outcome) continue;
      const tooLarge = outcome.kind === 'complete' ? this.tooLarge(outcome.output) : undefined;
      if (tooLarge) {
        const failure = await this.d.fail(x, level, node, state.attempt, tooLarge, 'decision');
        if (failure) fatal ??= failure;
        continue;
      }
      if (outcome.kind === 'complete') {
        // Decided (durably) or timed out: resolved the same way again if this is lost.
        await store.nodeCompleted(
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
        putState(x, inst, settled(inst, 'completed', state.attempt));
      } else if (outcome.kind === 'skip') {
        await store.nodeEnded(run.id, owner, inst, 'skipped', null, { skipped: true, reason: outcome.reason }, outcome.reason, { defer: true });
        putState(x, inst, { ...settled(inst, 'skipped', state.attempt), skipReason: outcome.reason });
      } else if (outcome.kind === 'rerun') {
        // A clarification was answered: the node that asked runs again (replayed with its attempt).
        await store.nodeResumed(run.id, owner, inst);
        putState(x, inst, { ...state, status: 'running', waitUntil: null });
      } else {
        await store.nodeEnded(run.id, owner, inst, 'failed', outcome.message, {
          attempt: state.attempt,
          code: 'FAILED_PRECONDITION',
          error: outcome.message,
          continues: false,
        });
        putState(x, inst, { ...settled(inst, 'failed', state.attempt), error: outcome.message });
        fatal ??= outcome.message;
      }
    }
    return fatal;
  }

  /** The child run as it is now (`status` was read earlier: the child may have completed since). */
  private async childRun(childRunId: string | null, status: string | null): Promise<ChildRun | null> {
    if (!childRunId) return null;
    const { repo } = this.d;
    const view = async () => {
      const v = await repo.view(childRunId);
      return v ? { id: v.id, status: v.status, error: v.error, outputs: v.outputs, createdAt: v.createdAt, updatedAt: v.updatedAt } : null;
    };
    if (status === 'completed') return view();
    const run = await repo.get(childRunId);
    // Completed in between: its outputs are what the node resumes with.
    if (run?.status === 'completed') return view();
    return run ? { id: run.id, status: run.status, error: run.error, outputs: {}, createdAt: run.createdAt, updatedAt: run.updatedAt } : null;
  }
}
