/** Answers of the run routes (/api/v1/runs, /api/agent-factory/executions) and the SSE frames of a run. */
import { z } from 'zod';
import { component, JsonObject, nullableTimestamp, timestamp } from './common.js';

export const RUN_STATUSES = ['unspecified', 'queued', 'running', 'completed', 'failed', 'cancelled', 'paused', 'waiting'] as const;
export const NODE_STATUSES = ['unspecified', 'pending', 'running', 'completed', 'failed', 'skipped', 'cancelled', 'waiting'] as const;
export const TASK_STATUSES = ['complete', 'partial', 'error', 'awaiting_approval'] as const;

export const NodeState = component(
  'NodeState',
  z.strictObject({
    node_id: z.string(),
    output_key: z.string(),
    status: z.enum(NODE_STATUSES),
    attempt: z.number().int(),
    output: z.unknown().meta({ description: 'The node\'s output (any JSON value), null before it completes' }),
    error: z.string().nullable(),
    started_at: nullableTimestamp,
    finished_at: nullableTimestamp,
    wait_until: nullableTimestamp.meta({ description: 'When a waiting node\'s timer fires (delay end or approval timeout)' }),
    skip_reason: z.string().nullable().meta({ description: 'condition_false, rejected, timed_out, upstream_failed, dry_run, …' }),
    child_run_id: z.string().nullable().meta({ description: 'Subflow nodes: the child run they started' }),
  }),
  { description: 'One step of a run' },
);

const RunPlan = z
  .strictObject({
    nodes: z.array(z.strictObject({ id: z.string(), kind: z.string(), action: z.string().nullable() })).meta({ description: 'The current plan version\'s top-level steps, in plan order' }),
    edges: z
      .array(z.strictObject({ from: z.string(), to: z.string(), kind: z.enum(['depends_on', 'fallback', 'route']) }))
      .meta({ description: 'depends_on: `to` waits for `from`; fallback: `to` runs instead of a failed `from`; route: a branch of the route step `from`' }),
  })
  .meta({ description: 'The run\'s plan as a graph (the steps and edges of its current plan version)' });

const PlanVersion = z.strictObject({ version: z.number().int(), source: z.string(), policy_id: z.string().nullable(), rationale: z.string().nullable(), created_at: timestamp });

const runFields = {
  id: z.string(),
  status: z.enum(RUN_STATUSES),
  run_context: z.string(),
  plan_version: z.number().int(),
  error: z.string().nullable(),
  task_status: z.enum(TASK_STATUSES).nullable().meta({ description: 'What the run did, once known (null while it runs)' }),
  steps_completed: z.number().int(),
  steps_failed: z.number().int(),
  steps_skipped: z.number().int(),
  error_summary: z.string().nullable(),
  iterations: z.array(NodeState).meta({ description: 'Node instances inside map iterations (`<node>[<i>]`)' }),
  parent_run_id: z.string().nullable(),
  parent_node_id: z.string().nullable(),
  goal_condition_results: z.array(JsonObject),
  plan_versions: z.array(PlanVersion),
  policy_firings: z.array(JsonObject),
  policy_gates: z.array(NodeState),
  created_at: timestamp,
  updated_at: timestamp,
  // Agent runs (chat, POST /profiles/{id}/test); null / empty for other runs.
  agent_profile_id: z.string().nullable().optional().meta({ description: 'The agent profile the run answered for' }),
  invoked_by: z.string().nullable().optional().meta({ description: 'Who invoked the agent (its owner or a team member)' }),
  team_id: z.string().nullable().optional().meta({ description: 'The team the agent was shared through' }),
  connectors_called: z.array(JsonObject).optional().meta({ description: 'Connector endpoints its steps called: {connector, endpoint, node_id, status, results_count?}' }),
  entities_discovered: z.number().int().optional(),
  outputs_produced: z.array(JsonObject).optional().meta({ description: 'What it produced: {type, node_id, …ids}' }),
};

