import { Controller, Inject } from '@nestjs/common';
import { orchestrator } from '@af/contracts';
import { RunCommands } from '../app/run-commands.js';
import { toWireEvent, toWireRun } from './run.mapper.js';

export const RUN_COMMANDS = Symbol('RunCommands');

@Controller()
@orchestrator.OrchestratorServiceControllerMethods()
export class OrchestratorController implements orchestrator.OrchestratorServiceController {
  constructor(@Inject(RUN_COMMANDS) private readonly runs: RunCommands) {}

  async startRun(req: orchestrator.StartRunRequest): Promise<orchestrator.StartRunResponse> {
    const run = await this.runs.start({
      userId: req.principal?.userId ?? '',
      plan: req.plan,
      inputs: req.inputs ?? {},
      runContext: req.runContext,
      idempotencyKey: req.idempotencyKey,
    });
    return { run: toWireRun(run) };
  }

  async getRun(req: orchestrator.GetRunRequest): Promise<orchestrator.GetRunResponse> {
    return { run: toWireRun(await this.runs.get(req.principal?.userId ?? '', req.runId)) };
  }

  async cancelRun(req: orchestrator.CancelRunRequest): Promise<orchestrator.CancelRunResponse> {
    return { run: toWireRun(await this.runs.cancel(req.principal?.userId ?? '', req.runId)) };
  }

  async listRunEvents(req: orchestrator.ListRunEventsRequest): Promise<orchestrator.ListRunEventsResponse> {
    const events = await this.runs.events(req.principal?.userId ?? '', req.runId, Number(req.afterSeq || 0));
    return { events: events.map(toWireEvent) };
  }
}
