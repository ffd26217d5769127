/**
 * The planner, on behalf of the run's owner: for subflow nodes (and replans
 * of playbook runs) that name a stored playbook, GetPlaybook for its YAML and
 * CompilePlaybook for the PlanGraph (as the gateway does for StartRun); for
 * replans of planner-made (flex) runs, PlanTask with the previous plan, its
 * completed nodes and the trigger.
 */
import { planner } from '@af/contracts';
import { planFromWire, planToWire, PlanWireError, type PlanGraph } from '@af/plan';
import { AppError, call, createGrpcClient, type PrincipalSigner } from '@af/service-kit';

/** `revision` 0 or absent: the latest version. */
export type PlaybookPlanLoader = (userId: string, playbookId: string, revision?: number) => Promise<unknown>;

export function plannerClient(address: string, auth: PrincipalSigner): planner.PlannerServiceClient {
  return createGrpcClient<planner.PlannerServiceClient>('planner', planner.PLANNER_SERVICE_NAME, address, { auth });
}

/** Loads and compiles a stored playbook (one version) into the IR's object shape (parsed and validated by the caller). */
export function playbookPlanLoader(client: planner.PlannerServiceClient, timeoutMs = 15_000): PlaybookPlanLoader {
  return async (userId, playbookId, revision = 0) => {
    const principal = { userId, teamIds: [] };
    const compiled = await call(client.compileStoredPlaybook({ principal, id: playbookId, revision, dryRun: false, allowSideEffects: false }), timeoutMs);
    try {
      return planFromWire(compiled.plan);
    } catch (e) {
      if (e instanceof PlanWireError) throw AppError.invalid(`playbook ${playbookId}: plan.${e.field}`, e.reason, 'invalid_plan');
      throw e;
    }
  };
}

/** Without PLANNER_URL, a subflow naming a playbook fails clearly. */
export const noPlanner: PlaybookPlanLoader = async (_userId, playbookId) => {
  throw new AppError('FAILED_PRECONDITION', `subflow playbook '${playbookId}' cannot be loaded: PLANNER_URL is not configured for the orchestrator`, {
    retryable: false,
  });
};

/** Plan version N+1 of a flex run: the planner's plan (IR object shape), or an error naming why it refused. */
export type FlexReplanner = (
  /** The run's owner and the teams it started with: the new plan uses only what they may use. */
  principal: { userId: string; teamIds: readonly string[] },
  request: { envelope: Record<string, unknown>; previousPlan: PlanGraph; completedNodeIds: string[]; trigger: Record<string, unknown> },
) => Promise<unknown>;

interface WireDiagnostic {
  constraintId?: string;
  constraint?: string;
  nodeId?: string;
  cause?: string;
  suggestion?: string;
}

/**
 * PlanTask as a replan: the envelope the plan was made from, the plan being
 * revised and its completed (locked) nodes. A plan the planner does not
 * accept is FAILED_PRECONDITION with its failures as violations.
 */
export function flexReplanner(client: planner.PlannerServiceClient, timeoutMs = 60_000): FlexReplanner {
  return async (principal, r) => {
    const res = await call(
      client.planTask({
        principal: { userId: principal.userId, teamIds: [...principal.teamIds] },
        envelope: r.envelope,
        previousPlan: planToWire(r.previousPlan),
        completedNodeIds: r.completedNodeIds,
        replanTrigger: r.trigger,
        maxAttempts: 0,
        planner: '',
      }),
      timeoutMs,
    );
    if (!res.accepted || !res.plan) {
      const failures = ((res.diagnostics?.failures ?? []) as WireDiagnostic[]).slice(0, 20);
      const violations = failures.map((f) => ({
        field: f.constraintId ?? f.nodeId ?? 'plan',
        reason: [f.cause, f.suggestion ?? f.constraint].filter(Boolean).join(': ') || 'unsatisfied',
        code: 'plan_rejected',
      }));
      throw new AppError('FAILED_PRECONDITION', `the planner did not accept a new plan${violations.length ? `: ${violations.map((v) => `${v.field}: ${v.reason}`).join('; ')}` : ''}`, {
        violations: violations.length ? violations : [{ field: 'plan', reason: 'the planner did not accept a new plan', code: 'plan_rejected' }],
        retryable: false,
      });
    }
    try {
      return planFromWire(res.plan);
    } catch (e) {
      if (e instanceof PlanWireError) throw AppError.invalid(`plan.${e.field}`, e.reason, 'invalid_plan');
      throw e;
    }
  };
}

/** Without PLANNER_URL, a flex run's replan fails clearly (the run pauses with plan_rejected). */
export const noFlexReplanner: FlexReplanner = async () => {
  throw new AppError('FAILED_PRECONDITION', 'this run was planned from a task envelope, and no planner is configured to plan it again (set PLANNER_URL)', { retryable: false });
};
