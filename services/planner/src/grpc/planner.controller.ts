import { Controller, Inject, Module, type DynamicModule } from '@nestjs/common';
import { planner } from '@af/contracts';
import { AppError } from '@af/service-kit';
import { compileMasterPlan, type ActionContract, type PlanIssue, type StepIssue } from '@af/plan';
import type { ActionAvailability } from '../app/action-availability.js';
import type { CapabilityRegistry } from '../app/capability-registry.service.js';
import type { FacetCatalogStore } from '../app/facet-catalog.store.js';
import type { PlanTaskUseCase } from '../app/plan-task.use-case.js';
import { compileWorkflowJson, validatePlanJson } from '../app/plan-sources.js';
import { Playbooks, type StoredPlaybook } from '../app/playbooks.js';
import { playbookGraph } from '../domain/playbooks/playbook-graph.js';
import { runGoalConditions, runOutputContract } from '../domain/planning/run-contract.js';
import { CapabilityRegistryController, FACETS, REGISTRY } from './capability-registry.controller.js';
import { toStruct, wirePlan } from './flex.mapper.js';

const PLAYBOOKS = Symbol('Playbooks');
const PLAN_TASK = Symbol('PlanTaskUseCase');
const ACTIONS = Symbol('ActionAvailability');
const MAX_MASTER_PLAN_BYTES = 1024 * 1024;

const toWire = (p: StoredPlaybook): planner.Playbook => ({
  id: p.id,
  name: p.name,
  version: p.version,
  yaml: p.yaml,
  ownerUserId: p.ownerUserId,
  createdAt: p.createdAt.toISOString(),
  updatedAt: p.updatedAt.toISOString(),
  revision: p.revision,
});

const toWireResults = (results: Awaited<ReturnType<Playbooks['compile']>>['results']): planner.StepValidationResult[] =>
  results.map((r) => ({ step: r.step, valid: r.valid, errors: r.errors.map(issue), warnings: r.warnings.map(issue) }));

@Controller()
@planner.PlannerServiceControllerMethods()
export class PlannerController implements planner.PlannerServiceController {
  constructor(
    @Inject(PLAYBOOKS) private readonly playbooks: Playbooks,
    @Inject(PLAN_TASK) private readonly planTaskUseCase: PlanTaskUseCase,
    @Inject(ACTIONS) private readonly actions: ActionAvailability,
  ) {}

  async planTask(req: planner.PlanTaskRequest): Promise<planner.PlanTaskResponse> {
    const { outcome, envelope } = await this.planTaskUseCase.execute({
      userId: req.principal?.userId ?? '',
      teamIds: req.principal?.teamIds ?? [],
      envelope: req.envelope,
      ...(req.previousPlan ? { previousPlan: req.previousPlan, completedNodeIds: req.completedNodeIds } : {}),
      ...(req.replanTrigger ? { replanTrigger: req.replanTrigger } : {}),
      maxAttempts: req.maxAttempts,
      planner: req.planner,
    });
    const plan = outcome.plan;
    const { failures, warnings, infos, status, satisfactionScore, satisfiedCount } = outcome.bundle;
    return {
      accepted: outcome.accepted,
      plan: plan ? wirePlan(plan) : undefined,
      planVersion: plan?.version ?? 0,
      events: outcome.events.map((e) => ({ type: e.type, payload: toStruct(e.payload) })),
      diagnostics: toStruct({ status: outcome.accepted ? status : 'rejected', satisfactionScore, satisfiedCount, failures, warnings, infos }),
      outputContract: plan ? toStruct(runOutputContract(plan, envelope.outputContract)) : undefined,
      goalCondition: plan ? runGoalConditions(plan, envelope.goalConditions).map(toStruct) : [],
      policies: toStruct({ planner: envelope.policies.planner, runtime: envelope.policies.runtime }),
    };
  }

  compileMasterPlan(req: planner.CompileMasterPlanRequest): planner.CompileMasterPlanResponse {
    if (!req.json || !req.json.trim()) throw AppError.invalid('json', 'is required: the master plan as JSON text');
    if (Buffer.byteLength(req.json) > MAX_MASTER_PLAN_BYTES) throw AppError.invalid('json', `is larger than ${MAX_MASTER_PLAN_BYTES} bytes`);
    let doc: unknown;
    try {
      doc = JSON.parse(req.json);
    } catch (e) {
      throw AppError.invalid('json', `is not valid JSON: ${(e as Error).message}`);
    }
    const result = compileMasterPlan(doc, { composer: !req.omitComposer });
    if (!result.ok) {
      const first = result.errors[0]!;
      throw new AppError('INVALID_ARGUMENT', `${first.message}${result.errors.length > 1 ? ` (+${result.errors.length - 1} more)` : ''}`, {
        violations: result.errors.map((e) => ({ field: e.field, reason: e.message, code: e.code, ...(e.suggestedFix ? { suggestedFix: e.suggestedFix } : {}) })),
      });
    }
    return { plan: wirePlan(result.plan) };
  }

  /** With `validate_only` every problem is the answer (valid = false); without it errors are INVALID_ARGUMENT. */
  async compilePlaybook(req: planner.CompilePlaybookRequest): Promise<planner.CompilePlaybookResponse> {
    const principal = { userId: req.principal?.userId ?? '', teamIds: req.principal?.teamIds ?? [] };
    const report = req.validateOnly ? await this.playbooks.report(req.yaml, principal) : await this.playbooks.compileFor(req.yaml, principal);
    return {
      plan: report.plan ? wirePlan(report.plan) : undefined,
      results: toWireResults(report.results),
      valid: report.valid,
      errors: report.errors.map(playbookIssue),
      warnings: report.warnings.map(playbookIssue),
    };
  }

