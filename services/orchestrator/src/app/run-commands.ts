/**
 * The orchestrator's request-side use cases: start, read, cancel, list events.
 * Ownership is checked here: another user's run is "not found", never
 * "forbidden", so run ids do not leak.
 */
import { PlanGraphSchema, planSizeIssue, validatePlan, type PlanGraph, type PlanNode } from '@af/plan';
import { AppError, type FieldViolation } from '@af/service-kit';
import type { ActionCheck } from './action-availability.js';
import { RUN_STATUSES, TASK_STATUSES, type Run, type RunFrame, type RunStatus, type RunView, type TaskStatus } from '../domain/run-state.js';
import { locateNode, parseInstanceId } from '../domain/instance-id.js';
import { DEFAULT_RUN_INPUT_MAX_BYTES, oversize } from '../domain/payload-size.js';
import { parseGoalConditions, parseOutputContract } from '../domain/output-contract.js';
import { parseRuntimePolicies, type RuntimePolicy } from '../domain/runtime-policy.js';
import type { RunRepository, WaitingRow } from '../infra/run.repository.js';
import { decidePolicyGate, policyGateFor } from './policy-gate.js';
import type { ApprovalDecisions } from './approval-decisions.js';
import { assertRunnable, type RunCapabilities } from './run-start-checks.js';
import { decodePageToken, encodePageToken } from '../domain/page-token.js';

const RUN_CONTEXTS = ['interactive', 'background', 'scheduled', 'monitor'] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What RunRepository.create takes: a checked run, ready to be stored. */
export type CreateRunInput = Parameters<RunRepository['create']>[0];

export interface StartRunCommand {
  userId: string;
  /** The caller's teams: a node may open its decision only to teams among them (`params.team_ids`). */
  teamIds?: readonly string[];
  plan: unknown;
  inputs: Record<string, unknown>;
  runContext: string;
  idempotencyKey: string;
  /** OutputContract `{schema, …}` the final output must satisfy (absent: none). */
  outputContract?: Record<string, unknown> | undefined;
  /** Goal conditions evaluated on completion (empty: none). */
  goalCondition?: unknown[] | undefined;
  /** Runtime policies (flex spec §5.3 RuntimePolicy; empty: none). */
  policies?: unknown[] | undefined;
  /** The run's id when the caller derives it (schedule fires); with idempotencyKey, a retry finds the same run. */
  runId?: string | undefined;
  /** The agent the run answers for (profile id; who invoked it, default the run's user; the team it was shared through). */
  agent?: { profileId: string; invokedBy?: string; teamId?: string } | undefined;
}

export class RunCommands {
  constructor(
    private readonly repo: RunRepository,
    /** Approval nodes waiting on the approval service are decided there. */
    private readonly approvals?: ApprovalDecisions,
    private readonly limits: { runInputMaxBytes: number } = { runInputMaxBytes: DEFAULT_RUN_INPUT_MAX_BYTES },
    /** Refuses tool actions no service of this deployment serves (action-availability.ts); absent: not checked. */
    private readonly checkActions?: ActionCheck,
    /** Without a model, playbook runs with llm steps are refused at start. */
    private readonly capabilities: RunCapabilities = { hasModel: true },
  ) {}

  async start(cmd: StartRunCommand): Promise<Run> {
    const { run } = await this.repo.create(await this.prepare(cmd));
    return run;
  }

