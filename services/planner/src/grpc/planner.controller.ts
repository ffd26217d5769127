import { Controller, Inject, Module, type DynamicModule } from '@nestjs/common';
import { planner } from '@af/contracts';
import { AppError } from '@af/service-kit';
import { defaultActionRegistry, planToWire, PlanWireError, type ActionContract, type PlanGraph } from '@af/plan';
import { Playbooks, type StoredPlaybook } from '../app/playbooks.js';

const PLAYBOOKS = Symbol('Playbooks');

const toWire = (p: StoredPlaybook): planner.Playbook => ({
  id: p.id,
  name: p.name,
  version: p.version,
  yaml: p.yaml,
  ownerUserId: p.ownerUserId,
  createdAt: p.createdAt.toISOString(),
  updatedAt: p.updatedAt.toISOString(),
});

@Controller()
@planner.PlannerServiceControllerMethods()
export class PlannerController implements planner.PlannerServiceController {
  private readonly actions = defaultActionRegistry();

  constructor(@Inject(PLAYBOOKS) private readonly playbooks: Playbooks) {}

  compilePlaybook(req: planner.CompilePlaybookRequest): planner.CompilePlaybookResponse {
    const { plan, results } = this.playbooks.compile(req.yaml);
    return {
      plan: wirePlan(plan),
      results: results.map((r) => ({
        step: r.step,
        valid: r.valid,
        errors: r.errors.map(issue),
        warnings: r.warnings.map(issue),
      })),
    };
  }

  async createPlaybook(req: planner.CreatePlaybookRequest): Promise<planner.CreatePlaybookResponse> {
    return { playbook: toWire(await this.playbooks.create(req.principal?.userId ?? '', req.yaml, req.idempotencyKey)) };
  }

  async getPlaybook(req: planner.GetPlaybookRequest): Promise<planner.GetPlaybookResponse> {
    return { playbook: toWire(await this.playbooks.get(req.principal?.userId ?? '', req.id)) };
  }

  async listPlaybooks(req: planner.ListPlaybooksRequest): Promise<planner.ListPlaybooksResponse> {
    return { playbooks: (await this.playbooks.list(req.principal?.userId ?? '')).map(toWire) };
  }

  listActions(req: planner.ListActionsRequest): planner.ListActionsResponse {
    return { actions: this.actions.list(req.category || undefined).map(toWireAction) };
  }

  getAction(req: planner.GetActionRequest): planner.GetActionResponse {
    const action = this.actions.get(req.name);
    if (!action) throw AppError.notFound('action', req.name);
    return { action: toWireAction(action) };
  }
}

const toWireAction = (a: ActionContract): planner.ActionContract => {
  const { name, description, category, stepType, ...contract } = a;
  return { name, description: description ?? '', category, stepType, contract: JSON.parse(JSON.stringify(contract)) };
};

/** The typed wire message; a plan the wire cannot carry intact (an int32 overflow) is bad input. */
function wirePlan(plan: PlanGraph): planner.CompilePlaybookResponse['plan'] {
  try {
    return planToWire(plan);
  } catch (e) {
    if (e instanceof PlanWireError) throw AppError.invalid(`plan.${e.field}`, e.reason, 'invalid_plan');
    throw e;
  }
}

function issue(i: { code: string; message: string; field?: string; suggestedFix?: string }): planner.StepIssue {
  return { code: i.code, message: i.message, field: i.field ?? '', suggestedFix: i.suggestedFix ?? '' };
}

@Module({})
export class PlannerModule {
  static forRoot(playbooks: Playbooks): DynamicModule {
    return { module: PlannerModule, controllers: [PlannerController], providers: [{ provide: PLAYBOOKS, useValue: playbooks }] };
  }
}
