/** Domain run ⇄ wire messages. */
import { orchestrator } from '@af/contracts';
import { isoTimestamp } from '../domain/frame-time.js';
import type { PlanGraph } from '@af/plan';
import type { NodeState, NodeStatus, Run, RunFrame, RunStatus, RunView, TaskStatus } from '../domain/run-state.js';

const RUN_STATUS: Record<RunStatus, orchestrator.RunStatus> = {
  queued: orchestrator.RunStatus.RUN_STATUS_QUEUED,
  running: orchestrator.RunStatus.RUN_STATUS_RUNNING,
  completed: orchestrator.RunStatus.RUN_STATUS_COMPLETED,
  failed: orchestrator.RunStatus.RUN_STATUS_FAILED,
  cancelled: orchestrator.RunStatus.RUN_STATUS_CANCELLED,
  paused: orchestrator.RunStatus.RUN_STATUS_PAUSED,
  waiting: orchestrator.RunStatus.RUN_STATUS_WAITING,
};

/** Wire status → domain name (for filters). */
export function runStatusName(status: orchestrator.RunStatus): string {
  const found = Object.entries(RUN_STATUS).find(([, v]) => v === status);
  return found ? found[0] : `unknown(${status})`;
}

const TASK_STATUS: Record<TaskStatus, orchestrator.TaskStatus> = {
  complete: orchestrator.TaskStatus.TASK_STATUS_COMPLETE,
  partial: orchestrator.TaskStatus.TASK_STATUS_PARTIAL,
  error: orchestrator.TaskStatus.TASK_STATUS_ERROR,
  awaiting_approval: orchestrator.TaskStatus.TASK_STATUS_AWAITING_APPROVAL,
};

/** Wire task status → domain name (for filters; UNSPECIFIED is no task status and is refused). */
export function taskStatusName(status: orchestrator.TaskStatus): string {
  const found = Object.entries(TASK_STATUS).find(([, v]) => v === status);
  return found ? found[0] : status === orchestrator.TaskStatus.TASK_STATUS_UNSPECIFIED ? 'unspecified' : `unknown(${status})`;
}

/** The agent fields of a wire run (empty for runs that are not an agent's). */
function agentFields(run: Run): Pick<orchestrator.Run, 'agentProfileId' | 'invokedBy' | 'teamId' | 'connectorsCalled' | 'entitiesDiscovered' | 'outputsProduced'> {
  return {
    agentProfileId: run.agent?.profileId ?? '',
    invokedBy: run.agent?.invokedBy ?? '',
    teamId: run.agent?.teamId ?? '',
    connectorsCalled: (run.agentFacts?.connectorsCalled ?? []) as unknown as Array<Record<string, unknown>>,
    entitiesDiscovered: run.agentFacts?.entitiesDiscovered ?? 0,
    outputsProduced: run.agentFacts?.outputsProduced ?? [],
  };
}

/** The task outcome fields of a wire run. */
function outcomeFields(run: Run): Pick<orchestrator.Run, 'taskStatus' | 'stepsCompleted' | 'stepsFailed' | 'stepsSkipped' | 'errorSummary'> {
  return {
    taskStatus: run.taskStatus ? TASK_STATUS[run.taskStatus] : orchestrator.TaskStatus.TASK_STATUS_UNSPECIFIED,
    stepsCompleted: run.stepsCompleted ?? 0,
    stepsFailed: run.stepsFailed ?? 0,
    stepsSkipped: run.stepsSkipped ?? 0,
    errorSummary: run.errorSummary ?? '',
  };
}

const NODE_STATUS: Record<NodeStatus, orchestrator.NodeStatus> = {
  pending: orchestrator.NodeStatus.NODE_STATUS_PENDING,
  running: orchestrator.NodeStatus.NODE_STATUS_RUNNING,
  completed: orchestrator.NodeStatus.NODE_STATUS_COMPLETED,
  failed: orchestrator.NodeStatus.NODE_STATUS_FAILED,
  skipped: orchestrator.NodeStatus.NODE_STATUS_SKIPPED,
  cancelled: orchestrator.NodeStatus.NODE_STATUS_CANCELLED,
  waiting: orchestrator.NodeStatus.NODE_STATUS_WAITING,
};

