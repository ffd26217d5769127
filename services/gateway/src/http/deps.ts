import type { ServiceAuth, ServiceKit } from '@af/service-kit';
import type { DeleteAccountUseCase } from '../app/delete-account.use-case.js';
import type { LoginUseCase } from '../app/login.use-case.js';
import type { RegisterUseCase } from '../app/register.use-case.js';
import type { GatewayConfig } from '../config.js';
import type { TokenService } from '../domain/credentials.js';
import type { StreamTokens } from '../domain/stream-token.js';
import type { ApiKeysRepository } from '../infra/api-keys.repository.js';
import type { Clients } from '../infra/clients.js';
import type { InvitesRepository } from '../infra/invites.repository.js';
import type { TeamsRepository } from '../infra/teams.repository.js';
import type { UsersRepository } from '../infra/users.repository.js';

/** Everything the HTTP layer needs, built once in bootstrap. */
export interface GatewayDeps {
  kit: ServiceKit<GatewayConfig>;
  /** Signs the principal tokens of the gateway's gRPC calls and of API-key exchanges. */
  serviceAuth: ServiceAuth;
  clients: Clients;
  users: UsersRepository;
  teams: TeamsRepository;
  tokens: TokenService;
  /** Tokens that let a browser's EventSource open one SSE route (domain/stream-token.ts). */
  streamTokens: StreamTokens;
  invites: InvitesRepository;
  apiKeys: ApiKeysRepository;
  /** Login, registration and account deletion (throttled, hashing off the event loop). */
  accounts: {
    login: LoginUseCase;
    register: RegisterUseCase;
    deleteAccount: DeleteAccountUseCase;
  };
}

export const GATEWAY_DEPS = Symbol('GatewayDeps');
