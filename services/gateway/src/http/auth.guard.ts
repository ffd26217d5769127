import { createParamDecorator, Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { authenticateApiKey } from './api-key.auth.js';
import { GATEWAY_DEPS, type GatewayDeps } from './deps.js';
import { authenticateBearer, authenticateStreamToken, type AuthedUser } from './token-auth.js';

export type { AuthedUser };

type AuthedRequest = Request & { user?: AuthedUser };

/** Requires a valid bearer token of an existing account; attaches the principal to the request. */
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
    // A browser's EventSource cannot send headers: SSE routes also take a stream token in the query.
    const streamToken = req.query?.stream_token;
    if (req.method === 'GET' && req.headers.authorization === undefined && typeof streamToken === 'string') {
      req.user = await authenticateStreamToken(this.deps, streamToken, req.path);
      return true;
    }
    req.user = await authenticateBearer(this.deps, req.headers.authorization);
    return true;
  }
}

/** The authenticated principal, in the shape gRPC requests carry. */
export const CurrentUser = createParamDecorator((_: unknown, ctx: ExecutionContext) => {
  const user = ctx.switchToHttp().getRequest<AuthedRequest>().user!;
  return { userId: user.userId, teamIds: user.teamIds };
});
