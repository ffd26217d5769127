/**
 * The request side of replans and runtime policies: ReplanRun (plan version
 * N+1 from a given plan, or — without one — planned again: from the task
 * envelope for a planner-made plan, from the stored playbook for a playbook
 * run), TriggerPolicy (a `manual` policy), and GetRun's plan history,
 * firings and policy gates. Ownership as in RunCommands: another user's run
 * is "not found".
 */
import { AppError, type Logger } from '@af/service-kit';
import { firingKey, gateId, isGateId, triggeredPayload } from '../domain/policy-evaluation.js';
import { TERMINAL_RUN, type Run, type RunView } from '../domain/run-state.js';
import type { RuntimePolicy } from '../domain/runtime-policy.js';
import type { FlexReplanner, PlaybookPlanLoader } from '../infra/planner.client.js';
import type { PolicyStore } from '../infra/policy.store.js';
import type { Frame } from '../infra/run-execution.store.js';
import type { RunRepository } from '../infra/run.repository.js';
import { openPolicyGate, policyGateRequest, registerPolicyGate, type GateHitl } from './policy-gate.js';
import { missingInputs, parsePlan, teamViolations } from './run-commands.js';
import { lockedNodeIds, type PlanSource } from './run-policies.js';
import { assertNewPlanRunnable, type NewPlanChecks } from './run-start-checks.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ReplanCommand {
  /** The new plan (IR object shape); undefined: compile the run's stored playbook again. */
  plan?: unknown;
  rationale: string;
  /** A `manual` runtime policy whose action is `replan`; '' for none. */
  policyId: string;
  /** 0: do not check. */
  expectedPlanVersion: number;
  idempotencyKey: string;
  /** The caller's teams: a given plan may open decisions only to them (see teamViolations). */
  teamIds?: readonly string[];
}

/**
 * A playbook run's stored playbook, compiled again by the planner: the
 * version the run started with (`metadata.playbook_revision`), so a replan
 * never moves a run onto a later edit.
 */
export function playbookPlanSource(load: PlaybookPlanLoader): PlanSource {
  return async (run: Run) => {
    const provenance = run.plan.provenance;
    if (provenance?.frontEnd !== 'playbook' || !provenance.sourceId) {
      throw new AppError(
        'FAILED_PRECONDITION',
        `run ${run.id} was not started from a stored playbook (its plan came from ${provenance?.frontEnd ?? 'an inline plan'}), so there is nothing to compile again: give ReplanRun a plan`,
        { violations: [{ field: 'plan', reason: 'is required for a run that was not started from a stored playbook' }] },
      );
    }
    const revision = run.plan.metadata?.playbook_revision;
    return load(run.userId, provenance.sourceId, typeof revision === 'number' && Number.isInteger(revision) && revision > 0 ? revision : undefined);
  };
}

/** The task envelope a planner-made plan was planned from (`metadata.flex.envelope`, set by PlanTask), if any. */
export function flexEnvelope(plan: Pick<Run['plan'], 'metadata'>): Record<string, unknown> | undefined {
  const flex = plan.metadata?.flex;
  if (!flex || typeof flex !== 'object' || Array.isArray(flex)) return undefined;
  const envelope = (flex as Record<string, unknown>).envelope;
  return envelope && typeof envelope === 'object' && !Array.isArray(envelope) ? (envelope as Record<string, unknown>) : undefined;
}

/**
 * A planner-made run is planned again by the planner (PlanTask with the
 * envelope, the current plan version and its locked nodes, and the trigger);
 * any other run goes to `otherwise`.
 */
export function flexPlanSource(replan: FlexReplanner, otherwise: PlanSource): PlanSource {
  return async (run, ctx) => {
    const envelope = flexEnvelope(run.plan);
    if (!envelope) return otherwise(run, ctx);
    return replan({ userId: run.userId, teamIds: run.teamIds ?? [] }, { envelope, previousPlan: { ...run.plan, version: run.planVersion }, completedNodeIds: ctx.completedNodeIds, trigger: ctx.trigger });
  };
}

export class PolicyCommands {
  constructor(
    private readonly repo: RunRepository,
    private readonly store: PolicyStore,
    private readonly planSource: PlanSource,
    private readonly log: Logger,
    /** The approval service: a manual hitl opens a `policy_hitl` request there (absent: the gate waits in the orchestrator). */
    private readonly hitl?: GateHitl,
    /** StartRun's plan checks, applied to the new plan (model for llm steps, served actions). */
    private readonly checks: NewPlanChecks = {},
  ) {}

