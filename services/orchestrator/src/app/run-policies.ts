/**
 * Runtime policies while a run executes (flex spec §5.3, §5.10): the engine
 * calls in at its checkpoints — the run starts, a node completed, a policy
 * timer is due, the output contract failed — and this decides what fires,
 * records each firing durably with its `policy_triggered` frame (so a resumed
 * run never fires it again) and applies the action:
 *
 * - `emit`: its custom frame, in the same statement; the run goes on.
 * - `hitl`: a gate opens at once (policy-gate.ts: a `policy_hitl` request in
 *   the approval service when one is configured); no new node starts until a
 *   person decides — approve runs `approveAction` (default: go on), reject
 *   (or a request that timed out or expired) runs `rejectAction` (default:
 *   fail).
 * - `fail`, `pause`, `replan`: recorded pending; no new node starts, and once
 *   nothing is in flight (a safe point) the engine applies it. A replan asks
 *   the plan source for plan version N+1 with completed nodes locked — the
 *   planner's PlanTask for a planner-made (flex) plan, a stored playbook
 *   compiled again for a playbook run; without one the run pauses with
 *   `plan_rejected` until ReplanRun brings a plan.
 */
import type { PlanGraph } from '@af/plan';
import { AppError, type Logger } from '@af/service-kit';
import {
  conditionHolds,
  firingKey,
  followUpKey,
  gateId,
  isGateId,
  isHalting,
  keyOfGate,
  metricBelow,
  nextPolicyDeadline,
  policyVars,
  selectorMatches,
  triggeredPayload,
  validationSubjects,
  type PolicyFacts,
} from '../domain/policy-evaluation.js';
import type { RequestView } from '../domain/human-request.js';
import type { NodeState, PolicyFiring, Run } from '../domain/run-state.js';
import type { PolicyAction, RuntimePolicy } from '../domain/runtime-policy.js';
import { runInputsWithDefaults } from '../domain/scope.js';
import type { PolicyStore } from '../infra/policy.store.js';
import type { Frame, RunExecutionStore } from '../infra/run-execution.store.js';
import { finalOutput, type RunRepository } from '../infra/run.repository.js';
import { gateOutcome, openPolicyGate, policyGateRequest, registerPolicyGate, type GateHitl } from './policy-gate.js';
import { missingInputs, parsePlan } from './run-commands.js';
import { assertNewPlanRunnable, type NewPlanChecks } from './run-start-checks.js';

/** What a replan knows besides the run: its completed (locked) top-level nodes, and why it was asked for. */
export interface ReplanContext {
  completedNodeIds: string[];
  trigger: Record<string, unknown>;
}

/** Where a replan gets its new plan (the IR object shape, parsed by the caller). */
export type PlanSource = (run: Run, ctx: ReplanContext) => Promise<unknown>;

/** Top-level plan nodes the next plan version must keep: completed ones, and failed primaries whose fallback's output stands in (domain/replan.ts). */
export function lockedNodeIds(run: Pick<Run, 'plan'>, states: ReadonlyMap<string, Pick<NodeState, 'status'>>, outputIds: { has(id: string): boolean }): string[] {
  return run.plan.nodes.filter((n) => states.get(n.id)?.status === 'completed' || (states.get(n.id)?.status === 'failed' && outputIds.has(n.id))).map((n) => n.id);
}

/** The policy state of one execution of a run. */
export interface PolicyRuntime {
  /** Enabled policies. */
  policies: RuntimePolicy[];
  fired: Map<string, PolicyFiring>;
  /** Halting firings (fail, pause, replan) not applied yet, oldest first. */
  pending: PolicyFiring[];
  /** Node instances whose completion was already looked at in this execution. */
  seen: Set<string>;
  /** An onValidationFail gate was approved: the output is accepted as it is. */
  validationAccepted: boolean;
  /** hitl gates waiting for a decision (ids `policy:<key>`). */
  gates: Set<string>;
}

