/**
 * `capability` nodes (flex spec §5.6–§5.8): an AI agent that registered the
 * node's capability with an `endpoint` does the work over
 * `agentfactory.agent.v1.CapabilityAgentService/Invoke`.
 *
 * 1. The capability is looked up in the planner's registry (GetCapability);
 *    its active instances with an endpoint are ranked (scope first when the
 *    node names one, `scope_mode: require` to serve only from that scope).
 *    A capability without one hands over to the alternates the node lists
 *    (`params.alternates` / `params.flex.alternates`).
 * 2. The inputs (without `hitlClarifications`, which travel as
 *    `clarifications`) are checked against the node's compiled input schema
 *    (else the capability's) before any call: INVALID_ARGUMENT naming each
 *    field by JSON pointer (`inputs/post_context/type`), with a
 *    `validation_error` frame `{scope: capability_input, errors}`.
 * 3. Invoke carries the key `runId:nodeId:attempt` (the same on a replay, so
 *    the agent answers from its record instead of working twice) and the
 *    time left of the node timeout as its deadline. An instance that is
 *    UNAVAILABLE fails over to the next instance, then the next candidate;
 *    when none answers the node fails UNAVAILABLE (retryable) and its error
 *    policy (retries, fallback nodes) applies.
 * 4. The answer is checked against the node's output schema (else the
 *    capability's): a violation is INVALID_ARGUMENT (not retried) with a
 *    `validation_error` frame `{scope: capability_output, errors}`. An agent
 *    may ask a clarification instead (`clarify`) when the node allows it.
 *
 * The node completes with the agent's output; its `node_complete` frame
 * records which capability and instance answered (`dispatch`).
 */
import { AppError, type ErrorCode } from '@af/service-kit';
import {
  contractViolations,
  dispatchCandidates,
  dispatchScope,
  nodeFacets,
  nodeInstruction,
  rankInstances,
  unavailability,
  type CapabilitySnapshot,
  type ContractViolation,
  type InstanceSnapshot,
  type Unavailable,
} from '../../domain/capability-dispatch.js';
import type { ClarificationEntry } from '../../domain/human-request.js';
import { Completed, type NodeContext, type NodeExecutor } from '../../domain/node-executor.js';

/** Whom the registry is asked as: the run's owner and the teams it started with. */
export interface RunPrincipal {
  userId: string;
  teamIds: readonly string[];
}

/** The planner's capability registry, read-only. */
export interface CapabilityDirectory {
  /**
   * The capability as `principal` resolves it now (its own, its teams', the
   * shared catalog's); undefined when the principal can see none by that id.
   */
  get(capabilityId: string, timeoutMs: number, principal: RunPrincipal): Promise<CapabilitySnapshot | undefined>;
}

/** What an agent gets (agentfactory.agent.v1.InvokeRequest). */
export interface AgentCall {
  capabilityId: string;
  instanceId: string;
  runId: string;
  nodeId: string;
  attempt: number;
  idempotencyKey: string;
  inputs: Record<string, unknown>;
  instruction: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  timeoutMs: number;
  clarifications: Array<{ nodeId: string; capabilityId: string; questionId: string; question: string; answer: string; createdAt: string; answeredAt: string }>;
  principal: { userId: string; teamIds: string[] };
  inputFacets: string[];
  outputFacets: string[];
  scope: string;
  allowClarify: boolean;
}

/** What an agent answers (agentfactory.agent.v1.InvokeResponse). */
export interface AgentAnswer {
  output: Record<string, unknown> | null;
  clarify: { question: string; questionId: string } | null;
  replayed: boolean;
}

/** Calls agents by address; failures are AppErrors with the gRPC status as code. */
export interface CapabilityAgents {
  invoke(endpoint: string, call: AgentCall, options: { timeoutMs: number; signal: AbortSignal }): Promise<AgentAnswer>;
}