  /**
   * Every check of a start (limits, plan, run context, actions, contracts,
   * policies) and the record to create — without creating it (schedule
   * fires create their runs in batches: schedule-run-batch.ts).
   */
  async prepare(cmd: StartRunCommand): Promise<CreateRunInput> {
    requireUser(cmd.userId);
    // Before the plan is even parsed: an oversized run would be unreadable afterwards (GetRun, ListRuns).
    const tooLarge = oversize(cmd.inputs, this.limits.runInputMaxBytes, 'RUN_INPUT_MAX_BYTES');
    if (tooLarge) {
      throw new AppError('PAYLOAD_TOO_LARGE', `inputs ${tooLarge.reason}`, {
        violations: [{ field: 'inputs', reason: tooLarge.reason, code: 'payload_too_large' }],
      });
    }
    if (cmd.runId !== undefined && !UUID.test(cmd.runId)) throw AppError.invalid('run_id', 'must be a UUID');
    const plan = parsePlanCached(cmd.plan);
    const runContext = cmd.runContext || plan.runContext;
    if (!(RUN_CONTEXTS as readonly string[]).includes(runContext)) {
      throw AppError.invalid('run_context', `must be one of ${RUN_CONTEXTS.join(', ')}`);
    }
    assertRunnable(plan, cmd.inputs, this.capabilities);
    const violations: FieldViolation[] = teamViolations(plan.nodes, new Set(cmd.teamIds ?? []), 'plan.nodes');
    if (this.checkActions) violations.push(...(await this.checkActions(plan)));
    let outputContract: Record<string, unknown> | null = null;
    if (cmd.outputContract !== undefined && cmd.outputContract !== null) {
      const parsed = parseOutputContract(cmd.outputContract);
      if ('violations' in parsed) violations.push(...parsed.violations.map((v) => ({ ...v, code: 'invalid_output_contract' })));
      else outputContract = parsed.contract as unknown as Record<string, unknown>;
    }
    let goalCondition: unknown[] | null = null;
    if (cmd.goalCondition?.length) {
      const parsed = parseGoalConditions(cmd.goalCondition);
      if ('violations' in parsed) violations.push(...parsed.violations.map((v) => ({ ...v, code: 'invalid_goal_condition' })));
      else goalCondition = parsed.goals;
    }
    let policies: RuntimePolicy[] = [];
    if (cmd.policies?.length) {
      const parsed = parseRuntimePolicies(cmd.policies, plan);
      if ('violations' in parsed) violations.push(...parsed.violations);
      else policies = parsed.policies;
    }
    if (violations.length) {
      throw new AppError('INVALID_ARGUMENT', violations.map((v) => `${v.field}: ${v.reason}`).join('; '), { violations });
    }
    const timeouts = policies.flatMap((p) => (p.enabled && p.trigger.kind === 'onTimeout' ? [p.trigger.ms] : []));
    return {
      userId: cmd.userId,
      teamIds: cmd.teamIds ?? [],
      plan,
      inputs: cmd.inputs,
      runContext,
      idempotencyKey: cmd.idempotencyKey || null,
      outputContract,
      goalCondition,
      policies,
      policyTimeoutMs: timeouts.length ? Math.min(...timeouts) : null,
      ...(cmd.runId ? { id: cmd.runId } : {}),
      ...(cmd.agent?.profileId ? { agent: { profileId: cmd.agent.profileId, invokedBy: cmd.agent.invokedBy || cmd.userId, teamId: cmd.agent.teamId || null } } : {}),
    };
  }

  async get(userId: string, runId: string): Promise<RunView> {
    await this.owned(userId, runId);
    return (await this.repo.view(runId))!;
  }

  async cancel(userId: string, runId: string): Promise<RunView> {
    const run = await this.owned(userId, runId);
    const cancelled = await this.repo.cancel(runId);
    if (!cancelled) throw new AppError('FAILED_PRECONDITION', `run ${runId} is already ${run.status}`);
    return (await this.repo.view(runId))!;
  }

  async list(userId: string, statuses: string[], pageSize: number, pageToken: string, taskStatuses: string[] = [], agentProfileId = '', playbookId = ''): Promise<{ runs: Run[]; nextPageToken: string }> {
    requireUser(userId);
    for (const s of statuses) {
      if (!(RUN_STATUSES as readonly string[]).includes(s)) throw AppError.invalid('statuses', `unknown status ${s}`);
    }
    for (const s of taskStatuses) {
      if (!(TASK_STATUSES as readonly string[]).includes(s)) throw AppError.invalid('task_statuses', `unknown task status ${s} (one of ${TASK_STATUSES.join(', ')})`);
    }
    const size = pageSize === 0 ? 50 : pageSize;
    if (!Number.isInteger(size) || size < 1 || size > 200) throw AppError.invalid('page_size', 'must be between 1 and 200');
    const after = pageToken ? decodePageToken(pageToken) : null;
    if (agentProfileId.length > 200) throw AppError.invalid('agent_profile_id', 'is longer than 200 characters');
    if (playbookId.length > 200) throw AppError.invalid('playbook_id', 'is longer than 200 characters');
    const rows = await this.repo.list(userId, statuses as RunStatus[], size + 1, after, taskStatuses as TaskStatus[], agentProfileId, playbookId);
    const page = rows.slice(0, size);
    const last = page.at(-1);
    return { runs: page, nextPageToken: rows.length > size && last ? encodePageToken(last) : '' };
  }