/** What the slice of an execution the policies need looks like. */
export interface PolicyExecution {
  run: Run;
  states: Map<string, NodeState>;
  outputs: Map<string, unknown>;
  policy: PolicyRuntime;
  started: number;
}

/** What the engine must do at a safe point. */
export type PolicyStep =
  | { kind: 'continue' }
  | { kind: 'fail'; error: string; firingKey: string; policyId: string }
  | { kind: 'paused' }
  | { kind: 'replan'; firing: PolicyFiring };


export class RunPolicies {
  constructor(
    private readonly store: RunExecutionStore,
    private readonly policyStore: PolicyStore,
    private readonly repo: RunRepository,
    private readonly planSource: PlanSource,
    private readonly owner: string,
    private readonly log: Logger,
    /** The approval service: hitl gates are `policy_hitl` requests there (absent: they wait in the orchestrator). */
    private readonly hitl?: GateHitl,
    /** StartRun's plan checks, applied to a policy replan's new plan (a refused plan is `plan_rejected`). */
    private readonly checks: NewPlanChecks = {},
  ) {}

  /** The policy state of a run about to execute (no query when it has neither policies nor gates). */
  async load(run: Run, states: ReadonlyMap<string, NodeState>): Promise<PolicyRuntime> {
    const policies = (run.policies ?? []).filter((p) => p.enabled);
    const gates = new Set([...states.entries()].filter(([id, s]) => s.status === 'waiting' && isGateId(id)).map(([id]) => id));
    if (!policies.length && !gates.size) return { policies, fired: new Map(), pending: [], seen: new Set(), validationAccepted: false, gates };
    const firings = await this.policyStore.firings(run.id);
    const fired = new Map(firings.map((f) => [f.key, f]));
    const validationAccepted = firings.some(
      (f) => f.trigger.kind === 'onValidationFail' && f.action.type === 'hitl' && !f.action.approveAction && states.get(gateId(f.key))?.status === 'completed',
    );
    for (const gate of gates) if (!states.get(gate)?.decision) await this.adoptGate(run, gate, fired.get(keyOfGate(gate)));
    return { policies, fired, pending: firings.filter((f) => f.status === 'pending'), seen: new Set(), validationAccepted, gates };
  }

  /**
   * An undecided gate that waits for no request (the process stopped between
   * recording the gate and registering its request, or the gate is older than
   * the approval service) is registered on its request, opened again
   * idempotently. A failure leaves the gate as it is: ResumeRun still decides
   * it directly.
   */
  private async adoptGate(run: Run, gate: string, firing: PolicyFiring | undefined): Promise<void> {
    if (!this.hitl || firing?.action.type !== 'hitl') return;
    try {
      if (await this.hitl.waits.requestOf(run.id, gate)) return;
      const request = await openPolicyGate(this.hitl, run, gate, { policyId: firing.policyId, trigger: String(firing.trigger.kind ?? ''), action: firing.action, runContext: run.runContext });
      await registerPolicyGate(this.hitl, run.id, gate, request);
    } catch (err) {
      this.log.warn({ err, runId: run.id, gate }, 'policy gate not registered with the approval service; ResumeRun still decides it');
    }
  }

  /** No new node may start: a halting action waits for a safe point, or a gate for a person. */
  halted(x: PolicyExecution): boolean {
    return x.policy.pending.length > 0 || x.policy.gates.size > 0;
  }

  /** onStart policies (once per run), and metrics that are already below their threshold. */
  async onStart(x: PolicyExecution): Promise<void> {
    for (const p of x.policy.policies) {
      if (p.trigger.kind === 'onStart' && !x.policy.fired.has(p.id)) await this.fire(x, p, p.id, {});
    }
    await this.checkTimers(x);
    await this.checkMetrics(x);
  }

