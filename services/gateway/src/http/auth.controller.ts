import { Body, Controller, Delete, Get, HttpCode, Inject, Post, Req, UseGuards } from '@nestjs/common';
import { AppError } from '@af/service-kit';
import type { Request } from 'express';
import { addressKey } from '../domain/login-throttle.js';
import { AuthGuard, CurrentUser } from './auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from './deps.js';
import { DeleteAccountSchema, LoginSchema, RegisterSchema, StreamTokenSchema } from './schemas.js';
import { parseBody } from './validation.js';

/** The client's throttling key: req.ip honours TRUST_PROXY (Express `trust proxy`), else the socket's address. */
function clientAddress(req: Request): string {
  return addressKey(req.ip ?? req.socket.remoteAddress);
}

@Controller('api/auth')
export class AuthController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  /** Whether this deployment lets people register (SIGNUP), so a sign-up page knows what to show. */
  @Get('signup')
  signup() {
    return { signup: this.deps.kit.config.SIGNUP };
  }

  @Post('register')
  async register(@Body() body: unknown, @Req() req: Request) {
    const input = parseBody(RegisterSchema, body);
    const { user, joined } = await this.deps.accounts.register.execute({
      email: input.email,
      password: input.password,
      name: input.name ?? null,
      address: clientAddress(req),
      ...(input.invite_token !== undefined ? { inviteToken: input.invite_token } : {}),
    });
    this.deps.kit.log.info({ userId: user.id, ...(joined ? { teamId: joined.teamId } : {}) }, joined ? 'user registered by invitation' : 'user registered');
    return {
      user: { id: user.id, email: user.email, name: user.name, created_at: user.createdAt.toISOString() },
      ...(joined ? { joined_team: { id: joined.teamId, role: joined.role } } : {}),
    };
  }

  /**
   * A short-lived token for one Server-Sent Events route, for clients that
   * cannot send an Authorization header (a browser's EventSource): open
   * `<path>?stream_token=<token>`.
   */
  @Post('stream-token')
  @HttpCode(201)
  @UseGuards(AuthGuard)
  async streamToken(@CurrentUser() principal: { userId: string }, @Body() body: unknown) {
    const { path } = parseBody(StreamTokenSchema, body);
    const state = await this.deps.users.authState(principal.userId);
    if (!state) throw new AppError('UNAUTHENTICATED', 'account no longer exists');
    const { token, expiresIn } = await this.deps.streamTokens.issue(principal.userId, state.tokenVersion, path);
    return { stream_token: token, expires_in: expiresIn, path, url: `${path}?stream_token=${encodeURIComponent(token)}` };
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