  async pause(userId: string, runId: string): Promise<RunView> {
    const run = await this.owned(userId, runId);
    if (!(await this.repo.pause(runId, userId))) throw new AppError('FAILED_PRECONDITION', `run ${runId} is ${run.status}; only queued, running or waiting runs can be paused`);
    return (await this.repo.view(runId))!;
  }

  /**
   * Resume a paused run, and/or decide a waiting approval. Without a decision
   * the run must be paused; with one, the named node (or the only waiting
   * node) must be a waiting approval.
   */
  async resume(
    userId: string,
    runId: string,
    input: { nodeId: string; decision: 'approve' | 'reject' | null; instructions: string },
  ): Promise<RunView> {
    const run = await this.owned(userId, runId);
    // A decision on a runtime policy's hitl gate (policy-gate.ts) rather than on an approval node.
    const gate = input.decision ? await policyGateFor(this.repo, runId, input.nodeId) : null;
    if (gate) {
      await decidePolicyGate(this.repo, runId, run.status, gate, { decision: input.decision!, instructions: input.instructions, decidedBy: userId }, this.approvals);
      return (await this.repo.view(runId))!;
    }
    let decide: Parameters<RunRepository['resume']>[1] = null;
    let waitingRows: Map<string, WaitingRow> | undefined;
    if (input.decision) {
      // Waiting node instances (map iterations included), without the map nodes that only wait for their iterations.
      const kindOf = (id: string) => locateNode(run.plan.nodes, parseInstanceId(id)?.nodeId ?? id)?.node.kind;
      waitingRows = await this.repo.waitingStates(runId);
      const waiting = [...waitingRows.values()].filter((n) => kindOf(n.nodeId) !== 'map');
      const nodeId = input.nodeId || (waiting.length === 1 ? waiting[0]!.nodeId : '');
      if (!waiting.length) throw new AppError('FAILED_PRECONDITION', `no node of run ${runId} is waiting for a decision (run is ${run.status})`);
      if (!nodeId) throw AppError.invalid('node_id', `several nodes wait (${waiting.map((n) => n.nodeId).join(', ')}): name one`);
      const parsedId = parseInstanceId(nodeId);
      const located = parsedId ? locateNode(run.plan.nodes, parsedId.nodeId) : undefined;
      // A node inside a map body is named with one [index] per enclosing map.
      if (!located || located.maps.length !== parsedId!.indices.length) throw AppError.invalid('node_id', `run has no node ${nodeId}`);
      const node = located.node;
      if (node.kind !== 'approval') throw AppError.invalid('node_id', `node ${nodeId} is a ${node.kind} node; only approval nodes take a decision`);
      if (input.instructions.length > 10_000) throw AppError.invalid('instructions', 'is longer than 10000 characters');
      decide = { nodeId, decision: { decision: input.decision, instructions: input.instructions, decidedBy: userId, decidedAt: new Date().toISOString() } };
    } else if (input.nodeId || input.instructions) {
      throw AppError.invalid('decision', 'is required with node_id or instructions');
    }
    // The request the decided node waits for (read with the waiting states above).
    const requestId = decide && this.approvals ? (waitingRows?.get(decide.nodeId)?.approvalRequestId ?? null) : null;
    if (decide && requestId) {
      await this.approvals!.decide({ userId, requestId, decision: input.decision!, instructions: input.instructions, idempotencyKey: '' });
      return (await this.repo.view(runId))!;
    }
    const problem = await this.repo.resume(runId, decide);
    if (problem === 'not_resumable') {
      throw new AppError('FAILED_PRECONDITION', decide ? `run ${runId} is ${run.status} and takes no decisions` : `run ${runId} is ${run.status}, not paused`);
    }
    if (problem === 'node_not_waiting') throw new AppError('FAILED_PRECONDITION', `node ${decide!.nodeId} is not waiting for a decision`);
    return (await this.repo.view(runId))!;
  }

