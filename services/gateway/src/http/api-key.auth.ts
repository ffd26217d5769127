/**
 * The API-key branch of the gateway's authentication, kept apart from the
 * JWT path: a request presenting `X-API-Key: afk_…` or
 * `Authorization: Bearer afk_…` is authenticated by the key alone (its user,
 * restricted to its team when it has one); anything else is left to the JWT
 * check.
 */
import type { Request } from 'express';
import { AppError } from '@af/service-kit';
import { apiKeyFromHeaders } from '../domain/api-keys.js';
import type { GatewayDeps } from './deps.js';

export interface ApiKeyUser {
  userId: string;
  teamIds: string[];
  /** Set when the request was authenticated by an API key. */
  apiKeyId: string;
}

/** The key's principal; undefined when the request carries no API key; UNAUTHENTICATED for a bad one. */
export async function authenticateApiKey(deps: Pick<GatewayDeps, 'apiKeys'>, req: Request): Promise<ApiKeyUser | undefined> {
  const key = apiKeyFromHeaders(req.headers as Parameters<typeof apiKeyFromHeaders>[0]);
  if (key === undefined) return undefined;
  return deps.apiKeys.authenticate(key);
}

/** Keys cannot manage keys: a (team-scoped) key must not mint itself a broader one. */
export function requireLogin(user: { apiKeyId?: string | undefined } | undefined, action: string): void {
  if (user?.apiKeyId) throw new AppError('PERMISSION_DENIED', `${action} needs a login token, not an API key`);
}
