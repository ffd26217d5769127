/**
 * Writes a run's task outcome (domain/task-outcome.ts) on its row: inside an
 * executor transition (`outcomeSet`), or in a request-side transaction that
 * ends the run (cancel, a manual `fail` policy: `recordOutcome`).
 */
import { sqlRows } from '@af/service-kit';
import type { PlanGraph } from '@af/plan';
import type { EntityManager } from 'typeorm';
import type { NodeState } from '../domain/run-state.js';
import { taskOutcome, type TaskOutcome } from '../domain/task-outcome.js';
import type { AgentFacts } from '../domain/agent-facts.js';

/** `SET` assignments (ending with a comma) for an UPDATE of `runs`; `p` binds a parameter. */
export function outcomeSet(p: (value: unknown) => string, o: TaskOutcome): string {
  return `task_status = ${p(o.taskStatus)}::text, steps_completed = ${p(o.stepsCompleted)}::int, steps_failed = ${p(o.stepsFailed)}::int,
          steps_skipped = ${p(o.stepsSkipped)}::int, error_summary = ${p(o.errorSummary)}::text,`;
}

/** `SET` assignments (ending with a comma) for an agent run's facts (domain/agent-facts.ts). */
export function agentFactsSet(p: (value: unknown) => string, f: AgentFacts): string {
  return `connectors_called = ${p(JSON.stringify(f.connectorsCalled))}::jsonb, entities_discovered = ${p(f.entitiesDiscovered)}::int,
          outputs_produced = ${p(JSON.stringify(f.outputsProduced))}::jsonb,`;
}

/**
 * The outcome of a run a request ended, from its plan and top-level node
 * states as the caller's transaction sees them (after it cancelled the
 * unfinished ones), written on the run row.
 */
export async function recordOutcome(m: EntityManager, runId: string, status: 'failed' | 'cancelled', error: string | null): Promise<TaskOutcome> {
  const [run] = await sqlRows<{ plan: PlanGraph }>(m, 'SELECT plan FROM runs WHERE id = $1', [runId]);
  const rows = await sqlRows<{ node_id: string; status: NodeState['status']; error: string | null; skip_reason: string | null }>(
    m,
    `SELECT node_id, status, error, skip_reason FROM node_states WHERE run_id = $1`,
    [runId],
  );
  const states = new Map<string, NodeState>(
    rows.map((r) => [r.node_id, { nodeId: r.node_id, status: r.status, attempt: 0, error: r.error, startedAt: null, finishedAt: null, skipReason: r.skip_reason }]),
  );
  const outcome = taskOutcome({ status, error, nodes: run?.plan.nodes ?? [], states, instances: states.values() });
  const params: unknown[] = [runId];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  await sqlRows(m, `UPDATE runs SET ${outcomeSet(p, outcome)} updated_at = now() WHERE id = $1`, params);
  return outcome;
}
