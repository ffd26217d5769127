/**
 * API keys for other teams' services: create one (the key is in this answer
 * only), list yours, revoke one (effective on the next request). A key
 * authenticates HTTP calls as its user (auth.guard → api-key.auth.ts) and is
 * exchanged at POST /api/v1/auth/service-token for a short-lived principal
 * token, which calls our gRPC services directly (docs/security/service-auth.md).
 */
import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req, UseGuards } from '@nestjs/common';
import type { Request } from 'express';
import { AppError, PRINCIPAL_TOKEN_METADATA } from '@af/service-kit';
import { ApiKeyPathSchema, CreateApiKeySchema } from '../domain/api-keys.js';
import type { ApiKeyView } from '../infra/api-keys.repository.js';
import { requireLogin } from './api-key.auth.js';
import { AuthGuard, type AuthedUser } from './auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from './deps.js';
import { parseBody } from './validation.js';

type Authed = Request & { user: AuthedUser };

function keyView(k: ApiKeyView) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    team_id: k.teamId,
    created_at: k.createdAt.toISOString(),
    expires_at: k.expiresAt?.toISOString() ?? null,
    revoked_at: k.revokedAt?.toISOString() ?? null,
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
  };
}

@Controller('api/v1/api-keys')
@UseGuards(AuthGuard)
export class ApiKeysController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  /** 201 with `key` (shown once) and the key's listing entry. */
  @Post()
  async create(@Req() req: Authed, @Body() body: unknown) {
    requireLogin(req.user, 'creating an API key');
    const input = parseBody(CreateApiKeySchema, body);
    const { key, view } = await this.deps.apiKeys.create(req.user.userId, { name: input.name, teamId: input.team_id, expiresInDays: input.expires_in_days });
    this.deps.kit.log.info({ userId: req.user.userId, apiKeyId: view.id, teamId: view.teamId }, 'API key created');
    return { key, api_key: keyView(view) };
  }

  @Get()
  async list(@Req() req: Authed) {
    requireLogin(req.user, 'listing API keys');
    return { api_keys: (await this.deps.apiKeys.list(req.user.userId)).map(keyView) };
  }

  @Delete(':id')
  async revoke(@Req() req: Authed, @Param() params: unknown) {
    requireLogin(req.user, 'revoking an API key');
    const { id } = parseBody(ApiKeyPathSchema, params);
    const view = await this.deps.apiKeys.revoke(req.user.userId, id);
    this.deps.kit.log.info({ userId: req.user.userId, apiKeyId: id }, 'API key revoked');
    return { api_key: keyView(view) };
  }
}

@Controller('api/v1/auth')
@UseGuards(AuthGuard)
export class ServiceTokenController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  /**
   * An API key → a principal token of its user (and team restriction) for
   * SERVICE_TOKEN_TTL_SECONDS, to send as `af-principal-token` gRPC metadata.
   */
  @Post('service-token')
  @HttpCode(200)
  exchange(@Req() req: Authed) {
    if (!req.user.apiKeyId) throw new AppError('PERMISSION_DENIED', 'a service token is issued for an API key: authenticate with X-API-Key or "Authorization: Bearer afk_…"');
    const ttl = this.deps.kit.config.SERVICE_TOKEN_TTL_SECONDS;
    const token = this.deps.serviceAuth.mintFor({ userId: req.user.userId, teamIds: req.user.teamIds }, ttl);
    this.deps.kit.log.info({ userId: req.user.userId, apiKeyId: req.user.apiKeyId }, 'service token issued');
    return { token, token_type: 'principal', metadata_key: PRINCIPAL_TOKEN_METADATA, expires_in: ttl, principal: { user_id: req.user.userId, team_ids: req.user.teamIds } };
  }
}
