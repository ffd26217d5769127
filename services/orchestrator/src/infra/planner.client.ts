/**
 * The planner, for subflow nodes that name a stored playbook: GetPlaybook for
 * its YAML, CompilePlaybook for the PlanGraph (as the gateway does for
 * StartRun), both on behalf of the run's owner.
 */
import { planner } from '@af/contracts';
import { planFromWire, PlanWireError } from '@af/plan';
import { AppError, call, createGrpcClient } from '@af/service-kit';

export type PlaybookPlanLoader = (userId: string, playbookId: string) => Promise<unknown>;

export function plannerClient(address: string): planner.PlannerServiceClient {
  return createGrpcClient<planner.PlannerServiceClient>('planner', planner.PLANNER_SERVICE_NAME, address);
}

/** Loads and compiles a stored playbook into the IR's object shape (parsed and validated by the caller). */
export function playbookPlanLoader(client: planner.PlannerServiceClient, timeoutMs = 15_000): PlaybookPlanLoader {
  return async (userId, playbookId) => {
    const principal = { userId, teamIds: [] };
    const { playbook } = await call(client.getPlaybook({ principal, id: playbookId }), timeoutMs);
    if (!playbook) throw AppError.notFound('playbook', playbookId);
    const compiled = await call(client.compilePlaybook({ principal, yaml: playbook.yaml }), timeoutMs);
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
