import { Module, type DynamicModule } from '@nestjs/common';
import { entity } from '@af/contracts';
import { createGrpcClient } from '@af/service-kit';
import { AuthGuard } from '../http/auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from '../http/deps.js';
import { EntityResolutionController, ER_CLIENT } from './entity-resolution.controller.js';

/** The knowledge routes; without ENTITY_RESOLUTION_URL they answer 503. */
@Module({})
export class EntityResolutionHttpModule {
  static forRoot(deps: GatewayDeps): DynamicModule {
    const url = deps.kit.config.ENTITY_RESOLUTION_URL;
    const client = url
      ? createGrpcClient<entity.EntityServiceClient>('entity', entity.ENTITY_SERVICE_NAME, url, {
          auth: deps.serviceAuth,
        })
      : undefined;
    return {
      module: EntityResolutionHttpModule,
      controllers: [EntityResolutionController],
      providers: [
        { provide: GATEWAY_DEPS, useValue: deps },
        { provide: ER_CLIENT, useValue: client },
        AuthGuard,
      ],
    };
  }
}