  /**
   * Looks at level nodes that completed since the last look: onNodeComplete
   * policies whose selector and condition match fire once per node instance;
   * onMetricBelow policies are checked again.
   */
  async observe(x: PolicyExecution, level: { nodes: readonly { id: string; kind: string; action?: string | undefined; capabilityId?: string | undefined; outputKey?: string | undefined }[]; suffix: string }): Promise<void> {
    const watchers = x.policy.policies.filter((p) => p.trigger.kind === 'onNodeComplete' || p.trigger.kind === 'onMetricBelow');
    if (!watchers.length) return;
    let any = false;
    for (const n of level.nodes) {
      const inst = n.id + level.suffix;
      if (x.policy.seen.has(inst) || x.states.get(inst)?.status !== 'completed') continue;
      x.policy.seen.add(inst);
      any = true;
      const node = { id: inst, nodeId: n.id, kind: n.kind, outputKey: n.outputKey ?? n.id, ...(n.action ? { action: n.action } : {}), ...(n.capabilityId ? { capabilityId: n.capabilityId } : {}) };
      for (const p of watchers) {
        if (p.trigger.kind !== 'onNodeComplete') continue;
        const key = firingKey(p.id, inst);
        if (x.policy.fired.has(key) || !selectorMatches(p.trigger, node)) continue;
        const evaluation = conditionHolds(p.trigger.condition, policyVars(this.facts(x, { node, output: x.outputs.get(inst) })));
        if (evaluation.error) await this.conditionError(x, p, inst, evaluation.error);
        if (evaluation.fire) await this.fire(x, p, key, { nodeId: inst }, [], inst);
      }
    }
    if (any) await this.checkMetrics(x);
  }

  /** onTimeout policies whose time (the run's age) has come. */
  async checkTimers(x: PolicyExecution): Promise<void> {
    const now = Date.now();
    for (const p of x.policy.policies) {
      if (p.trigger.kind !== 'onTimeout' || x.policy.fired.has(p.id)) continue;
      if (x.run.createdAt.getTime() + p.trigger.ms <= now) await this.fire(x, p, p.id, { elapsedMs: now - x.run.createdAt.getTime() });
    }
  }

  /** When the next onTimeout policy is due, if any (the engine wakes then). */
  nextDeadline(x: PolicyExecution): Date | null {
    if (!x.policy.policies.length) return null;
    return nextPolicyDeadline(x.policy.policies, x.run.createdAt, (k) => x.policy.fired.has(k));
  }

  /**
   * The output contract failed: onValidationFail policies whose condition
   * holds fire, after one `validation_error` frame. 'none': nothing fired
   * (the run fails as without policies); 'fired': only non-halting actions
   * (the run fails, its validation_error already emitted); 'halted': the
   * engine must apply an action or wait for a gate.
   */
  async onValidationFail(
    x: PolicyExecution,
    errors: unknown[],
    output: Record<string, unknown>,
    /** What failed: output_contract, or workflow_output_schema (a workflow's own output_schema). */
    scope = 'output_contract',
  ): Promise<'none' | 'fired' | 'halted'> {
    const candidates = x.policy.policies.filter((p) => p.trigger.kind === 'onValidationFail' && !x.policy.fired.has(p.id));
    let before: Frame[] = [{ type: 'validation_error', payload: { scope, errors } }];
    let fired = false;
    for (const p of candidates) {
      if (p.trigger.kind !== 'onValidationFail') continue;
      // With a selector, only errors about the selected nodes' outputs count (and the condition sees only those).
      const subjects = p.trigger.selector ? validationSubjects(p.trigger, errors as Array<{ path?: unknown }>, x.run.plan.nodes) : undefined;
      if (subjects && !subjects.nodeIds.length) continue;
      const seen = subjects ? subjects.errors : errors;
      const evaluation = conditionHolds(p.trigger.condition, { ...policyVars(this.facts(x, { errors: seen })), output });
      if (evaluation.error) await this.conditionError(x, p, null, evaluation.error);
      if (!evaluation.fire) continue;
      await this.fire(x, p, p.id, { errors: seen.length, ...(subjects ? { nodeIds: subjects.nodeIds } : {}) }, before);
      before = [];
      fired = true;
    }
    if (!fired) return 'none';
    return this.halted(x) ? 'halted' : 'fired';
  }

