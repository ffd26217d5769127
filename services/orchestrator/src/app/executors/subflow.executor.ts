/**
 * `subflow` nodes (seed delegation-tool-schemas.md §3.1 spawn_and_await):
 * start a child run and wait for it without holding a worker or a lease —
 * the node waits durably like an approval, and the parent run parks.
 *
 *   params.plan           an inline PlanGraph (its references are the child's own), or
 *   params.playbook_id    a stored playbook of the run's owner, compiled by the
 *                         planner (`workflow_slug` is accepted as the seed's name)
 *   params.timeout_seconds  how long to wait (1..86400, default 300 as the seed);
 *                         on expiry the child is cancelled and the node fails
 *                         with DEADLINE_EXCEEDED
 *   inputs                the child run's inputs (the seed's `payload`)
 *   output                { execution_id, status, final_output, duration_ms }
 *
 * The child is created with the idempotency key `subflow:<node key>`, so a
 * replayed node finds the child it already started instead of starting a
 * second one. The child's end reaches the parent durably: its finishing
 * statement queues the parked parent with a work item (outbox), and a
 * reconciliation sweep re-queues any parent a lost message would strand.
 */
import type { PlanGraph } from '@af/plan';
import { AppError } from '@af/service-kit';
import type { NodeExecutor } from '../../domain/node-executor.js';
import type { Run } from '../../domain/run-state.js';
import { WaitFor } from '../../domain/waiting.js';
import { missingInputs, parsePlan } from '../run-commands.js';

export const DEFAULT_SUBFLOW_TIMEOUT_SECONDS = 300;
export const MAX_SUBFLOW_TIMEOUT_SECONDS = 86_400;

export interface SubflowDeps {
  createChild(input: {
    userId: string;
    teamIds?: readonly string[];
    plan: PlanGraph;
    inputs: Record<string, unknown>;
    runContext: string;
    idempotencyKey: string;
    parent: { runId: string; nodeId: string; depth: number };
  }): Promise<Run>;
  /** A stored playbook of `userId`, compiled (the IR object shape, not yet parsed). */
  loadPlaybook(userId: string, playbookId: string): Promise<unknown>;
  maxDepth: number;
  now?: () => Date;
}

export function subflowExecutor(deps: SubflowDeps): NodeExecutor {
  return async (ctx) => {
    const id = ctx.node.id;
    const bad = (field: string, reason: string) =>
      new AppError('INVALID_ARGUMENT', `node ${id}: ${field}: ${reason}`, { violations: [{ field, reason }], retryable: false });
    const inline = ctx.node.params.plan;
    const named = ctx.params.playbook_id ?? ctx.params.workflow_slug;
    const namedField = ctx.params.playbook_id !== undefined ? 'params.playbook_id' : 'params.workflow_slug';
    if (inline !== undefined && named !== undefined) throw bad('params', 'give either plan or playbook_id, not both');
    if (inline === undefined && named === undefined) throw bad('params', 'a subflow needs params.plan (an inline plan) or params.playbook_id');
    if (named !== undefined && (typeof named !== 'string' || named === '')) throw bad(namedField, 'must be a non-empty playbook id');
    const timeout = ctx.params.timeout_seconds ?? DEFAULT_SUBFLOW_TIMEOUT_SECONDS;
    if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0 || timeout > MAX_SUBFLOW_TIMEOUT_SECONDS) {
      throw bad('params.timeout_seconds', `must be a number of seconds in (0, ${MAX_SUBFLOW_TIMEOUT_SECONDS}]`);
    }
    if (ctx.run.depth + 1 > deps.maxDepth) {
      throw new AppError('FAILED_PRECONDITION', `node ${id}: subflows nest at most ${deps.maxDepth} deep and this run is at depth ${ctx.run.depth}`, {
        retryable: false,
      });
    }

    const rawPlan = inline !== undefined ? inline : await deps.loadPlaybook(ctx.userId, named as string);
    let plan: PlanGraph;
    try {
      plan = parsePlan(rawPlan);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      const where = inline !== undefined ? 'params.' : `playbook ${String(named)}: `;
      throw new AppError('INVALID_ARGUMENT', `node ${id}: ${where}${err.message}`, {
        violations: err.violations.map((v) => ({ ...v, field: inline !== undefined ? `params.${v.field}` : v.field })),
        retryable: false,
      });
    }
    const missing = missingInputs(plan, ctx.inputs);
    if (missing.length) {
      throw new AppError('INVALID_ARGUMENT', `node ${id}: the child plan needs input(s) ${missing.join(', ')}`, {
        violations: missing.map((name) => ({ field: `inputs.${name}`, reason: 'is required by the child plan', code: 'missing_required' })),
        retryable: false,
      });
    }

    const child = await deps.createChild({
      userId: ctx.userId,
      teamIds: ctx.teamIds,
      plan,
      inputs: ctx.inputs,
      runContext: ctx.run.runContext,
      idempotencyKey: `subflow:${ctx.idempotencyKey}`,
      parent: { runId: ctx.runId, nodeId: ctx.instanceId, depth: ctx.run.depth + 1 },
    });
    const until = new Date((deps.now?.() ?? new Date()).getTime() + timeout * 1000);
    return new WaitFor(
      until,
      {
        type: 'subflow_started',
        payload: {
          childRunId: child.id,
          ...(named !== undefined ? { playbookId: named } : { inline: true }),
          timeoutAt: until.toISOString(),
        },
      },
      child.id,
    );
  };
}