export interface CapabilityExecutorDeps {
  /** Undefined without PLANNER_URL: capability nodes then fail, naming the variable. */
  directory: CapabilityDirectory | undefined;
  agents: CapabilityAgents;
  /** Records a frame on the run (the node holds its lease), e.g. `validation_error`. */
  frame?: (ctx: NodeContext, frame: { type: string; payload: Record<string, unknown> }) => Promise<void>;
  /** Longest wait for the registry per lookup (default 10 s; never past the node timeout). */
  registryTimeoutMs?: number;
  /** Told how long each capability node took and how it ended (the seed's `flex.node.duration_ms`). */
  observe?: (capabilityId: string, outcome: 'completed' | 'failed', ms: number) => void;
}

interface Tried {
  capabilityId: string;
  field: string;
  instanceId: string;
  code: ErrorCode;
  error: string;
}

export function capabilityExecutor(deps: CapabilityExecutorDeps): NodeExecutor {
  const run = dispatchCapability(deps);
  if (!deps.observe) return run;
  const observe = deps.observe;
  return async (ctx) => {
    const started = performance.now();
    const capabilityId = ctx.node.capabilityId ?? 'unknown';
    try {
      const out = await run(ctx);
      observe(capabilityId, 'completed', performance.now() - started);
      return out;
    } catch (err) {
      observe(capabilityId, 'failed', performance.now() - started);
      throw err;
    }
  };
}

function dispatchCapability(deps: CapabilityExecutorDeps): NodeExecutor {
  return async (ctx) => {
    const node = ctx.node;
    const candidates = dispatchCandidates(node, ctx.params);
    if (!candidates.length) {
      throw new AppError('INVALID_ARGUMENT', `node ${ctx.instanceId}: a capability node needs a capabilityId (the registered capability that does its work)`, {
        violations: [{ field: 'capabilityId', reason: 'is required for capability nodes' }],
        retryable: false,
      });
    }
    if (!deps.directory) {
      throw new AppError('FAILED_PRECONDITION', `node ${ctx.instanceId}: capability '${candidates[0]!.capabilityId}' cannot be dispatched: PLANNER_URL (the capability registry) is not configured for the orchestrator`, {
        retryable: false,
      });
    }
    const { hitlClarifications, ...inputs } = ctx.inputs;
    const deadline = Date.now() + ctx.timeoutMs;
    const left = () => deadline - Date.now();
    const scope = dispatchScope(ctx.params);
    // The node's own contract is known before any call: check the inputs first.
    if (node.inputSchema) await checkContract(ctx, deps, node.inputSchema, inputs, 'inputs', candidates[0]!.capabilityId);

    const unavailable: Unavailable[] = [];
    const tried: Tried[] = [];
    for (const candidate of candidates) {
      // As the run's owner: a run only ever dispatches to capabilities its owner may use.
      const snapshot = await deps.directory.get(candidate.capabilityId, Math.max(1, Math.min(left(), deps.registryTimeoutMs ?? 10_000)), { userId: ctx.userId, teamIds: ctx.teamIds ?? [] });
      const why = unavailability(candidate, snapshot, scope);
      if (why || !snapshot) {
        unavailable.push(why!);
        continue;
      }
      if (!node.inputSchema) await checkContract(ctx, deps, nonEmpty(snapshot.inputSchema), inputs, 'inputs', snapshot.capabilityId);
      for (const instance of rankInstances(snapshot, scope)) {
        if (left() <= 0) throw timedOut(ctx, tried);
        const call = agentCall(ctx, snapshot, instance, inputs, hitlClarifications, scope.scope);
        let answer: AgentAnswer;
        try {
          answer = await deps.agents.invoke(instance.endpoint, call, { timeoutMs: left(), signal: ctx.signal });
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          const failure = agentFailure(ctx, snapshot.capabilityId, instance, err);
          // Another instance or an alternate may serve while this one is down.
          if (failure.code !== 'UNAVAILABLE') throw failure;
          tried.push({ capabilityId: snapshot.capabilityId, field: candidate.field, instanceId: instance.instanceId, code: failure.code, error: failure.message });
          continue;
        }
        return answered(ctx, deps, snapshot, instance, answer, tried);
      }
    }
    throw noInstance(ctx, unavailable, tried);
  };
}

function nonEmpty(schema: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return schema && Object.keys(schema).length ? schema : undefined;
}

