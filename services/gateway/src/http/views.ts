/** Wire messages → the JSON the SPA sees (snake_case, lowercase statuses; secrets never included). */
import { connector, orchestrator, planner } from '@af/contracts';
import type { z } from 'zod';
import type * as R from './responses/index.js';

/** RUN_STATUS_COMPLETED → completed, typed as the documented enum the caller answers with. */
const lower = <T extends string>(name: string, prefix: string) => name.replace(prefix, '').toLowerCase() as T;

function nodeView(n: orchestrator.NodeState): z.infer<typeof R.NodeState> {
  return {
    node_id: n.nodeId,
    output_key: n.outputKey,
    status: lower(orchestrator.nodeStatusToJSON(n.status), 'NODE_STATUS_'),
    attempt: n.attempt,
    output: n.outputJson ? JSON.parse(n.outputJson) : null,
    error: n.error || null,
    started_at: n.startedAt || null,
    finished_at: n.finishedAt || null,
    wait_until: n.waitUntil || null,
    skip_reason: n.skipReason || null,
    child_run_id: n.childRunId || null,
  };
}

export function runView(run: orchestrator.Run): z.infer<typeof R.Run> {
  return {
    id: run.id,
    status: lower(orchestrator.runStatusToJSON(run.status), 'RUN_STATUS_'),
    run_context: run.runContext,
    plan_version: run.planVersion,
    inputs: run.inputs ?? {},
    outputs: run.outputs ?? {},
    error: run.error || null,
    // What the run did (null while it is running): complete | partial | error | awaiting_approval.
    task_status: run.taskStatus ? lower<(typeof R.TASK_STATUSES)[number]>(orchestrator.taskStatusToJSON(run.taskStatus), 'TASK_STATUS_') : null,
    steps_completed: run.stepsCompleted,
    steps_failed: run.stepsFailed,
    steps_skipped: run.stepsSkipped,
    error_summary: run.errorSummary || null,
    nodes: run.nodes.map(nodeView),
    iterations: run.iterations.map(nodeView),
    parent_run_id: run.parentRunId || null,
    parent_node_id: run.parentNodeId || null,
    goal_condition_results: run.goalConditionResults,
    plan_versions: run.planVersions.map((v) => ({ version: v.version, source: v.source, policy_id: v.policyId || null, rationale: v.rationale || null, created_at: v.createdAt })),
    policy_firings: run.policyFirings,
    policy_gates: run.policyGates.map(nodeView),
    created_at: run.createdAt,
    updated_at: run.updatedAt,
    agent_profile_id: run.agentProfileId || null,
    invoked_by: run.invokedBy || null,
    team_id: run.teamId || null,
    connectors_called: run.connectorsCalled ?? [],
    entities_discovered: run.entitiesDiscovered ?? 0,
    outputs_produced: run.outputsProduced ?? [],
    plan: { nodes: (run.plan?.nodes ?? []).map((n) => ({ id: n.id, kind: n.kind, action: n.action || null })), edges: (run.plan?.edges ?? []) as z.infer<typeof R.Run>['plan']['edges'] },
  };
}

export function connectorView(c: connector.Connector): z.infer<typeof R.Connector> {
  return {
    id: c.id,
    name: c.name,
    type: c.type,
    version: c.version,
    description: c.description,
    definition: c.definition ?? {},
    credential_names: c.credentialNames,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

export function playbookView(p: planner.Playbook): z.infer<typeof R.Playbook> {
  return { id: p.id, name: p.name, version: p.version, revision: p.revision, yaml: p.yaml, created_at: p.createdAt, updated_at: p.updatedAt };
}

/** An action contract, and whether this deployment can run it (`available`; `served_by` the serving service, `owner` the one that owns it). */
export function actionView(a: planner.ActionContract): z.infer<typeof R.ActionContract> {
  return {
    name: a.name,
    description: a.description,
    category: a.category,
    step_type: a.stepType,
    ...(a.contract ?? {}),
    available: a.available,
    ...(a.servedBy ? { served_by: a.servedBy } : {}),
    ...(a.owner ? { owner: a.owner } : {}),
  };
}

/** A run in a list: no node states, outputs or inputs (GET /runs/:id has them; any of them may be large). */
export function runSummaryView(run: orchestrator.Run): z.infer<typeof R.RunSummary> {
  const { nodes: _nodes, outputs: _outputs, inputs: _inputs, plan: _plan, ...rest } = runView(run);
  return rest;
}

export function issueView(i: connector.DefinitionIssue): z.infer<typeof R.DefinitionIssue> {
  return { field: i.field, reason: i.reason, ...(i.line ? { line: i.line, column: i.column } : {}) };
}

export function bindingView(b: connector.Binding): z.infer<typeof R.Binding> {
  return {
    agent_profile_id: b.agentProfileId,
    connector_id: b.connectorId,
    config_overrides: b.configOverrides ?? {},
    allowed_endpoints: b.allowedEndpoints,
    rate_limit_per_minute: b.rateLimitPerMinute,
    status: b.status,
    status_reason: b.statusReason,
    credential_names: b.credentialNames,
    updated_at: b.updatedAt,
  };
}

export function templateView(t: connector.Template): z.infer<typeof R.ConnectorTemplate> {
  return {
    id: t.id,
    name: t.name,
    type: t.type,
    description: t.description,
    category: t.category,
    tags: t.tags,
    auth_fields: t.authFields,
    is_template: true,
    definition: t.definition ?? {},
  };
}

export function pluginView(p: connector.Plugin): z.infer<typeof R.Plugin> {
  return {
    name: p.name,
    version: p.version,
    description: p.description,
    connection_type: p.connectionType,
    required_config: p.requiredConfig,
    tool_pack_name: p.toolPackName,
    status: p.status,
    last_heartbeat_at: p.lastHeartbeatAt,
    enabled: p.enabledForUser,
    tools: p.tools.map(toolContractView),
  };
}

export function toolContractView(t: connector.ToolContract): z.infer<typeof R.ToolContract> {
  return {
    name: t.name,
    description: t.description,
    input_schema: t.inputSchema ?? {},
    output_schema: t.outputSchema ?? {},
    requires: t.requires,
    side_effecting: t.sideEffecting,
  };
}