  /**
   * At a safe point: decided gates close (their follow-up actions fire), then
   * the oldest pending action is handed to the engine (fail, replan) or
   * applied here (pause).
   */
  async settle(x: PolicyExecution): Promise<PolicyStep> {
    const open = [...x.policy.gates];
    if (open.length) {
      const fresh = await this.repo.waitingStates(x.run.id);
      for (const gate of open) {
        const row = fresh.get(gate);
        if (!row?.decision) continue;
        await this.closeGate(x, gate, gateOutcome(gate, row.decision));
      }
    }
    const next = x.policy.pending[0];
    if (!next) return { kind: 'continue' };
    if (next.action.type === 'fail') {
      return { kind: 'fail', error: `policy ${next.policyId}: ${next.action.message ?? 'the run was failed by a runtime policy'}`, firingKey: next.key, policyId: next.policyId };
    }
    if (next.action.type === 'pause') {
      await this.store.policyApplied(x.run.id, this.owner, next.key, [{ type: 'log', payload: { event: 'paused', by: `policy:${next.policyId}`, reason: next.action.reason ?? null } }], { pause: true });
      return { kind: 'paused' };
    }
    return { kind: 'replan', firing: next };
  }

  /**
   * A policy's replan at a safe point: plan_requested, the plan source, then
   * version N+1 (plan_generated → plan_updated) — or plan_rejected and the run
   * paused until ReplanRun brings a plan.
   */
  async replan(x: PolicyExecution, firing: PolicyFiring): Promise<'replanned' | 'paused'> {
    const { run } = x;
    const rationale = firing.action.type === 'replan' ? firing.action.rationale : undefined;
    const trigger = { source: 'policy', policyId: firing.policyId, ...(rationale ? { rationale } : {}) };
    await this.store.frames(run.id, this.owner, [{ type: 'plan_requested', payload: { previousVersion: run.planVersion, trigger } }]);
    let plan: PlanGraph;
    try {
      plan = parsePlan(await this.planSource(run, { completedNodeIds: lockedNodeIds(run, x.states, x.outputs), trigger }));
      const missing = missingInputs(plan, run.inputs);
      if (missing.length) throw new AppError('INVALID_ARGUMENT', `the new plan needs input(s) the run does not have: ${missing.join(', ')}`, { violations: missing.map((m) => ({ field: `inputs.${m}`, reason: 'is required by the new plan' })) });
      await assertNewPlanRunnable(plan, this.checks);
    } catch (err) {
      const app = err instanceof AppError ? err : new AppError('UNAVAILABLE', (err as Error).message);
      return this.rejectPlan(x, firing, app.violations.length ? app.violations : [{ field: 'plan', reason: app.message }], app.message);
    }
    const outcome = await this.policyStore.replan(run.id, { plan, trigger: 'policy', policyId: firing.policyId, ...(rationale ? { rationale } : {}), owner: this.owner, appliesKey: firing.key });
    if (outcome.kind === 'rejected') return this.rejectPlan(x, firing, outcome.violations, 'the new plan changes completed nodes');
    if (outcome.kind === 'replanned') {
      for (const child of outcome.change.cancelChildren) await this.repo.cancel(child, 'replanned').catch((err) => this.log.warn({ err, runId: run.id, child }, 'could not cancel child run'));
    }
    return 'replanned';
  }

  private async rejectPlan(x: PolicyExecution, firing: PolicyFiring, diagnostics: Array<{ field: string; reason: string }>, message: string): Promise<'paused'> {
    this.log.warn({ runId: x.run.id, policyId: firing.policyId, message }, 'policy replan rejected; run paused until ReplanRun brings a plan');
    await this.store.policyApplied(
      x.run.id,
      this.owner,
      firing.key,
      [
        { type: 'plan_rejected', payload: { policyId: firing.policyId, message, diagnostics } },
        { type: 'log', payload: { event: 'paused', by: `policy:${firing.policyId}`, reason: 'awaiting_plan' } },
      ],
      { pause: true, status: 'awaiting_plan' },
    );
    return 'paused';
  }