export const Run = component(
  'Run',
  z.strictObject({
    ...runFields,
    inputs: JsonObject,
    outputs: JsonObject.meta({ description: 'Final outputs keyed by each node\'s output_key' }),
    nodes: z.array(NodeState),
    plan: RunPlan,
  }),
  {
    description: 'A run with its node states and outputs',
    examples: [{
      id: '0b6f3c2e-8a57-4a57-9d0e-4f1e8f7f2a11', status: 'completed', run_context: 'interactive', plan_version: 1, inputs: { q: 'acme' }, outputs: { orgs: [{ name: 'Acme' }] }, error: null,
      task_status: 'complete', steps_completed: 1, steps_failed: 0, steps_skipped: 0, error_summary: null,
      nodes: [{ node_id: 'find_org', output_key: 'orgs', status: 'completed', attempt: 1, output: [{ name: 'Acme' }], error: null, started_at: '2026-01-01T00:00:00.000Z', finished_at: '2026-01-01T00:00:01.000Z', wait_until: null, skip_reason: null, child_run_id: null }],
      iterations: [], parent_run_id: null, parent_node_id: null, goal_condition_results: [], plan_versions: [{ version: 1, source: 'start', policy_id: null, rationale: null, created_at: '2026-01-01T00:00:00.000Z' }],
      policy_firings: [], policy_gates: [], created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:01.000Z',
      plan: { nodes: [{ id: 'find_org', kind: 'tool', action: 'call_connector' }], edges: [] },
    }],
  },
);

/** A run in a list: without nodes, inputs and outputs (GET /runs/{id} has them). */
export const RunSummary = component('RunSummary', z.strictObject(runFields), { description: 'A run in a list (no node states, inputs or outputs)' });

export const RunAnswer = z.strictObject({ run: Run });
export const RunList = z.strictObject({ runs: z.array(RunSummary), next_page_token: z.string().nullable() });
export const ExecutionAnswer = z.strictObject({ execution: Run });

/**
 * SSE frames: `event: <type>`, `id: <seq>`, `data: <frame JSON>`. Known
 * types have a documented payload; `emit` policies add frames of their own type.
 */
const frame = <T extends string>(type: T, payload: z.ZodType, description: string) =>
  component(`Frame_${type}`, z.strictObject({
    type: z.literal(type),
    id: z.string().meta({ description: 'The frame\'s sequence number in the run (also the SSE id, for Last-Event-ID)' }),
    timestamp,
    payload,
    runId: z.string(),
    nodeId: z.string().optional(),
  }), { description });

const loose = (shape: z.ZodRawShape) => z.looseObject(shape);

export const RunFrame = component(
  'RunFrame',
  z.union([
    frame('start', loose({ planVersion: z.number().int().optional() }), 'The run started (flex run.stream: the gateway\'s own first frame, with runId and threadId)'),
    frame('node_start', loose({ attempt: z.number().int().optional() }), 'A step started (attempt n)'),
    frame('node_complete', loose({ status: z.string().optional(), output: z.unknown().optional(), error: z.string().optional(), skip_reason: z.string().optional() }), 'A step finished: completed, failed or skipped (dry runs: the would-be inputs)'),
    frame('log', loose({ event: z.string().optional() }), 'Something worth seeing: paused, awaiting_human, decision, map_truncated, policy_condition_error, …'),
    frame('hitl_request', loose({ requestId: z.string().optional() }), 'A person is asked to approve, answer or do a task'),
    frame('validation_error', loose({ scope: z.string().optional(), errors: z.array(z.unknown()).optional() }), 'An input or output failed its contract'),
    frame('plan_requested', loose({}), 'A replan was asked for (planner lifecycle)'),
    frame('plan_rejected', loose({}), 'The planner\'s draft was rejected (diagnostics in the payload)'),
    frame('plan_generated', loose({}), 'A plan was made (flex run.stream)'),
    frame('plan_updated', loose({ version: z.number().int().optional() }), 'The run moved to plan version N+1'),
    frame('policy_triggered', loose({}), 'A runtime policy fired'),
    frame('subflow_started', loose({}), 'A subflow step started its child run'),
    frame('rollback_started', loose({}), 'Compensation of completed steps began'),
    frame('node_rolled_back', loose({ ok: z.boolean().optional() }), 'One step was compensated'),
    frame('rollback_complete', loose({}), 'Compensation finished'),
    frame('complete', loose({ status: z.string(), error: z.string().optional(), task_status: z.string().optional(), durationMs: z.number().optional(), activeMs: z.number().optional() }), 'The run ended; the stream ends after this frame'),
    component('Frame_custom', z.strictObject({ type: z.string(), id: z.string(), timestamp, payload: JsonObject, runId: z.string().optional(), nodeId: z.string().optional() }), { description: 'A frame of another type (e.g. an `emit` policy\'s event)' }),
  ]),
  { description: 'One Server-Sent Event\'s data: {type, id, timestamp, payload, runId, nodeId?}' },
);
