import { AppError } from '@af/service-kit';
import type { AccessToken, TokenService } from '../domain/credentials.js';
import type { User, UsersRepository } from '../infra/users.repository.js';
import type { PasswordCheck } from './password-check.js';

export interface LoginCommand {
  email: string;
  password: string;
  /** Client address key (addressKey). */
  address: string;
}

/** Email + password → access token, under login throttling (see PasswordCheck). */
export class LoginUseCase {
  constructor(
    private readonly users: UsersRepository,
    private readonly check: PasswordCheck,
    private readonly tokens: TokenService,
  ) {}

  async execute(cmd: LoginCommand): Promise<{ user: User; access: AccessToken }> {
    // Looked up only if the throttle lets the attempt through.
    const found: { user: User | null } = { user: null };
    const ok = await this.check.verify(
      cmd.email,
      async () => (found.user = await this.users.byEmail(cmd.email))?.passwordHash ?? null,
      cmd.password,
      cmd.address,
    );
    const user = found.user;
    if (!user || !ok) throw new AppError('UNAUTHENTICATED', 'email or password is wrong');
    return { user, access: await this.tokens.issue(user.id, user.tokenVersion) };
  }
}
