/**
 * StartRun's up-front check for callers that send a plan themselves: a tool
 * node whose action neither the orchestrator runs nor a service of
 * ACTION_SERVICES serves refuses the run (INVALID_ARGUMENT, violation code
 * `action_unavailable` naming `plan.nodes.<id>.action`, the action and the
 * service that owns it) instead of starting a run certain to fail. The same
 * rule refuses playbooks at the planner's CompilePlaybook.
 */
import { defaultActionRegistry, servedActionNames, unavailableActions } from '@af/plan';
import type { ActionPort, FieldViolation } from '@af/service-kit';

const registry = defaultActionRegistry();

export type ActionCheck = (plan: unknown) => Promise<FieldViolation[]>;

export function actionCheck(actions: Pick<ActionPort, 'servedBy'>): ActionCheck {
  return async (plan) => {
    const names = servedActionNames(plan);
    // servedBy asks the services again (rate-limited) for a name the table does not know: a plugin registered a moment ago.
    const served = new Set<string>();
    for (const name of names) if (await actions.servedBy(name)) served.add(name);
    return unavailableActions(plan, (n) => served.has(n), registry, false).map((v) => ({ ...v, field: `plan.${v.field}` }));
  };
}