  /** GetRun: the run with its plan history, policy firings and policy gates. */
  async view(userId: string, runId: string): Promise<RunView> {
    await this.owned(userId, runId);
    return this.fullView(runId);
  }

  /**
   * Plan version N+1 of an unfinished run. The new plan must keep every
   * completed node unchanged (INVALID_ARGUMENT naming the node otherwise), and
   * passes StartRun's plan checks (no llm steps without a model, no actions
   * nothing serves; assertNewPlanRunnable); with
   * `policyId`, a manual replan policy fires first. Nothing changes when the
   * request is refused.
   */
  async replan(userId: string, runId: string, cmd: ReplanCommand, manual?: { policy: RuntimePolicy; key: string }): Promise<RunView> {
    const run = await this.owned(userId, runId);
    if (TERMINAL_RUN.has(run.status)) throw new AppError('FAILED_PRECONDITION', `run ${runId} is ${run.status}; only an unfinished run can be replanned`);
    if (cmd.rationale.length > 2000) throw AppError.invalid('rationale', 'is longer than 2000 characters');
    if (!Number.isInteger(cmd.expectedPlanVersion) || cmd.expectedPlanVersion < 0) throw AppError.invalid('expected_plan_version', 'must be a non-negative integer');
    let firing = manual;
    if (!firing && cmd.policyId) {
      const policy = this.manualPolicy(run, cmd.policyId);
      if (policy.action.type !== 'replan') {
        throw AppError.invalid('policy_id', `policy ${policy.id}'s action is ${policy.action.type}, not replan: fire it with TriggerPolicy`);
      }
      firing = { policy, key: await this.manualKey(runId, policy.id, cmd.idempotencyKey) };
    }
    const rationale = cmd.rationale || (firing?.policy.action.type === 'replan' ? firing.policy.action.rationale : undefined) || undefined;
    const plan = parsePlan(cmd.plan ?? (await this.planSource(run, await this.replanContext(run, firing ? 'manual' : 'api', firing?.policy.id, rationale))));
    const teams = cmd.plan !== undefined ? teamViolations(plan.nodes, new Set(cmd.teamIds ?? []), 'plan.nodes') : [];
    await assertNewPlanRunnable(plan, this.checks, teams);
    const missing = missingInputs(plan, run.inputs);
    if (missing.length) {
      throw new AppError('INVALID_ARGUMENT', `the new plan needs input(s) the run does not have: ${missing.join(', ')}`, {
        violations: missing.map((name) => ({ field: `plan.inputs.${name}`, reason: 'is required by the new plan but the run has no value for it', code: 'missing_required' })),
      });
    }
    const outcome = await this.store.replan(runId, {
      plan,
      trigger: firing ? 'manual' : 'api',
      ...(firing ? { policyId: firing.policy.id } : {}),
      ...(rationale ? { rationale } : {}),
      ...(cmd.idempotencyKey ? { idempotencyKey: cmd.idempotencyKey } : {}),
      ...(cmd.expectedPlanVersion ? { expectedPlanVersion: cmd.expectedPlanVersion } : {}),
      ...(firing
        ? {
            firing: {
              key: firing.key,
              policyId: firing.policy.id,
              trigger: { ...firing.policy.trigger },
              action: firing.policy.action,
              payload: triggeredPayload(firing.policy, firing.key, firing.policy.action, { by: userId }),
            },
          }
        : {}),
    });
    if (outcome.kind === 'rejected') {
      throw new AppError('INVALID_ARGUMENT', `the new plan changes completed nodes: ${outcome.violations.map((v) => `${v.field}: ${v.reason}`).join('; ')}`, {
        violations: outcome.violations,
      });
    }
    if (outcome.kind === 'replanned') await this.cancelChildren(runId, outcome.change.cancelChildren);
    return this.fullView(runId);
  }