function agentCall(ctx: NodeContext, c: CapabilitySnapshot, instance: InstanceSnapshot, inputs: Record<string, unknown>, clarifications: unknown, scope: string | undefined): AgentCall {
  const facets = nodeFacets(ctx.params);
  return {
    capabilityId: c.capabilityId,
    instanceId: instance.instanceId,
    runId: ctx.runId,
    nodeId: ctx.instanceId,
    attempt: ctx.attempt,
    idempotencyKey: ctx.idempotencyKey,
    inputs,
    instruction: nodeInstruction(ctx.node, ctx.params),
    inputSchema: ctx.node.inputSchema ?? nonEmpty(c.inputSchema) ?? {},
    outputSchema: ctx.node.outputSchema ?? nonEmpty(c.outputSchema) ?? {},
    timeoutMs: Math.max(1, Math.min(2_147_483_647, ctx.timeoutMs)),
    clarifications: (Array.isArray(clarifications) ? (clarifications as ClarificationEntry[]) : []).map((e) => ({
      nodeId: e.nodeId,
      capabilityId: e.capabilityId ?? '',
      questionId: e.questionId,
      question: e.question,
      answer: e.answer ?? '',
      createdAt: e.createdAt,
      answeredAt: e.answeredAt ?? '',
    })),
    principal: { userId: ctx.userId, teamIds: [] },
    inputFacets: facets.input,
    outputFacets: facets.output,
    scope: scope ?? '',
    allowClarify: ctx.params.allow_clarify === true,
  };
}

async function answered(ctx: NodeContext, deps: CapabilityExecutorDeps, c: CapabilitySnapshot, instance: InstanceSnapshot, answer: AgentAnswer, tried: Tried[]): Promise<unknown> {
  const who = `capability '${c.capabilityId}' (instance ${instance.instanceId})`;
  if (answer.clarify && answer.clarify.question.trim()) {
    if (ctx.params.allow_clarify !== true) {
      throw new AppError('FAILED_PRECONDITION', `node ${ctx.instanceId}: ${who} asked a clarification, but the node does not allow clarifications (params.allow_clarify)`, { retryable: false });
    }
    // The clarifying wrapper opens the question and runs the node again with the answer.
    return { hitl_clarify: { question: answer.clarify.question, ...(answer.clarify.questionId ? { questionId: answer.clarify.questionId } : {}) } };
  }
  if (!answer.output) {
    throw new AppError('INVALID_ARGUMENT', `node ${ctx.instanceId}: ${who} answered without an output`, {
      violations: [{ field: 'output', reason: 'is missing from the agent answer', code: 'validation_error' }],
      retryable: false,
    });
  }
  const schema = ctx.node.outputSchema ?? nonEmpty(c.outputSchema);
  await checkContract(ctx, deps, schema, answer.output, 'output', c.capabilityId, instance.instanceId);
  const dispatch = {
    capabilityId: c.capabilityId,
    instanceId: instance.instanceId,
    ...(answer.replayed ? { replayed: true } : {}),
    ...(tried.length ? { failedOver: tried.map(({ capabilityId, instanceId, code }) => ({ capabilityId, instanceId, code })) } : {}),
  };
  return new Completed(answer.output, { dispatch });
}

/** Checks a value against a contract; a violation emits `validation_error` and fails the node (not retried). */
async function checkContract(
  ctx: NodeContext,
  deps: CapabilityExecutorDeps,
  schema: Record<string, unknown> | undefined,
  value: unknown,
  what: 'inputs' | 'output',
  capabilityId: string,
  instanceId?: string,
): Promise<void> {
  let violations: ContractViolation[];
  try {
    violations = contractViolations(schema, value, what);
  } catch (err) {
    const field = what === 'inputs' ? 'inputSchema' : 'outputSchema';
    throw new AppError('INVALID_ARGUMENT', `node ${ctx.instanceId}: ${field} is not a valid JSON Schema: ${(err as Error).message}`, {
      violations: [{ field, reason: (err as Error).message, code: 'invalid_schema' }],
      retryable: false,
    });
  }
  if (!violations.length) return;
  const scope = what === 'inputs' ? 'capability_input' : 'capability_output';
  await deps.frame?.(ctx, {
    type: 'validation_error',
    payload: {
      scope,
      nodeId: ctx.instanceId,
      capabilityId,
      ...(instanceId ? { instanceId } : {}),
      errors: violations.map((v) => ({ path: v.pointer || '/', keyword: v.keyword, message: v.reason })),
    },
  });
  const first = violations[0]!;
  const subject = what === 'inputs' ? `the inputs of capability '${capabilityId}' do not satisfy its input schema` : `the output of capability '${capabilityId}' does not satisfy the node's output schema`;
  throw new AppError('INVALID_ARGUMENT', `node ${ctx.instanceId}: ${subject}: ${first.field} ${first.reason}${violations.length > 1 ? ` (and ${violations.length - 1} more)` : ''}`, {
    violations: violations.map(({ field, reason, code }) => ({ field, reason, code })),
    retryable: false,
  });
}

