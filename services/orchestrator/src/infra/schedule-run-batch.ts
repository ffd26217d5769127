/**
 * The runs of one dispatcher claim, created together: one statement inserts
 * every run with its node states, plan version 1 and `start` frame, inside
 * the claim's transaction — so a fire is marked started exactly when its run
 * exists, and a replica dying mid-dispatch leaves neither. Each run's `start`
 * frame and work item go to the outbox of the same transaction; the runs are
 * queued and executed by the normal run path (a replica with room picks its
 * own committed work items at once, the bus hands the rest out).
 *
 * The rows are the same as RunRepository.create writes for a queued run (no
 * lease). A run whose id or idempotency key already exists is left alone.
 */
import { sqlRows, type OutboxMessage, type ServiceKit } from '@af/service-kit';
import type { EntityManager } from 'typeorm';
import type { CreateRunInput } from '../app/run-commands.js';

export async function insertRunBatch(m: EntityManager, emit: (...msgs: OutboxMessage[]) => void, subjects: Pick<ServiceKit['subjects'], 'run' | 'runWork'>, runs: ReadonlyArray<CreateRunInput & { id: string }>): Promise<string[]> {
  if (!runs.length) return [];
  const timestamp = new Date().toISOString();
  const starts = runs.map((r) => ({ planVersion: 1, nodeCount: r.plan.nodes.length, runContext: r.runContext }));
  const nodes = runs.flatMap((r) => r.plan.nodes.map((n) => [r.id, n.id] as const));
  const rows = await sqlRows<{ id: string }>(
    m,
    `WITH x AS (
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[], $5::jsonb[], $6::text[], $7::jsonb[], $8::bigint[], $9::jsonb[], $10::text[], $11::jsonb[], $15::text[], $16::text[], $17::text[])
         AS x(id, user_id, run_context, plan, inputs, idempotency_key, policies, policy_timeout_ms, team_ids, source_id, start_payload, agent_profile_id, invoked_by, agent_team_id)
     ), ins AS (
       INSERT INTO runs (id, user_id, status, run_context, plan, inputs, idempotency_key, depth, policies, policy_timer, last_seq, team_ids, last_execution_at, agent_profile_id, invoked_by, agent_team_id)
       SELECT x.id, x.user_id, 'queued', x.run_context, x.plan, x.inputs, x.idempotency_key, 0, x.policies,
              now() + (x.policy_timeout_ms * interval '1 millisecond'), 1, ARRAY(SELECT jsonb_array_elements_text(x.team_ids)),
              -- {last_execution_date}: the start of the owner's last finished run of the same stored playbook.
              CASE WHEN x.source_id IS NULL THEN NULL ELSE (
                SELECT max(p.created_at) FROM runs p WHERE p.user_id = x.user_id AND p.plan->'provenance'->>'sourceId' = x.source_id AND p.status IN ('completed','failed','cancelled')
              ) END,
              x.agent_profile_id, x.invoked_by, x.agent_team_id
         FROM x
       ON CONFLICT DO NOTHING
       RETURNING id
     ), ns AS (
       INSERT INTO node_states (run_id, node_id, status)
       SELECT n.run_id, n.node_id, 'pending' FROM unnest($12::uuid[], $13::text[]) AS n(run_id, node_id) WHERE n.run_id IN (SELECT id FROM ins)
     ), pv AS (
       INSERT INTO plan_versions (run_id, version, plan, source) SELECT x.id, 1, x.plan, 'start' FROM x WHERE x.id IN (SELECT id FROM ins)
     ), ev AS (
       INSERT INTO run_events (run_id, seq, type, node_id, payload, created_at) SELECT x.id, 1, 'start', NULL, x.start_payload, $14::timestamptz FROM x WHERE x.id IN (SELECT id FROM ins)
     )
     SELECT id::text AS id FROM ins`,
    [
      runs.map((r) => r.id),
      runs.map((r) => r.userId),
      runs.map((r) => r.runContext),
      runs.map((r) => JSON.stringify(r.plan)),
      runs.map((r) => JSON.stringify(r.inputs)),
      runs.map((r) => r.idempotencyKey),
      runs.map((r) => (r.policies?.length ? JSON.stringify(r.policies) : null)),
      runs.map((r) => r.policyTimeoutMs ?? null),
      runs.map((r) => JSON.stringify([...new Set(r.teamIds ?? [])])),
      runs.map((r) => (r.plan.provenance?.frontEnd === 'playbook' ? (r.plan.provenance.sourceId ?? null) : null)),
      starts.map((s) => JSON.stringify(s)),
      nodes.map(([runId]) => runId),
      nodes.map(([, nodeId]) => nodeId),
      timestamp,
      // An agent schedule's run answers for the profile (as a chat run does): the planner journals it when it ends.
      runs.map((r) => r.agent?.profileId ?? null),
      runs.map((r) => (r.agent ? r.agent.invokedBy : null)),
      runs.map((r) => r.agent?.teamId || null),
    ],
  );
  const created = new Set(rows.map((r) => r.id));
  for (const [i, r] of runs.entries()) {
    if (!created.has(r.id)) continue;
    emit(
      { subject: subjects.run(r.id, 'start'), payload: { runId: r.id, seq: 1, type: 'start', timestamp, payload: starts[i] }, msgId: `run:${r.id}:1` },
      { subject: subjects.runWork(r.id), payload: { runId: r.id }, msgId: `work:${r.id}:start` },
    );
  }
  return [...created];
}
