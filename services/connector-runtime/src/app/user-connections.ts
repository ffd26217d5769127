/**
 * Users' own OAuth connections (authorization code with PKCE) to connectors
 * whose auth is `oauth2` / `authorization_code`: the consent URL with a
 * signed, expiring, single-use state; the callback that exchanges the code
 * and stores the tokens encrypted; listing and removing connections. Calls of
 * such a connector then run with the calling user's token
 * (`userConnectionTokenKey`), refreshed like any other OAuth token.
 */
import { randomUUID } from 'node:crypto';
import { AppError, type Logger, type ServiceKit } from '@af/service-kit';
import {
  buildAuthorizeUrl,
  requestOAuthToken,
  userConnectionTokenKey,
  type ConnectorDefinition,
  type HttpRequestFn,
  type OAuth2Auth,
} from '@af/connectors';
import { AUTHORIZATION_TTL_MS, newNonce, pkcePair, signState, verifyState } from '../domain/oauth-state.js';
import type { PgOAuthTokenStore } from '../infra/oauth-token.store.js';
import type { UserConnection, UserConnectionRepository } from '../infra/user-connection.repository.js';
import { requireUser } from './connector-input.js';
import { toAppError } from './connectors.js';

/** A token endpoint gets this long to answer the code exchange. */
const EXCHANGE_TIMEOUT_MS = 30_000;
const MAX_CODE_LENGTH = 4096;

export interface UserConnectionsDeps {
  kit: Pick<ServiceKit, 'transaction'>;
  repo: UserConnectionRepository;
  tokens: Pick<PgOAuthTokenStore, 'put'>;
  /** The caller's saved connector (NOT_FOUND otherwise) and its stored credentials. */
  connector(userId: string, connectorId: string): Promise<{ definition: ConnectorDefinition }>;
  credentials(userId: string, connectorId: string): Promise<Record<string, string>>;
  /** Outbound HTTP through the egress guard of the user's connector. */
  http(userId: string, connectorId: string): HttpRequestFn;
  stateSecret: Buffer;
  log: Logger;
  now?: () => number;
}

export class UserConnections {
  private readonly now: () => number;