  compileWorkflow(req: planner.CompileWorkflowRequest): planner.CompileWorkflowResponse {
    const { plan, results } = compileWorkflowJson(req.json);
    return { plan: wirePlan(plan), results: toWireResults(results) };
  }

  validatePlan(req: planner.ValidatePlanRequest): planner.ValidatePlanResponse {
    return { plan: wirePlan(validatePlanJson(req.json)) };
  }

  async updatePlaybook(req: planner.UpdatePlaybookRequest): Promise<planner.UpdatePlaybookResponse> {
    const { playbook, changed } = await this.playbooks.update(req.principal?.userId ?? '', req.id, req.yaml, req.idempotencyKey);
    return { playbook: toWire(playbook), changed };
  }

  async deletePlaybook(req: planner.DeletePlaybookRequest): Promise<planner.DeletePlaybookResponse> {
    return { versions: await this.playbooks.delete(req.principal?.userId ?? '', req.id) };
  }

  async listPlaybookVersions(req: planner.ListPlaybookVersionsRequest): Promise<planner.ListPlaybookVersionsResponse> {
    return { versions: (await this.playbooks.versions(req.principal?.userId ?? '', req.id)).map(toWire) };
  }

  async compileStoredPlaybook(req: planner.CompileStoredPlaybookRequest): Promise<planner.CompileStoredPlaybookResponse> {
    // A run's plan: checked for the caller as CompilePlaybook does (connectors, model).
    const caller = { userId: req.principal?.userId ?? '', teamIds: req.principal?.teamIds ?? [] };
    const { plan, results, playbook } = await this.playbooks.compileStored(caller.userId, req.id, {
      revision: req.revision,
      dryRun: req.dryRun,
      allowSideEffects: req.allowSideEffects,
      caller,
    });
    return { plan: wirePlan(plan), results: toWireResults(results), playbook: toWire(playbook) };
  }

  async getPlaybookGraph(req: planner.GetPlaybookGraphRequest): Promise<planner.GetPlaybookGraphResponse> {
    const { plan, playbook } = await this.playbooks.compileStored(req.principal?.userId ?? '', req.id, { revision: req.revision });
    const graph = playbookGraph(plan, this.actions.registry());
    return { graph: toStruct({ playbook_id: playbook.id, revision: playbook.revision, name: playbook.name, ...graph }) };
  }

  async createPlaybook(req: planner.CreatePlaybookRequest): Promise<planner.CreatePlaybookResponse> {
    return { playbook: toWire(await this.playbooks.create(req.principal?.userId ?? '', req.yaml, req.idempotencyKey)) };
  }

  async getPlaybook(req: planner.GetPlaybookRequest): Promise<planner.GetPlaybookResponse> {
    return { playbook: toWire(await this.playbooks.get(req.principal?.userId ?? '', req.id, req.revision)) };
  }

  async listPlaybooks(req: planner.ListPlaybooksRequest): Promise<planner.ListPlaybooksResponse> {
    return { playbooks: (await this.playbooks.list(req.principal?.userId ?? '')).map(toWire) };
  }

  listActions(req: planner.ListActionsRequest): planner.ListActionsResponse {
    return { actions: this.actions.registry().list(req.category || undefined).map((a) => this.toWireAction(a)) };
  }

  getAction(req: planner.GetActionRequest): planner.GetActionResponse {
    const action = this.actions.registry().get(req.name);
    if (!action) throw AppError.notFound('action', req.name);
    return { action: this.toWireAction(action) };
  }

  private toWireAction(a: ActionContract): planner.ActionContract {
    const { name, description, category, stepType, ...contract } = a;
    const status = this.actions.status(a);
    return { name, description: description ?? '', category, stepType, contract: JSON.parse(JSON.stringify(contract)), ...status };
  }
}

function issue(i: StepIssue): planner.StepIssue {
  return { code: i.code, message: i.message, field: i.field, suggestedFix: i.suggestedFix ?? '', line: i.line ?? 0, column: i.column ?? 0 };
}

function playbookIssue(i: PlanIssue): planner.PlaybookIssue {
  return { code: i.code, message: i.message, field: i.field, suggestedFix: i.suggestedFix ?? '', step: i.step ?? '', line: i.line ?? 0, column: i.column ?? 0 };
}

export interface PlannerModuleDeps {
  playbooks: Playbooks;
  planTask: PlanTaskUseCase;
  registry: CapabilityRegistry;
  facets: FacetCatalogStore;
  actions: ActionAvailability;
  /** The planner's other gRPC services (agent profiles), each its own module. */
  modules?: DynamicModule[];
}

@Module({})
export class PlannerModule {
  static forRoot(deps: PlannerModuleDeps): DynamicModule {
    return {
      module: PlannerModule,
      imports: deps.modules ?? [],
      controllers: [PlannerController, CapabilityRegistryController],
      providers: [
        { provide: PLAYBOOKS, useValue: deps.playbooks },
        { provide: PLAN_TASK, useValue: deps.planTask },
        { provide: ACTIONS, useValue: deps.actions },
        { provide: REGISTRY, useValue: deps.registry },
        { provide: FACETS, useValue: deps.facets },
      ],
    };
  }
}
