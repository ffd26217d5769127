import { Body, Controller, Delete, HttpCode, Inject, Post, Req, UseGuards } from '@nestjs/common';
import type { Request } from 'express';
import { addressKey } from '../domain/login-throttle.js';
import { AuthGuard, CurrentUser } from './auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from './deps.js';
import { DeleteAccountSchema, LoginSchema, RegisterSchema } from './schemas.js';
import { parseBody } from './validation.js';

/** The client's throttling key: req.ip honours TRUST_PROXY (Express `trust proxy`), else the socket's address. */
function clientAddress(req: Request): string {
  return addressKey(req.ip ?? req.socket.remoteAddress);
}

@Controller('api/auth')
export class AuthController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  @Post('register')
  async register(@Body() body: unknown, @Req() req: Request) {
    const input = parseBody(RegisterSchema, body);
    const user = await this.deps.accounts.register.execute({ email: input.email, password: input.password, name: input.name ?? null, address: clientAddress(req) });
    this.deps.kit.log.info({ userId: user.id }, 'user registered');
    return { user: { id: user.id, email: user.email, name: user.name, created_at: user.createdAt.toISOString() } };
  }

  @Post('login')
  @HttpCode(200)
  async login(@Body() body: unknown, @Req() req: Request) {
    const input = parseBody(LoginSchema, body);
    const { user, access } = await this.deps.accounts.login.execute({ email: input.email, password: input.password, address: clientAddress(req) });
    return { access_token: access.token, token_type: 'Bearer', expires_in: access.expiresIn, user: { id: user.id, email: user.email } };
  }

  /** Revoke every token of the caller (this one included): the account's token version goes up. */
  @Post('logout-all')
  @HttpCode(204)
  @UseGuards(AuthGuard)
  async logoutAll(@CurrentUser() principal: { userId: string }) {
    await this.deps.users.bumpTokenVersion(principal.userId);
    this.deps.kit.log.info({ userId: principal.userId }, 'all tokens revoked');
  }

  /** Delete the caller's account; body `{ "password": "…" }` confirms it. */
  @Delete('me')
  @HttpCode(204)
  @UseGuards(AuthGuard)
  async deleteMe(@CurrentUser() principal: { userId: string }, @Body() body: unknown, @Req() req: Request) {
    const input = parseBody(DeleteAccountSchema, body ?? {});
    await this.deps.accounts.deleteAccount.execute({ userId: principal.userId, password: input.password, address: clientAddress(req) });
    this.deps.kit.log.info({ userId: principal.userId }, 'account deleted');
  }
}