  /** Fires a `manual` policy: policy_triggered, then its action. */
  async trigger(userId: string, runId: string, policyId: string, idempotencyKey: string): Promise<RunView> {
    const run = await this.owned(userId, runId);
    if (!policyId) throw AppError.invalid('policy_id', 'is required');
    const policy = this.manualPolicy(run, policyId);
    if (TERMINAL_RUN.has(run.status)) throw new AppError('FAILED_PRECONDITION', `run ${runId} is ${run.status}; policies fire only on an unfinished run`);
    const key = await this.manualKey(runId, policy.id, idempotencyKey);
    if (idempotencyKey && (await this.store.firings(runId)).some((f) => f.key === key)) return this.fullView(runId);
    const action = policy.action;
    if (action.type === 'replan') return this.replan(userId, runId, { rationale: '', policyId: '', expectedPlanVersion: 0, idempotencyKey }, { policy, key });
    const frames: Frame[] = [];
    let gate: string | undefined;
    let request: Awaited<ReturnType<typeof openPolicyGate>> | undefined;
    if (action.type === 'emit') frames.push({ type: action.event, payload: { policyId: policy.id, ...(action.payload ?? {}) } });
    if (action.type === 'pause') frames.push({ type: 'log', payload: { event: 'paused', by: `policy:${policy.id}`, reason: action.reason ?? null } });
    if (action.type === 'hitl') {
      gate = gateId(key);
      const input = { policyId: policy.id, trigger: 'manual', action, runContext: run.runContext };
      // The request first (idempotent by run and gate), so the frame names it; the gate is registered on it once recorded.
      if (this.hitl) request = await openPolicyGate(this.hitl, run, gate, input);
      frames.push(policyGateRequest(gate, input, request));
    }
    const payload = triggeredPayload(policy, key, action, { by: userId });
    const { children } = await this.store.triggerManual(runId, { key, policyId: policy.id, trigger: { ...policy.trigger }, action, payload }, frames, gate);
    if (request && gate) await registerPolicyGate(this.hitl!, runId, gate, request);
    await this.cancelChildren(runId, children);
    return this.fullView(runId);
  }

  /** What the plan source knows of a request-side replan: the locked nodes, and who asked. */
  private async replanContext(run: Run, source: 'manual' | 'api', policyId: string | undefined, rationale: string | undefined) {
    const states = await this.repo.nodeStates(run.id);
    const outputs = await this.repo.outputs(run.id);
    return { completedNodeIds: lockedNodeIds(run, states, outputs), trigger: { source, ...(policyId ? { policyId } : {}), ...(rationale ? { rationale } : {}) } };
  }

  private manualPolicy(run: Run, policyId: string): RuntimePolicy {
    const policy = (run.policies ?? []).find((p) => p.id === policyId);
    if (!policy) throw AppError.invalid('policy_id', `run ${run.id} has no policy ${policyId}`);
    if (policy.trigger.kind !== 'manual') throw AppError.invalid('policy_id', `policy ${policyId} is triggered by ${policy.trigger.kind}, not manual`);
    if (!policy.enabled) throw new AppError('FAILED_PRECONDITION', `policy ${policyId} is disabled`);
    return policy;
  }

  /** `<policy>@manual:<idempotency key | n>`: each manual firing has its own key. */
  private async manualKey(runId: string, policyId: string, idempotencyKey: string): Promise<string> {
    if (idempotencyKey) {
      if (idempotencyKey.length > 200) throw AppError.invalid('idempotency_key', 'is longer than 200 characters');
      return firingKey(policyId, `manual:${idempotencyKey}`);
    }
    return firingKey(policyId, `manual:${(await this.store.manualCount(runId, policyId)) + 1}`);
  }

  private async cancelChildren(runId: string, children: string[]): Promise<void> {
    for (const child of children) {
      await this.repo.cancel(child, 'parent_replanned').catch((err) => this.log.warn({ err, runId, child }, 'could not cancel child run'));
    }
  }

  private async fullView(runId: string): Promise<RunView> {
    const view = (await this.repo.view(runId))!;
    const planVersions = await this.store.planVersions(runId);
    // Firings and gates exist only for runs with policies.
    if (!view.policies?.length) return { ...view, planVersions, policyFirings: [], policyGates: [] };
    const states = await this.repo.nodeStates(runId);
    return { ...view, planVersions, policyFirings: await this.store.firings(runId), policyGates: [...states.values()].filter((s) => isGateId(s.nodeId)) };
  }

  private async owned(userId: string, runId: string): Promise<Run> {
    if (!userId) throw new AppError('UNAUTHENTICATED', 'principal.user_id is required');
    if (!UUID.test(runId)) throw AppError.notFound('run', runId);
    const run = await this.repo.get(runId);
    if (!run || run.userId !== userId) throw AppError.notFound('run', runId);
    return run;
  }
}