  /** The pending firing `key` was applied by the engine (fail: with the run's finish). */
  applied(x: PolicyExecution, key: string): void {
    x.policy.pending = x.policy.pending.filter((f) => f.key !== key);
    const f = x.policy.fired.get(key);
    if (f) x.policy.fired.set(key, { ...f, status: 'applied' });
  }

  private async closeGate(x: PolicyExecution, gate: string, outcome: { approved: boolean; decidedBy: string; reason: string }): Promise<void> {
    const { approved, decidedBy } = outcome;
    const key = keyOfGate(gate);
    const firing = x.policy.fired.get(key);
    const policy = firing ? (x.run.policies ?? []).find((p) => p.id === firing.policyId) : undefined;
    const hitl = firing?.action.type === 'hitl' ? firing.action : undefined;
    let follow: PolicyAction | undefined = approved ? hitl?.approveAction : (hitl?.rejectAction ?? { type: 'fail', message: outcome.reason });
    if (!policy || !firing) follow = undefined;
    x.policy.gates.delete(gate);
    if (!follow) {
      await this.store.gateClosed(x.run.id, this.owner, gate, approved, null);
      x.states.set(gate, { ...x.states.get(gate)!, status: approved ? 'completed' : 'skipped', finishedAt: new Date() });
      if (approved && firing?.trigger.kind === 'onValidationFail') x.policy.validationAccepted = true;
      return;
    }
    const followKey = followUpKey(key, approved ? 'approve' : 'reject');
    const trigger = { kind: 'hitl', decision: approved ? 'approve' : 'reject', gate, decidedBy };
    // A follow-up hitl opens a gate of its own.
    const request = follow.type === 'hitl' ? await this.openGate(x, policy!.id, gateId(followKey), follow, 'hitl') : undefined;
    const record = this.record(x, policy!, followKey, follow, trigger, { gate, decision: trigger.decision }, undefined, request);
    await this.store.gateClosed(x.run.id, this.owner, gate, approved, { firing: record.firing, frames: record.frames, ...(record.gate ? { gateId: record.gate } : {}) });
    x.states.set(gate, { ...x.states.get(gate)!, status: approved ? 'completed' : 'skipped', finishedAt: new Date() });
    this.remember(x, record);
    if (request && record.gate) await registerPolicyGate(this.hitl!, x.run.id, record.gate, request);
  }

  /** The approval service's request behind a gate about to open (undefined without one). */
  private async openGate(x: PolicyExecution, policyId: string, gate: string, action: Extract<PolicyAction, { type: 'hitl' }>, trigger: string, subject?: string): Promise<RequestView | undefined> {
    if (!this.hitl) return undefined;
    return openPolicyGate(this.hitl, x.run, gate, { policyId, trigger, action, runContext: x.run.runContext, ...(subject ? { subject } : {}) });
  }

  /** Records a firing of `policy` under `key` and applies what applies at once (emit, hitl gate). */
  private async fire(x: PolicyExecution, policy: RuntimePolicy, key: string, extra: Record<string, unknown>, before: Frame[] = [], nodeId?: string): Promise<void> {
    // A hitl gate's request is opened first, so its hitl_request frame names it; it is registered once the gate is recorded.
    const request = policy.action.type === 'hitl' ? await this.openGate(x, policy.id, gateId(key), policy.action, policy.trigger.kind, nodeId) : undefined;
    const record = this.record(x, policy, key, policy.action, { ...policy.trigger }, extra, nodeId, request);
    const policyTimer = policy.trigger.kind === 'onTimeout' ? nextPolicyDeadline(x.policy.policies, x.run.createdAt, (k) => k === key || x.policy.fired.has(k)) : undefined;
    this.log.info({ runId: x.run.id, policyId: policy.id, key, action: policy.action.type }, 'runtime policy fired');
    await this.store.policyFired(x.run.id, this.owner, record.firing, [...before, ...record.frames], {
      ...(record.gate ? { gateId: record.gate } : {}),
      ...(policyTimer !== undefined ? { policyTimer } : {}),
      nodeId: nodeId ?? null,
    });
    this.remember(x, record);
    if (request && record.gate) await registerPolicyGate(this.hitl!, x.run.id, record.gate, request);
  }

