import { AppError } from '@af/service-kit';
import { passwordProblem } from '../domain/password-policy.js';
import type { PasswordHasher } from '../infra/password-hasher.js';
import type { User, UsersRepository } from '../infra/users.repository.js';

export interface RegisterCommand {
  email: string;
  password: string;
  name: string | null;
  address: string;
}

/** A new account, after the password rules (password-policy.ts); 400 naming `password` otherwise. */
export class RegisterUseCase {
  constructor(
    private readonly users: UsersRepository,
    private readonly hasher: PasswordHasher,
    private readonly commonPasswords: ReadonlySet<string>,
  ) {}

  async execute(cmd: RegisterCommand): Promise<User> {
    const problem = passwordProblem(cmd.password, cmd.email, this.commonPasswords);
    if (problem) throw AppError.invalid('password', problem, 'weak_password');
    const hash = await this.hasher.hash(cmd.password, cmd.address);
    return this.users.create(cmd.email, cmd.name, hash);
  }
}
