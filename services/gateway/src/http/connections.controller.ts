/**
 * Users' own OAuth connections to `oauth2` / `authorization_code`
 * connectors: the consent URL, the provider's callback, and the list.
 *
 * The callback is public (the provider redirects the user's browser here
 * without our bearer token): the signed, expiring, single-use `state` that
 * connector-runtime issued is what identifies the user. A browser gets a
 * small page that tells the opener (`postMessage`) and closes; an API client
 * gets JSON.
 */
import { Controller, Delete, Get, HttpCode, Inject, Param, Query, Req, Res, UseGuards } from '@nestjs/common';
import { AppError, call } from '@af/service-kit';
import type { common, connector } from '@af/contracts';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import { AuthGuard, CurrentUser } from './auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from './deps.js';
import type * as R from './responses/index.js';
import { OAuthCallbackQuery } from './schemas.js';
import { parseBody } from './validation.js';

export const OAUTH_CALLBACK_PATH = '/api/agent-factory/oauth/callback';

export function connectionView(c: connector.UserConnection): z.infer<typeof R.UserConnection> {
  return {
    connection_id: c.connectionId,
    connector_id: c.connectorId,
    provider: c.provider,
    scopes: c.scopes,
    status: c.status as z.infer<typeof R.UserConnection>['status'],
    expires_at: c.expiresAt || null,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

/** The callback URL the provider must send users back to (register it with the OAuth app). */
export function callbackUrl(publicUrl: string | undefined, req: Request): string {
  const base = publicUrl ? publicUrl.replace(/\/+$/, '') : `${req.protocol}://${req.get('host') ?? 'localhost'}`;
  return `${base}${OAUTH_CALLBACK_PATH}`;
}

@Controller('api/agent-factory')
@UseGuards(AuthGuard)
export class ConnectionsController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  @Get('connectors/:id/oauth/auth-url')
  async authUrl(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Req() req: Request) {
    const redirectUri = callbackUrl(this.deps.kit.config.PUBLIC_URL, req);
    const res = await call(this.deps.clients.connectors.beginAuthorization({ principal, connectorId: id, redirectUri }));
    return { auth_url: res.authUrl, expires_at: res.expiresAt, redirect_uri: redirectUri };
  }

  @Get('connections')
  async list(@CurrentUser() principal: common.Principal) {
    const { connections } = await call(this.deps.clients.connectors.listConnections({ principal }));
    return { connections: connections.map(connectionView) };
  }

  @Delete('connections/:id')
  @HttpCode(204)
  async remove(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    await call(this.deps.clients.connectors.deleteConnection({ principal, connectionId: id }));
  }
}

@Controller('api/agent-factory/oauth')
export class OAuthCallbackController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  @Get('callback')
  async callback(@Query() query: unknown, @Req() req: Request, @Res({ passthrough: true }) res: Response) {
    const browser = req.accepts(['application/json', 'text/html']) === 'text/html';
    try {
      const input = parseBody(OAuthCallbackQuery, query);
      const { connection } = await call(
        this.deps.clients.connectors.completeAuthorization({ state: input.state, code: input.code ?? '', error: input.error ?? '' }),
      );
      const view = connectionView(connection!);
      if (browser) {
        res.type('html').setHeader('Content-Security-Policy', CSP);
        return page('Connected', `Your account is connected to ${escapeHtml(view.connector_id)}. You can close this window.`, { type: 'oauth-callback', ok: true, connector_id: view.connector_id });
      }
      return { connection: view };
    } catch (err) {
      if (!browser) throw err;
      const message = err instanceof AppError ? err.message : 'the connection could not be completed';
      res.status(err instanceof AppError && err.code === 'NOT_FOUND' ? 404 : 400).type('html').setHeader('Content-Security-Policy', CSP);
      return page('Not connected', `${escapeHtml(message)}`, { type: 'oauth-callback', ok: false });
    }
  }
}

const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'";

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A small page that tells the window that opened it and closes itself. */
function page(title: string, text: string, message: Record<string, unknown>): string {
  const payload = JSON.stringify(message).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>
<body><main><h1>${title}</h1><p role="status">${text}</p></main>
<script>try { if (window.opener) { window.opener.postMessage(${payload}, window.location.origin); window.close(); } } catch (e) {}</script>
</body></html>`;
}