/** An agent's failure in the node error policy's terms: what is worth retrying stays retryable, the rest does not. */
export function agentFailure(ctx: NodeContext, capabilityId: string, instance: InstanceSnapshot, err: unknown): AppError {
  const app = err instanceof AppError ? err : new AppError('INTERNAL', String((err as Error)?.message ?? err));
  const at = `node ${ctx.instanceId}: capability '${capabilityId}' (instance ${instance.instanceId} at ${instance.endpoint})`;
  const keep = { violations: app.violations, cause: err, ...(app.retryAfterMs !== undefined ? { retryAfterMs: app.retryAfterMs } : {}) };
  switch (app.code) {
    case 'UNAVAILABLE':
      return new AppError('UNAVAILABLE', `${at} is unavailable: ${app.message}`, { ...keep, retryable: true });
    case 'CANCELLED':
      return new AppError('UNAVAILABLE', `${at} cancelled the call: ${app.message}`, { ...keep, retryable: true });
    case 'DEADLINE_EXCEEDED':
      return new AppError('DEADLINE_EXCEEDED', `${at} did not answer within the node timeout (${ctx.timeoutMs} ms)`, { ...keep, retryable: true });
    case 'RESOURCE_EXHAUSTED':
    case 'ABORTED':
      return new AppError(app.code, `${at} is busy: ${app.message}`, { ...keep, retryable: true });
    case 'UNIMPLEMENTED':
      return new AppError('FAILED_PRECONDITION', `${at} does not serve agentfactory.agent.v1.CapabilityAgentService/Invoke: ${app.message}`, { ...keep, retryable: false });
    case 'INVALID_ARGUMENT':
      return new AppError('INVALID_ARGUMENT', `${at} refused the call: ${app.message}`, { ...keep, retryable: false });
    default:
      return new AppError(app.code, `${at} failed: ${app.message}`, { ...keep, retryable: false });
  }
}

function timedOut(ctx: NodeContext, tried: Tried[]): AppError {
  const before = tried.length ? ` (tried: ${tried.map((t) => `${t.capabilityId}/${t.instanceId} ${t.code}`).join(', ')})` : '';
  return new AppError('DEADLINE_EXCEEDED', `node ${ctx.instanceId}: the node timeout (${ctx.timeoutMs} ms) passed before an agent answered${before}`, { retryable: true });
}

/**
 * No candidate could take the call. Retryable (UNAVAILABLE) when an agent may
 * come back — an instance that failed or stopped heartbeating — otherwise the
 * plan or the registry must change (FAILED_PRECONDITION).
 */
function noInstance(ctx: NodeContext, unavailable: Unavailable[], tried: Tried[]): AppError {
  const reasons = [...unavailable.map((u) => u.reason), ...tried.map((t) => t.error)];
  const transient = tried.length > 0 || unavailable.some((u) => u.transient);
  // Nothing by those ids that the run's owner may use: NOT_FOUND (never someone else's capability).
  const notFound = !tried.length && unavailable.length > 0 && unavailable.every((u) => u.code === 'not_registered');
  const violations = [
    ...unavailable.map((u) => ({ field: u.field, reason: u.reason, code: u.code })),
    ...tried.map((t) => ({ field: t.field, reason: t.error, code: 'agent_unavailable' })),
  ];
  return new AppError(transient ? 'UNAVAILABLE' : notFound ? 'NOT_FOUND' : 'FAILED_PRECONDITION', `node ${ctx.instanceId}: no agent can run it: ${reasons.join('; ')}`, { violations, retryable: transient });
}
