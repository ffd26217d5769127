import { AppError } from '@af/service-kit';
import { passwordProblem } from '../domain/password-policy.js';
import { inviteRequired, signupRule, type SignupMode } from '../domain/signup.js';
import { InvitesRepository } from '../infra/invites.repository.js';
import type { PasswordHasher } from '../infra/password-hasher.js';
import type { User, UsersRepository } from '../infra/users.repository.js';

export interface RegisterCommand {
  email: string;
  password: string;
  name: string | null;
  address: string;
  /** A team invitation's token: the account joins that team (required when SIGNUP=invite). */
  inviteToken?: string;
}

/**
 * A new account, if SIGNUP lets it through (domain/signup.ts; 403 otherwise)
 * and after the password rules (password-policy.ts; 400 naming `password`).
 * With an invitation the account joins its team in the same transaction; an
 * invitation that cannot be used creates no account (400 naming invite_token).
 */
export class RegisterUseCase {
  constructor(
    private readonly users: UsersRepository,
    private readonly hasher: PasswordHasher,
    private readonly commonPasswords: ReadonlySet<string>,
    private readonly signup: SignupMode,
  ) {}

  async execute(cmd: RegisterCommand): Promise<{ user: User; joined?: { teamId: string; role: string } }> {
    const rule = signupRule(this.signup, cmd.inviteToken !== undefined);
    // Refused before hashing (bcrypt is the expensive part); checked again under a lock when the account is created.
    if (rule === 'first_account_only' && (await this.users.any())) throw inviteRequired();
    const problem = passwordProblem(cmd.password, cmd.email, this.commonPasswords);
    if (problem) throw AppError.invalid('password', problem, 'weak_password');
    const hash = await this.hasher.hash(cmd.password, cmd.address);
    let joined: { teamId: string; role: string } | undefined;
    const token = cmd.inviteToken;
    const user = await this.users.create(cmd.email, cmd.name, hash, {
      ...(rule === 'first_account_only' ? { onlyIfFirst: inviteRequired } : {}),
      ...(token !== undefined ? { andThen: async (m, userId) => void (joined = await InvitesRepository.accept(m, token, cmd.email, userId)) } : {}),
    });
    return joined ? { user, joined } : { user };
  }
}
