/** Principal tokens: signed, short-lived identities on every gRPC call between services. */
import type { BaseEnv } from '../config.js';
import { ServiceAuth } from './service-auth.js';

export * from './principal-token.js';
export * from './service-auth.js';
export { LruCache } from './lru.js';
export * from './cli-credentials.js';

/** The ServiceAuth of service `service` from its SERVICE_AUTH_* configuration. */
export function serviceAuthFromConfig(
  config: Pick<BaseEnv, 'SERVICE_AUTH_SECRET' | 'SERVICE_AUTH_SECRET_PREVIOUS' | 'SERVICE_AUTH_TOKEN_TTL_SECONDS'>,
  service: string,
  options: { refuseSystemPrincipals?: boolean } = {},
): ServiceAuth {
  return new ServiceAuth({
    secret: config.SERVICE_AUTH_SECRET,
    previousSecret: config.SERVICE_AUTH_SECRET_PREVIOUS,
    service,
    ttlSeconds: config.SERVICE_AUTH_TOKEN_TTL_SECONDS,
    ...options,
  });
}