  private record(x: PolicyExecution, policy: RuntimePolicy, key: string, action: PolicyAction, trigger: Record<string, unknown>, extra: Record<string, unknown>, subject?: string, request?: RequestView) {
    const status: 'pending' | 'applied' = isHalting(action) ? 'pending' : 'applied';
    const frames: Frame[] = [{ type: 'policy_triggered', payload: triggeredPayload({ id: policy.id, trigger: trigger as RuntimePolicy['trigger'] }, key, action, extra) }];
    let gate: string | undefined;
    if (action.type === 'emit') frames.push({ type: action.event, payload: { policyId: policy.id, ...(action.payload ?? {}) } });
    if (action.type === 'hitl') {
      gate = gateId(key);
      frames.push(policyGateRequest(gate, { policyId: policy.id, trigger: String(trigger.kind), action, runContext: x.run.runContext, ...(subject ? { subject } : {}) }, request));
    }
    return { firing: { key, policyId: policy.id, trigger, action, status }, frames, gate };
  }

  private remember(x: PolicyExecution, record: ReturnType<RunPolicies['record']>): void {
    const firing: PolicyFiring = { ...record.firing, createdAt: new Date() };
    x.policy.fired.set(firing.key, firing);
    if (firing.status === 'pending') x.policy.pending.push(firing);
    if (record.gate) {
      x.states.set(record.gate, { nodeId: record.gate, status: 'waiting', attempt: 1, error: null, startedAt: new Date(), finishedAt: null, decision: null });
      x.policy.gates.add(record.gate);
    }
  }

  private async checkMetrics(x: PolicyExecution): Promise<void> {
    const metrics = x.policy.policies.filter((p) => p.trigger.kind === 'onMetricBelow' && !x.policy.fired.has(p.id));
    if (!metrics.length) return;
    const vars = policyVars(this.facts(x, {}));
    for (const p of metrics) {
      if (p.trigger.kind !== 'onMetricBelow') continue;
      const result = metricBelow(p.trigger, vars);
      if (result.fire) await this.fire(x, p, p.id, { metric: p.trigger.metric, value: result.value, threshold: p.trigger.threshold });
    }
  }

  private facts(x: PolicyExecution, extra: Pick<PolicyFacts, 'node' | 'output' | 'errors'>): PolicyFacts {
    let completed = 0;
    let failed = 0;
    let skipped = 0;
    for (const [id, s] of x.states) {
      if (isGateId(id)) continue;
      if (s.status === 'completed') completed++;
      else if (s.status === 'failed') failed++;
      else if (s.status === 'skipped') skipped++;
    }
    return {
      outputs: finalOutput(x.run, x.outputs),
      inputs: runInputsWithDefaults(x.run.plan, x.run.inputs),
      run: { completed, failed, skipped, elapsedMs: Date.now() - x.run.createdAt.getTime(), planVersion: x.run.planVersion },
      ...extra,
    };
  }

  /** A condition that cannot be evaluated (e.g. `some` over a non-array) does not fire; it is reported once per subject. */
  private async conditionError(x: PolicyExecution, policy: RuntimePolicy, nodeId: string | null, error: string): Promise<void> {
    this.log.warn({ runId: x.run.id, policyId: policy.id, nodeId, error }, 'runtime policy condition could not be evaluated');
    await this.store.frames(x.run.id, this.owner, [{ type: 'log', payload: { event: 'policy_condition_error', policyId: policy.id, error } }], nodeId);
  }
}