  async events(userId: string, runId: string, afterSeq: number): Promise<RunFrame[]> {
    await this.owned(userId, runId);
    if (!Number.isInteger(afterSeq) || afterSeq < 0) throw AppError.invalid('after_seq', 'must be a non-negative integer');
    return this.repo.events(runId, afterSeq);
  }

  private async owned(userId: string, runId: string): Promise<Run> {
    requireUser(userId);
    if (!UUID.test(runId)) throw AppError.notFound('run', runId);
    const run = await this.repo.get(runId);
    if (!run || run.userId !== userId) throw AppError.notFound('run', runId);
    return run;
  }
}



function requireUser(userId: string): void {
  if (!userId) throw new AppError('UNAUTHENTICATED', 'principal.user_id is required');
}

/** Names of the plan's required inputs that have no default and no value. */
export function missingInputs(plan: PlanGraph, inputs: Record<string, unknown>): string[] {
  return plan.inputs.filter((i) => i.required && i.default === undefined && inputs[i.name] === undefined).map((i) => i.name);
}

/** Plans parsed and validated lately, by their JSON text (the same playbook started again skips both). */
const PARSED_PLANS_KEPT = 128;
const parsedPlans = new Map<string, PlanGraph>();

/**
 * parsePlan, remembering the result for the same plan text: the plan is
 * started again and again (schedules, the same playbook for many users) and
 * parsing plus validation cost more than the run's own work. Cached plans
 * are deep-frozen (shared between runs; nothing may change them). Invalid
 * plans are not remembered.
 */
export function parsePlanCached(raw: unknown): PlanGraph {
  const key = JSON.stringify(raw ?? null);
  const hit = parsedPlans.get(key);
  if (hit) {
    // Most recently used last.
    parsedPlans.delete(key);
    parsedPlans.set(key, hit);
    return hit;
  }
  const plan = deepFreeze(parsePlan(raw));
  parsedPlans.set(key, plan);
  if (parsedPlans.size > PARSED_PLANS_KEPT) parsedPlans.delete(parsedPlans.keys().next().value!);
  return plan;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}

/**
 * A node (approval, human, …) may let members of `params.team_ids` decide;
 * only teams the run's owner belongs to may be named (issue 6: "a team the
 * agent is shared with") — else anyone could open a run's decisions to any
 * team. Map bodies included.
 */
export function teamViolations(nodes: readonly PlanNode[], mine: ReadonlySet<string>, path: string): FieldViolation[] {
  const out: FieldViolation[] = [];
  for (const node of nodes) {
    const teams = (node.params as Record<string, unknown> | undefined)?.team_ids;
    if (Array.isArray(teams)) {
      teams.forEach((t, i) => {
        if (typeof t !== 'string' || !mine.has(t)) {
          out.push({ field: `${path}.${node.id}.params.team_ids[${i}]`, reason: `you are not a member of team '${String(t)}': only your own teams may decide your runs`, code: 'not_team_member' });
        }
      });
    }
    if (node.body?.nodes) out.push(...teamViolations(node.body.nodes, mine, `${path}.${node.id}.body.nodes`));
  }
  return out;
}

/** The plan must parse as a PlanGraph and pass structural validation. */
export function parsePlan(raw: unknown): PlanGraph {
  // Counted before the schema: parsing and validation grow with the plan (PLAN_MAX_NODES).
  const tooMany = planSizeIssue(raw);
  if (tooMany) {
    throw new AppError('INVALID_ARGUMENT', `invalid plan: plan.${tooMany.field}: ${tooMany.message}`, {
      violations: [{ field: `plan.${tooMany.field}`, reason: tooMany.message, code: tooMany.code }],
    });
  }
  const parsed = PlanGraphSchema.safeParse(raw);
  if (!parsed.success) {
    const violations: FieldViolation[] = parsed.error.issues.map((i) => ({
      field: ['plan', ...i.path].join('.'),
      reason: i.message,
      code: 'invalid_plan',
    }));
    throw new AppError('INVALID_ARGUMENT', `invalid plan: ${violations.map((v) => `${v.field}: ${v.reason}`).join('; ')}`, {
      violations,
    });
  }
  const issues = validatePlan(parsed.data);
  if (issues.length) {
    throw new AppError('INVALID_ARGUMENT', `invalid plan: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`, {
      violations: issues.map((i) => ({ field: `plan.${i.field}`, reason: i.message, code: i.code })),
    });
  }
  return parsed.data;
}