  constructor(private readonly deps: UserConnectionsDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** The provider's consent URL for the caller and connector; the state in it is good for 10 minutes, once. */
  async begin(userId: string, connectorId: string, redirectUri: string): Promise<{ authUrl: string; expiresAt: Date }> {
    requireUser(userId);
    if (!connectorId) throw AppError.invalid('connector_id', 'is required');
    checkRedirectUri(redirectUri);
    const auth = codeGrantAuth(connectorId, (await this.deps.connector(userId, connectorId)).definition);
    const clientId = (await this.deps.credentials(userId, connectorId)).client_id;
    if (!clientId) {
      throw new AppError('FAILED_PRECONDITION', `connector "${connectorId}" has no client_id credential stored; add the OAuth app's client_id and client_secret to the connector first`, {
        violations: [{ field: 'credentials.client_id', reason: 'is not stored for this connector' }],
      });
    }
    const nonce = newNonce();
    const { verifier, challenge } = pkcePair();
    const expiresAt = new Date(this.now() + AUTHORIZATION_TTL_MS);
    await this.deps.repo.addPending({ nonce, userId, connectorId, redirectUri, codeVerifier: verifier, expiresAt });
    const state = signState({ nonce, exp: expiresAt.getTime() }, this.deps.stateSecret);
    return { authUrl: buildAuthorizeUrl(auth, clientId, { state, redirectUri, codeChallenge: challenge }), expiresAt };
  }

  /**
   * The provider sent the user back: check the state, take the pending
   * authorization out (whatever happens next, the state cannot be used
   * again), exchange the code and store the connection. Nothing is stored
   * when any check fails.
   */
  async complete(input: { state: string; code: string; error?: string }): Promise<UserConnection> {
    const check = verifyState(input.state, this.deps.stateSecret, this.now());
    if (!check.ok) throw AppError.invalid('state', check.reason);
    const pending = await this.deps.kit.transaction((m) => this.deps.repo.consumePending(m, check.payload.nonce));
    if (!pending) throw AppError.invalid('state', 'was already used or is unknown; start connecting again');
    if (input.error) {
      const shown = input.error.replace(/[^\x20-\x7e]/g, '').slice(0, 64);
      throw new AppError('FAILED_PRECONDITION', `the provider did not grant access (${shown}); nothing was stored`, {
        violations: [{ field: 'error', reason: `the provider answered ${shown}` }],
      });
    }
    if (!input.code) throw AppError.invalid('code', 'is required');
    if (input.code.length > MAX_CODE_LENGTH) throw AppError.invalid('code', `must be at most ${MAX_CODE_LENGTH} characters`);

    const { userId, connectorId } = pending;
    const auth = codeGrantAuth(connectorId, (await this.deps.connector(userId, connectorId)).definition);
    const credentials = await this.deps.credentials(userId, connectorId);
    let token;
    try {
      token = await requestOAuthToken(
        connectorId,
        auth,
        credentials,
        undefined,
        { http: this.deps.http(userId, connectorId), signal: AbortSignal.timeout(EXCHANGE_TIMEOUT_MS), now: this.now },
        { code: input.code, redirectUri: pending.redirectUri, codeVerifier: pending.codeVerifier },
      );
    } catch (err) {
      const app = toAppError(err);
      this.deps.log.warn({ connectorId, code: app.code }, 'oauth code exchange failed');
      throw app;
    }
    const tokenKey = userConnectionTokenKey(userId, connectorId);
    await this.deps.kit.transaction(async (m) => {
      await this.deps.tokens.put(m, tokenKey, token);
      await this.deps.repo.upsertConnection(m, {
        connectionId: randomUUID(),
        userId,
        connectorId,
        provider: new URL(auth.token_url).hostname,
        scopes: auth.scopes ?? [],
        tokenKey,
      });
    });
    this.deps.log.info({ connectorId }, 'oauth connection stored');
    const stored = await this.deps.repo.get(userId, connectorId);
    if (!stored) throw new AppError('INTERNAL', 'the connection was stored but cannot be read back');
    return stored;
  }

  async list(userId: string): Promise<UserConnection[]> {
    requireUser(userId);
    return this.deps.repo.list(userId);
  }

  async delete(userId: string, connectionId: string): Promise<void> {
    requireUser(userId);
    if (!/^[0-9a-f-]{36}$/i.test(connectionId)) throw AppError.notFound('connection', connectionId.slice(0, 64));
    if (!(await this.deps.repo.delete(userId, connectionId))) throw AppError.notFound('connection', connectionId);
  }
}

/** The connector's auth when users connect to it one by one; FAILED_PRECONDITION naming connector_id otherwise. */
function codeGrantAuth(connectorId: string, def: ConnectorDefinition): OAuth2Auth {
  const auth = 'connection' in def ? (def.connection as { auth?: { type: string; grant_type?: string } }).auth : undefined;
  if (!auth || auth.type !== 'oauth2' || auth.grant_type !== 'authorization_code') {
    const what = auth ? (auth.type === 'oauth2' ? `oauth2 with grant_type ${auth.grant_type}` : `${auth.type} auth`) : 'no auth';
    throw new AppError('FAILED_PRECONDITION', `connector "${connectorId}" uses ${what}; only oauth2 authorization_code connectors are connected per user`, {
      violations: [{ field: 'connector_id', reason: 'is not an oauth2 authorization_code connector' }],
    });
  }
  return auth as OAuth2Auth;
}

function checkRedirectUri(value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw AppError.invalid('redirect_uri', 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw AppError.invalid('redirect_uri', 'must use http or https');
  if (url.hash || url.username || url.password) throw AppError.invalid('redirect_uri', 'must not contain a fragment or credentials');
}