export function toWireRun(run: Run | RunView): orchestrator.Run {
  const view = 'nodes' in run ? run : undefined;
  const outputKeys = new Map(run.plan.nodes.map((n) => [n.id, n.outputKey ?? n.id]));
  const planNodes = new Map(run.plan.nodes.map((n) => [n.id, n]));
  const byId = view ? outputsById(view) : new Map<string, unknown>();
  return {
    id: run.id,
    status: RUN_STATUS[run.status],
    userId: run.userId,
    runContext: run.runContext,
    planVersion: run.planVersion,
    nodes: (view?.nodes ?? []).map((n) => ({
      ...toWireNode(n, outputKeys.get(n.nodeId) ?? n.nodeId, byId.has(n.nodeId) ? JSON.stringify(byId.get(n.nodeId)) : ''),
      kind: planNodes.get(n.nodeId)?.kind ?? '',
      action: planNodes.get(n.nodeId)?.action ?? '',
    })),
    outputs: view?.outputs ?? {},
    error: run.error ?? '',
    createdAt: run.createdAt.toISOString(),
    updatedAt: run.updatedAt.toISOString(),
    inputs: run.inputs,
    parentRunId: run.parentRunId ?? '',
    parentNodeId: run.parentNodeId ?? '',
    iterations: (view?.iterations ?? []).map((n) => toWireNode(n, n.nodeId, view?.instanceOutputs?.[n.nodeId] !== undefined ? JSON.stringify(view.instanceOutputs[n.nodeId]) : '')),
    goalConditionResults: (run.goalConditionResults ?? []) as Array<Record<string, unknown>>,
    planVersions: (view?.planVersions ?? []).map((v) => ({
      version: v.version,
      createdAt: v.createdAt.toISOString(),
      source: v.source,
      policyId: v.policyId ?? '',
      rationale: v.rationale ?? '',
    })),
    policyFirings: (view?.policyFirings ?? []).map((f) => ({
      key: f.key,
      policyId: f.policyId,
      trigger: f.trigger,
      action: f.action as unknown as Record<string, unknown>,
      status: f.status,
      firedAt: f.createdAt.toISOString(),
    })),
    policyGates: (view?.policyGates ?? []).map((n) => toWireNode(n, n.nodeId, '')),
    ...outcomeFields(run),
    ...agentFields(run),
    plan: wirePlan(run.plan),
  };
}

/**
 * The current plan as a graph: top-level steps in plan order and the edges
 * between them (dependencies, fallbacks, route branches), as the playbook
 * graph route draws them.
 */
export function wirePlan(plan: PlanGraph): orchestrator.RunPlan {
  const edges: orchestrator.RunPlanEdge[] = [];
  for (const n of plan.nodes) {
    for (const d of n.dependsOn) edges.push({ from: d, to: n.id, kind: 'depends_on' });
    for (const f of n.errorPolicy?.fallback ?? []) edges.push({ from: n.id, to: f, kind: 'fallback' });
    for (const t of [...(n.routes ?? []).flatMap((r) => r.to), ...(n.elseTo ?? [])]) edges.push({ from: n.id, to: t, kind: 'route' });
  }
  return { nodes: plan.nodes.map((n) => ({ id: n.id, kind: n.kind, action: n.action ?? '' })), edges };
}

/** A run in a list: no nodes, outputs or inputs (GetRun has them; any of them may be large). */
export function toWireRunSummary(run: Run): orchestrator.Run {
  return {
    id: run.id,
    status: RUN_STATUS[run.status],
    userId: run.userId,
    runContext: run.runContext,
    planVersion: run.planVersion,
    nodes: [],
    outputs: {},
    error: run.error ?? '',
    createdAt: run.createdAt.toISOString(),
    updatedAt: run.updatedAt.toISOString(),
    inputs: {},
    parentRunId: run.parentRunId ?? '',
    parentNodeId: run.parentNodeId ?? '',
    iterations: [],
    goalConditionResults: (run.goalConditionResults ?? []) as Array<Record<string, unknown>>,
    planVersions: [],
    policyFirings: [],
    policyGates: [],
    ...outcomeFields(run),
    ...agentFields(run),
    plan: undefined,
  };
}

function toWireNode(n: NodeState, outputKey: string, outputJson: string): orchestrator.NodeState {
  return {
    nodeId: n.nodeId,
    status: NODE_STATUS[n.status],
    attempt: n.attempt,
    outputJson,
    error: n.error ?? '',
    startedAt: n.startedAt?.toISOString() ?? '',
    finishedAt: n.finishedAt?.toISOString() ?? '',
    outputKey,
    waitUntil: n.waitUntil?.toISOString() ?? '',
    skipReason: n.skipReason ?? '',
    childRunId: n.childRunId ?? '',
    kind: '',
    action: '',
  };
}

function outputsById(view: RunView): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const node of view.plan.nodes) {
    const key = node.outputKey ?? node.id;
    if (key in view.outputs) out.set(node.id, view.outputs[key]);
  }
  return out;
}

export function toWireEvent(frame: RunFrame): import('@af/contracts').orchestratorEvents.RunEvent {
  return {
    runId: frame.runId,
    seq: String(frame.seq),
    type: frame.type,
    // Live frames come through the outbox with a PostgreSQL-rendered time: always ISO 8601 on the wire.
    timestamp: isoTimestamp(frame.timestamp),
    nodeId: frame.nodeId ?? '',
    payload: frame.payload,
  };
}
