import { createParamDecorator, Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { bearerToken } from '../domain/credentials.js';
import { authenticateApiKey } from './api-key.auth.js';
import { GATEWAY_DEPS, type GatewayDeps } from './deps.js';

export interface AuthedUser {
  userId: string;
  teamIds: string[];
  /** Set when an API key (not a login token) authenticated the request. */
  apiKeyId?: string;
}

type AuthedRequest = Request & { user?: AuthedUser };

/** Requires a valid bearer token; attaches the principal to the request. */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    // API keys (other teams' services): their own branch, see api-key.auth.ts.
    const keyUser = await authenticateApiKey(this.deps, req);
    if (keyUser) {
      req.user = keyUser;
      return true;
    }
    const userId = await this.deps.tokens.verify(bearerToken(req.headers.authorization));
    req.user = { userId, teamIds: await this.deps.users.teamIds(userId) };
    return true;
  }
}

/** The authenticated principal, in the shape gRPC requests carry. */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  const user = ctx.switchToHttp().getRequest<AuthedRequest>().user!;
  return { userId: user.userId, teamIds: user.teamIds };
});
