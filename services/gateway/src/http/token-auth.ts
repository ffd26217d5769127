/**
 * The user behind a bearer token (JWT): signature, issuer, audience and
 * expiry (TokenService), then the account itself — it must still exist and
 * the token's version (claim `ver`) must be the account's current one. The
 * account check rides on the statement that reads the user's teams, which
 * the guard needs on every request anyway, so it adds no round trip, needs
 * no cache and takes effect at once on every replica: a deleted account's
 * or a revoked token's next request is 401.
 */
import { AppError } from '@af/service-kit';
import { bearerToken } from '../domain/credentials.js';
import type { GatewayDeps } from './deps.js';

export interface AuthedUser {
  userId: string;
  teamIds: string[];
  /** Set when an API key (not a login token) authenticated the request. */
  apiKeyId?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The principal of a stream token (`?stream_token=`, domain/stream-token.ts)
 * for a GET of `path`, checked against the account like a bearer token.
 */
export async function authenticateStreamToken(deps: Pick<GatewayDeps, 'streamTokens' | 'users'>, token: string, path: string): Promise<AuthedUser> {
  const { userId, version } = await deps.streamTokens.verify(token, path);
  if (!UUID.test(userId)) throw new AppError('UNAUTHENTICATED', 'stream_token is no longer valid (account deleted or tokens revoked)');
  const state = await deps.users.authState(userId);
  if (!state || state.tokenVersion !== version) {
    throw new AppError('UNAUTHENTICATED', 'stream_token is no longer valid (account deleted or tokens revoked)');
  }
  return { userId, teamIds: state.teamIds };
}

/** The principal of `Authorization: Bearer <jwt>`, or UNAUTHENTICATED naming the reason. */
export async function authenticateBearer(deps: Pick<GatewayDeps, 'tokens' | 'users'>, authorization: string | undefined): Promise<AuthedUser> {
  const { userId, version } = await deps.tokens.verify(bearerToken(authorization));
  // Gateway tokens name a user id; anything else cannot be an account.
  if (!UUID.test(userId)) throw new AppError('UNAUTHENTICATED', 'token is no longer valid (account deleted or token revoked)');
  const state = await deps.users.authState(userId);
  if (!state || state.tokenVersion !== version) {
    throw new AppError('UNAUTHENTICATED', 'token is no longer valid (account deleted or token revoked)');
  }
  return { userId, teamIds: state.teamIds };
}
