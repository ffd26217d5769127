import type { ServiceKit } from '@af/service-kit';
import type { DeleteAccountUseCase } from '../app/delete-account.use-case.js';
import type { LoginUseCase } from '../app/login.use-case.js';
import type { RegisterUseCase } from '../app/register.use-case.js';
import type { GatewayConfig } from '../config.js';
import type { TokenService } from '../domain/credentials.js';
import type { Clients } from '../infra/clients.js';
import type { TeamsRepository } from '../infra/teams.repository.js';
import type { UsersRepository } from '../infra/users.repository.js';

/** Everything the HTTP layer needs, built once in bootstrap. */
export interface GatewayDeps {
  kit: ServiceKit<GatewayConfig>;
  clients: Clients;
  users: UsersRepository;
  teams: TeamsRepository;
  tokens: TokenService;
  /** Login, registration and account deletion (throttled, hashing off the event loop). */
  accounts: {
    login: LoginUseCase;
    register: RegisterUseCase;
    deleteAccount: DeleteAccountUseCase;
  };
}

export const GATEWAY_DEPS = Symbol('GatewayDeps');
