import { Controller, Inject } from '@nestjs/common';
import { orchestrator } from '@af/contracts';
import { planFromWire, PlanWireError } from '@af/plan';
import { AppError } from '@af/service-kit';
import { PolicyCommands } from '../app/policy-commands.js';
import { RunCommands } from '../app/run-commands.js';
import { streamRunEvents } from '../app/stream-run-events.js';
import type { RunRepository } from '../infra/run.repository.js';
import type { ServiceKit } from '@af/service-kit';
import { from, map, mergeMap, type Observable } from 'rxjs';
import { runStatusName, taskStatusName, toWireEvent, toWireRun, toWireRunSummary } from './run.mapper.js';

export const RUN_COMMANDS = Symbol('RunCommands');
export const STREAM_DEPS = Symbol('StreamDeps');
export const POLICY_COMMANDS = Symbol('PolicyCommands');

@Controller()
@orchestrator.OrchestratorServiceControllerMethods()
export class OrchestratorController implements orchestrator.OrchestratorServiceController {
  constructor(
    @Inject(RUN_COMMANDS) private readonly runs: RunCommands,
    @Inject(STREAM_DEPS) private readonly streamDeps: { repo: RunRepository; kit: ServiceKit },
    @Inject(POLICY_COMMANDS) private readonly policies: PolicyCommands,
  ) {}

  streamRunEvents(req: orchestrator.StreamRunEventsRequest): Observable<orchestrator.StreamRunEventsResponse> {
    return from(streamRunEvents({ runs: this.runs, ...this.streamDeps }, req.principal?.userId ?? '', req.runId, Number(req.afterSeq || 0))).pipe(
      mergeMap((frames) => frames),
      map((f) => ({ event: toWireEvent(f) })),
    );
  }

  async startRun(req: orchestrator.StartRunRequest): Promise<orchestrator.StartRunResponse> {
    // planFromWire only reshapes; RunCommands parses the result with the IR schema.
    const run = await this.runs.start({
      userId: req.principal?.userId ?? '',
      teamIds: req.principal?.teamIds ?? [],
      plan: irPlan(req.plan),
      inputs: req.inputs ?? {},
      runContext: req.runContext,
      idempotencyKey: req.idempotencyKey,
      outputContract: req.outputContract,
      goalCondition: req.goalCondition ?? [],
      policies: req.policies ?? [],
      ...(req.runId ? { runId: req.runId } : {}),
      ...(req.agent?.agentProfileId ? { agent: { profileId: req.agent.agentProfileId, invokedBy: req.agent.invokedBy, teamId: req.agent.teamId } } : {}),
    });
    return { run: toWireRun(run) };
  }

  async getRun(req: orchestrator.GetRunRequest): Promise<orchestrator.GetRunResponse> {
    return { run: toWireRun(await this.policies.view(req.principal?.userId ?? '', req.runId)) };
  }

  async replanRun(req: orchestrator.ReplanRunRequest): Promise<orchestrator.ReplanRunResponse> {
    const run = await this.policies.replan(req.principal?.userId ?? '', req.runId, {
      ...(req.plan ? { plan: irPlan(req.plan) } : {}),
      rationale: req.rationale,
      policyId: req.policyId,
      expectedPlanVersion: req.expectedPlanVersion,
      idempotencyKey: req.idempotencyKey,
      teamIds: req.principal?.teamIds ?? [],
    });
    return { run: toWireRun(run) };
  }

  async triggerPolicy(req: orchestrator.TriggerPolicyRequest): Promise<orchestrator.TriggerPolicyResponse> {
    return { run: toWireRun(await this.policies.trigger(req.principal?.userId ?? '', req.runId, req.policyId, req.idempotencyKey)) };
  }

  async cancelRun(req: orchestrator.CancelRunRequest): Promise<orchestrator.CancelRunResponse> {
    return { run: toWireRun(await this.runs.cancel(req.principal?.userId ?? '', req.runId)) };
  }

  async listRuns(req: orchestrator.ListRunsRequest): Promise<orchestrator.ListRunsResponse> {
    const { runs, nextPageToken } = await this.runs.list(
      req.principal?.userId ?? '',
      (req.statuses ?? []).map(runStatusName),
      req.pageSize,
      req.pageToken,
      (req.taskStatuses ?? []).map(taskStatusName),
      req.agentProfileId ?? '',
      req.playbookId ?? '',
    );
    return { runs: runs.map(toWireRunSummary), nextPageToken };
  }

  async pauseRun(req: orchestrator.PauseRunRequest): Promise<orchestrator.PauseRunResponse> {
    return { run: toWireRun(await this.runs.pause(req.principal?.userId ?? '', req.runId)) };
  }

  async resumeRun(req: orchestrator.ResumeRunRequest): Promise<orchestrator.ResumeRunResponse> {
    const decision =
      req.decision === orchestrator.Decision.DECISION_APPROVE ? 'approve' : req.decision === orchestrator.Decision.DECISION_REJECT ? 'reject' : null;
    if (decision === null && req.decision !== orchestrator.Decision.DECISION_UNSPECIFIED) {
      throw AppError.invalid('decision', 'must be DECISION_APPROVE or DECISION_REJECT');
    }
    const run = await this.runs.resume(req.principal?.userId ?? '', req.runId, { nodeId: req.nodeId, decision, instructions: req.instructions });
    return { run: toWireRun(run) };
  }

  async listRunEvents(req: orchestrator.ListRunEventsRequest): Promise<orchestrator.ListRunEventsResponse> {
    const events = await this.runs.events(req.principal?.userId ?? '', req.runId, Number(req.afterSeq || 0));
    return { events: events.map(toWireEvent) };
  }
}

/** The wire plan in the IR's object shape; a `default_json` that is not JSON is bad input. */
function irPlan(wire: orchestrator.StartRunRequest['plan']): unknown {
  try {
    return planFromWire(wire);
  } catch (e) {
    if (e instanceof PlanWireError) throw AppError.invalid(`plan.${e.field}`, e.reason, 'invalid_plan');
    throw e;
  }
}
