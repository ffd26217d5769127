/**
 * The plan of a new run, from whichever front-end the body used; the planner
 * compiles or validates it (INVALID_ARGUMENT naming the field → 400).
 */
import type { common, planner, plan as planWire } from '@af/contracts';
import { call } from '@af/service-kit';
import type { z } from 'zod';
import type { StartRunSchema } from './schemas.js';

type RunSource = Pick<z.infer<typeof StartRunSchema>, 'yaml' | 'playbook_id' | 'playbook_revision' | 'workflow_steps' | 'plan'>;

export async function compileRunPlan(client: planner.PlannerServiceClient, principal: common.Principal, source: RunSource): Promise<planWire.PlanGraph | undefined> {
  if (source.yaml !== undefined) return (await call(client.compilePlaybook({ principal, yaml: source.yaml }))).plan;
  if (source.playbook_id !== undefined) {
    const compiled = await call(client.compileStoredPlaybook({ principal, id: source.playbook_id, revision: source.playbook_revision ?? 0, dryRun: false, allowSideEffects: false }));
    return compiled.plan;
  }
  // Wrapped so that the planner's field paths are the body's (`workflow_steps[1].dependencies`).
  if (source.workflow_steps !== undefined) return (await call(client.compileWorkflow({ principal, json: JSON.stringify({ workflow_steps: source.workflow_steps }) }))).plan;
  return (await call(client.validatePlan({ principal, json: JSON.stringify(source.plan) }))).plan;
}
