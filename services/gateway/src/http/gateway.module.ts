import { Controller, Get, Inject, Module, type DynamicModule, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { ApiKeysController, ServiceTokenController } from './api-keys.controller.js';
import { AuthController } from './auth.controller.js';
import { AuthGuard } from './auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from './deps.js';
import { DocsController } from './docs.controller.js';
import { META_ROUTES, ROUTES } from './openapi.js';
import { responseCheck } from './response-check.middleware.js';
import { ConnectionsController, OAuthCallbackController } from './connections.controller.js';
import { ConnectorsController, PluginsController } from './connectors.controller.js';
import { PlaybooksController } from './playbooks.controller.js';
import { ActionsController } from './resources.controller.js';
import { ExecutionsController, RunsController } from './runs.controller.js';
import { ApprovalsController, FlexHitlController, HitlRespondController } from './approvals.controller.js';
import { FlexController } from './flex.controller.js';
import { TeamsController } from './teams.controller.js';
import { WORKSPACE_CONTROLLERS } from '../workspace/workspace.module.js';
import { ProfilesController } from './profiles.controller.js';
import { ENTITY_RESOLUTION_CONTROLLERS, entityResolutionProviders } from '../entity-resolution/entity-resolution.module.js';
import { SchedulesController } from '../schedules/schedules.controller.js';
import { MonitorsController } from '../monitors/monitors.controller.js';
import { AgentsController, ChatController } from '../agents/agents.controller.js';
import { QueryController } from '../query/query.controller.js';
import { DocumentsController } from '../documents/documents.controller.js';

@Controller()
class MetaController {
  @Get('healthz')
  health() {
    return { status: 'ok' as const };
  }
}

@Module({})
export class GatewayModule implements NestModule {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  static forRoot(deps: GatewayDeps): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [MetaController, DocsController, AuthController, RunsController, ConnectorsController, ConnectionsController, OAuthCallbackController, PluginsController, PlaybooksController, ActionsController, ExecutionsController, ApprovalsController, FlexHitlController, HitlRespondController, FlexController, TeamsController, ApiKeysController, ServiceTokenController, ...WORKSPACE_CONTROLLERS, ProfilesController, ...ENTITY_RESOLUTION_CONTROLLERS, SchedulesController, MonitorsController, AgentsController, ChatController, QueryController, DocumentsController],
      providers: [{ provide: GATEWAY_DEPS, useValue: deps }, AuthGuard, ...entityResolutionProviders(deps)],
    };
  }

  /** OPENAPI_CHECK_RESPONSES: every JSON answer is checked against the OpenAPI document (tests). */
  configure(consumer: MiddlewareConsumer): void {
    if (this.deps.kit.config.OPENAPI_CHECK_RESPONSES) consumer.apply(responseCheck([...ROUTES, ...META_ROUTES], this.deps.kit.log)).forRoutes('*');
  }
}
