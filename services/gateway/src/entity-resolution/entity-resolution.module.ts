import type { Provider } from '@nestjs/common';
import { entity } from '@af/contracts';
import { createGrpcClient } from '@af/service-kit';
import type { GatewayDeps } from '../http/deps.js';
import { EntityResolutionController, ER_CLIENT } from './entity-resolution.controller.js';

/**
 * What the gateway module registers for the knowledge routes: the controller
 * (listed with the others, so the OpenAPI check sees its routes) and its
 * client, made when the module starts; without ENTITY_RESOLUTION_URL there is
 * none and the routes answer 503.
 */
export const ENTITY_RESOLUTION_CONTROLLERS = [EntityResolutionController];

export function entityResolutionProviders(deps: GatewayDeps): Provider[] {
  return [
    {
      provide: ER_CLIENT,
      useFactory: () => {
        const url = deps.kit.config.ENTITY_RESOLUTION_URL;
        return url
          ? createGrpcClient<entity.EntityServiceClient>('entity', entity.ENTITY_SERVICE_NAME, url, {
              auth: deps.serviceAuth,
              readyWaitMs: deps.kit.config.UPSTREAM_WAIT_MS,
            })
          : undefined;
      },
    },
  ];
}
