import { TokenService } from '../domain/credentials.js';
import type { AuthState } from '../infra/users.repository.js';
import { authenticateBearer } from './token-auth.js';

const USER = '11111111-2222-4333-8444-555555555555';
const tokens = new TokenService('k'.repeat(32), 3600);

function depsWith(state: AuthState | null) {
  const users = { authState: jest.fn(async () => state) };
  return { deps: { tokens, users: users as any }, users };
}

describe('authenticateBearer', () => {
  it('accepts a token of the current version and returns the teams', async () => {
    const { token } = await tokens.issue(USER, 2);
    const { deps, users } = depsWith({ tokenVersion: 2, teamIds: ['t1'] });
    await expect(authenticateBearer(deps, `Bearer ${token}`)).resolves.toEqual({ userId: USER, teamIds: ['t1'] });
    expect(users.authState).toHaveBeenCalledWith(USER);
  });

  it('refuses a token of an earlier version (logout-all) and of a deleted user', async () => {
    const { token } = await tokens.issue(USER, 1);
    const message = 'token is no longer valid (account deleted or token revoked)';
    await expect(authenticateBearer(depsWith({ tokenVersion: 2, teamIds: [] }).deps, `Bearer ${token}`)).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message });
    await expect(authenticateBearer(depsWith(null).deps, `Bearer ${token}`)).rejects.toMatchObject({ code: 'UNAUTHENTICATED', message });
  });

  it('refuses a subject that is not a user id without asking the database', async () => {
    const { token } = await tokens.issue('system:operator', 0);
    const { deps, users } = depsWith({ tokenVersion: 0, teamIds: [] });
    await expect(authenticateBearer(deps, `Bearer ${token}`)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(users.authState).not.toHaveBeenCalled();
  });

  it('refuses a missing header before anything else', async () => {
    const { deps, users } = depsWith(null);
    await expect(authenticateBearer(deps, undefined)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(users.authState).not.toHaveBeenCalled();
  });
});
