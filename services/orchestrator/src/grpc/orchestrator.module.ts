import { Module, type DynamicModule } from '@nestjs/common';
import type { RunCommands } from '../app/run-commands.js';
import { OrchestratorController, RUN_COMMANDS } from './orchestrator.controller.js';

@Module({})
export class OrchestratorModule {
  static forRoot(runs: RunCommands): DynamicModule {
    return { module: OrchestratorModule, controllers: [OrchestratorController], providers: [{ provide: RUN_COMMANDS, useValue: runs }] };
  }
}
