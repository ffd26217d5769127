import { Controller, Get, Module, type DynamicModule } from '@nestjs/common';
import { ApiKeysController, ServiceTokenController } from './api-keys.controller.js';
import { AuthController } from './auth.controller.js';
import { AuthGuard } from './auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from './deps.js';
import { openApiDocument } from './openapi.js';
import { ConnectorsController, PluginsController } from './connectors.controller.js';
import { PlaybooksController } from './playbooks.controller.js';
import { ActionsController } from './resources.controller.js';
import { ExecutionsController, RunsController } from './runs.controller.js';
import { ApprovalsController, FlexHitlController, HitlRespondController } from './approvals.controller.js';
import { FlexController } from './flex.controller.js';
import { TeamsController } from './teams.controller.js';
import { SchedulesController } from '../schedules/schedules.controller.js';
import { MonitorsController } from '../monitors/monitors.controller.js';

@Controller()
class MetaController {
  private readonly doc = openApiDocument();

  @Get('api/docs')
  docs() {
    return this.doc;
  }

  @Get('healthz')
  health() {
    return { status: 'ok' };
  }
}

@Module({})
export class GatewayModule {
  static forRoot(deps: GatewayDeps): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [MetaController, AuthController, RunsController, ConnectorsController, PluginsController, PlaybooksController, ActionsController, ExecutionsController, ApprovalsController, FlexHitlController, HitlRespondController, FlexController, TeamsController, ApiKeysController, ServiceTokenController, SchedulesController, MonitorsController],
      providers: [{ provide: GATEWAY_DEPS, useValue: deps }, AuthGuard],
    };
  }
}
