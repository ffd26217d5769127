import { Module, type DynamicModule } from '@nestjs/common';
import type { PolicyCommands } from '../app/policy-commands.js';
import type { RunCommands } from '../app/run-commands.js';
import type { ServiceKit } from '@af/service-kit';
import type { RunRepository } from '../infra/run.repository.js';
import { OrchestratorController, POLICY_COMMANDS, RUN_COMMANDS, STREAM_DEPS } from './orchestrator.controller.js';
import type { ScheduleCommands } from '../app/schedule-commands.js';
import { MONITOR_WATERMARKS, SCHEDULE_COMMANDS, ScheduleController } from './schedule.controller.js';
import type { MonitorWatermarks } from '../app/monitor-watermarks.js';

@Module({})
export class OrchestratorModule {
  static forRoot(runs: RunCommands, streamDeps: { repo: RunRepository; kit: ServiceKit }, policies: PolicyCommands, schedules: { commands: ScheduleCommands; watermarks: MonitorWatermarks }): DynamicModule {
    return {
      module: OrchestratorModule,
      controllers: [OrchestratorController, ScheduleController],
      providers: [
        { provide: RUN_COMMANDS, useValue: runs },
        { provide: STREAM_DEPS, useValue: streamDeps },
        { provide: POLICY_COMMANDS, useValue: policies },
        { provide: SCHEDULE_COMMANDS, useValue: schedules.commands },
        { provide: MONITOR_WATERMARKS, useValue: schedules.watermarks },
      ],
    };
  }
}
