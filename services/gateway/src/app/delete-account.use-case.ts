import { AppError } from '@af/service-kit';
import type { UsersRepository } from '../infra/users.repository.js';
import type { PasswordCheck } from './password-check.js';

export interface DeleteAccountCommand {
  userId: string;
  /** The account's password, confirmed. */
  password: string;
  address: string;
}

/**
 * Delete the caller's account after confirming its password (throttled like
 * a login). The account row goes; every token of it is refused from then on.
 */
export class DeleteAccountUseCase {
  constructor(
    private readonly users: UsersRepository,
    private readonly check: PasswordCheck,
  ) {}

  async execute(cmd: DeleteAccountCommand): Promise<void> {
    const user = await this.users.byId(cmd.userId);
    if (!user) throw new AppError('UNAUTHENTICATED', 'token is no longer valid (account deleted or token revoked)');
    if (!(await this.check.verify(user.email, async () => user.passwordHash, cmd.password, cmd.address))) {
      throw new AppError('PERMISSION_DENIED', 'password: is wrong', { violations: [{ field: 'password', reason: 'is wrong', code: 'wrong_password' }] });
    }
    await this.users.delete(user.id);
  }
}
