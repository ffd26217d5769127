/**
 * What StartRun refuses about a plan before anything is stored, beyond its
 * structure: run inputs that do not match the playbook's `inputs`
 * declarations (INVALID_ARGUMENT naming `inputs.<name>`), and a playbook
 * with llm steps on an orchestrator that has no model (FAILED_PRECONDITION
 * naming the steps and how to configure one) — a run certain to fail is
 * refused, not started. Plans from other front-ends keep the old rules:
 * required inputs only, and an llm node without a model fails when it runs.
 *
 * A replan's new plan gets the same checks but the inputs one (the run's
 * inputs are fixed; ReplanRun checks only that the new plan needs none the
 * run lacks): assertNewPlanRunnable.
 */
import { checkRunInputs, CONFIGURE_MODEL_HINT, llmNodes, type PlanGraph } from '@af/plan';
import { AppError, type FieldViolation } from '@af/service-kit';
import type { ActionCheck } from './action-availability.js';

/** What this orchestrator can run. */
export interface RunCapabilities {
  /** A chat model is configured (LLM_PROVIDER): llm nodes can run. */
  hasModel: boolean;
}

export function assertRunnable(plan: PlanGraph, inputs: Record<string, unknown>, can: RunCapabilities): void {
  const issues = checkRunInputs(plan, inputs);
  if (issues.length > 0) {
    throw new AppError('INVALID_ARGUMENT', issues.map((i) => `${i.field}: ${i.reason}`).join('; '), {
      violations: issues.map((i) => ({ field: i.field, reason: i.reason, code: i.code, ...(i.suggestedFix !== undefined ? { suggestedFix: i.suggestedFix } : {}) })),
    });
  }
  assertModelAvailable(plan, can);
}

/** A playbook plan with llm steps needs a model: FAILED_PRECONDITION (`no_model_configured` per step) otherwise. */
export function assertModelAvailable(plan: PlanGraph, can: RunCapabilities): void {
  if (can.hasModel || plan.provenance?.frontEnd !== 'playbook') return;
  const llm = llmNodes(plan.nodes);
  if (llm.length === 0) return;
  const names = llm.map((n) => `'${n.id}'`).join(', ');
  throw new AppError('FAILED_PRECONDITION', `step${llm.length > 1 ? 's' : ''} ${names} ${llm.length > 1 ? 'are llm_task steps' : 'is an llm_task step'}, but no LLM model is configured for the orchestrator: ${CONFIGURE_MODEL_HINT}`, {
    violations: llm.map((n) => ({
      field: `plan.nodes.${n.id}`,
      reason: `step '${n.id}' needs an LLM model and none is configured: ${CONFIGURE_MODEL_HINT}`,
      code: 'no_model_configured',
      step: n.id,
    })),
  });
}

/** What a replan's new plan is checked against; absent parts are not checked. */
export interface NewPlanChecks {
  /** Refuses tool actions no service of this deployment serves (action-availability.ts). */
  checkActions?: ActionCheck | undefined;
  capabilities?: RunCapabilities | undefined;
}

/**
 * StartRun's plan checks for a replan's new plan: llm steps without a model
 * (FAILED_PRECONDITION, as assertModelAvailable), then unserved actions
 * (INVALID_ARGUMENT, `action_unavailable` naming `plan.nodes.<id>.action`),
 * reported together with `more` (the caller's own violations of the plan).
 */
export async function assertNewPlanRunnable(plan: PlanGraph, checks: NewPlanChecks, more: readonly FieldViolation[] = []): Promise<void> {
  if (checks.capabilities) assertModelAvailable(plan, checks.capabilities);
  const violations = [...more, ...(checks.checkActions ? await checks.checkActions(plan) : [])];
  if (violations.length) throw new AppError('INVALID_ARGUMENT', violations.map((v) => `${v.field}: ${v.reason}`).join('; '), { violations });
}
