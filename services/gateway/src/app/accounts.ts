/** Wiring of the account use cases from the gateway's configuration. */
import type { ServiceKit } from '@af/service-kit';
import type { GatewayConfig } from '../config.js';
import type { TokenService } from '../domain/credentials.js';
import { loadCommonPasswords } from '../infra/common-passwords.js';
import { LoginFailuresRepository } from '../infra/login-failures.repository.js';
import { PasswordHasher } from '../infra/password-hasher.js';
import type { UsersRepository } from '../infra/users.repository.js';
import { DeleteAccountUseCase } from './delete-account.use-case.js';
import { LoginUseCase } from './login.use-case.js';
import { PasswordCheck } from './password-check.js';
import { RegisterUseCase } from './register.use-case.js';

/** Attempts of one account that may wait behind the running one on a replica. */
const MAX_WAITING_PER_ACCOUNT = 8;

export function createAccounts(kit: ServiceKit<GatewayConfig>, users: UsersRepository, tokens: TokenService) {
  const c = kit.config;
  const hasher = new PasswordHasher({
    workers: c.PASSWORD_HASH_WORKERS,
    maxQueued: c.PASSWORD_HASH_QUEUE,
    perOwnerLimit: c.PASSWORD_HASH_PER_ADDRESS,
    rounds: c.PASSWORD_BCRYPT_ROUNDS,
    nice: c.PASSWORD_HASH_NICE,
  });
  kit.onClose(() => hasher.close());
  const backoff = { baseDelayMs: c.LOGIN_BACKOFF_BASE_MS, maxDelayMs: c.LOGIN_BACKOFF_MAX_SECONDS * 1000, resetAfterMs: c.LOGIN_FAILURES_RESET_SECONDS * 1000 };
  const check = new PasswordCheck(
    new LoginFailuresRepository(kit),
    hasher,
    {
      policies: {
        account: { freeFailures: c.LOGIN_ACCOUNT_FREE_FAILURES, ...backoff },
        address: { freeFailures: c.LOGIN_ADDRESS_FREE_FAILURES, ...backoff },
      },
      maxWaitingPerAccount: MAX_WAITING_PER_ACCOUNT,
      rejectDelayMs: c.LOGIN_REJECT_DELAY_MS,
    },
    kit.log,
  );
  return {
    login: new LoginUseCase(users, check, tokens),
    register: new RegisterUseCase(users, hasher, loadCommonPasswords(c.COMMON_PASSWORDS_FILE), c.SIGNUP),
    deleteAccount: new DeleteAccountUseCase(users, check),
  };
}
