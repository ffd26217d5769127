/**
 * OAuth2 for `rest_api` connectors (`connection.auth.type: oauth2`): the
 * token request (RFC 6749 §4.4 client credentials, §6 refresh token) and the
 * per-call session that gets a usable access token from the shared
 * `OAuthTokenCache`.
 *
 * Seed ("How Tools Use Connector Tokens"): a fresh token is looked up on
 * every call and refreshed transparently when it expires within 120 s.
 * Refresh tokens may be single-use: when the token endpoint returns a new
 * `refresh_token` it is stored and used next time, and the cache serialises
 * refreshes per key so two callers never spend the same one. A 401 from the
 * API forces one refresh (unless another caller already replaced the
 * rejected token) and one retry.
 */
import { createHash } from 'node:crypto';
import type { ConnectorAuth } from './connector-definition.schema.js';
import { ConnectorError } from './connector-error.js';
import type { HttpRequestFn, OAuthTokenCache, StoredOAuthToken } from './connector-type.js';
import { describeNetworkError, errorForStatus, readBody, snippet } from './http-failure.js';
import { tokenNeedsRefresh } from './oauth-token-cache.js';
import { redactSecrets } from './redaction.js';
import {
  basicCredentials,
  credentialSecrets,
  formEncode,
  type ConnectorCredentials,
} from './types/rest-api/rest-request.js';

/** Seed 001 `token_manager`: refresh when the token expires within 120 s. */
export const OAUTH_REFRESH_BUFFER_MS = 120_000;
/** Token responses are small; anything larger is refused. */
export const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;
const ERROR_BODY_BYTES = 4096;
/** OAuth error codes (RFC 6749 §5.2) that mean the stored grant or client is no longer accepted. */
const REAUTH_ERRORS = new Set(['invalid_grant', 'invalid_client', 'unauthorized_client']);

export type OAuth2Auth = Extract<ConnectorAuth, { type: 'oauth2' }>;

/** The I/O a token request uses. */
export interface TokenRequestIo {
  http: HttpRequestFn;
  /** The call's signal (its deadline and the caller's cancel). */
  signal: AbortSignal;
  now: () => number;
  /** Told the (display) URL before the request goes out, so a timeout can name it. */
  onRequest?: (displayUrl: string) => void;
}

/** Cache keys of one owner's connector start with this (for deleting them with the connector). */
export function oauthCacheKeyPrefix(ownerUserId: string | undefined, connectorId: string): string {
  return `oauth2:${encodeURIComponent(ownerUserId ?? '')}:${encodeURIComponent(connectorId)}:`;
}

/**
 * Where the calling user's own token of an `authorization_code` connector is
 * kept (one per user and connector; written when the user connects).
 */
export function userConnectionTokenKey(userId: string, connectorId: string): string {
  return `oauth2-user:${encodeURIComponent(userId)}:${encodeURIComponent(connectorId)}`;
}

/**
 * The provider's consent page for one authorization (RFC 6749 §4.1.1 with
 * PKCE S256, RFC 7636 §4.3). Query parameters already on `authorize_url`
 * (such as `access_type=offline`) are kept.
 */
export function buildAuthorizeUrl(
  auth: OAuth2Auth,
  clientId: string,
  request: { state: string; redirectUri: string; codeChallenge: string },
): string {
  if (auth.grant_type !== 'authorization_code' || auth.authorize_url === undefined) {
    throw new ConnectorError('FAILED_PRECONDITION', 'only an oauth2 authorization_code connector has a consent page');
  }
  const url = new URL(auth.authorize_url);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', clientId);
  url.searchParams.set('redirect_uri', request.redirectUri);
  if (auth.scopes && auth.scopes.length > 0) url.searchParams.set('scope', auth.scopes.join(' '));
  url.searchParams.set('state', request.state);
  url.searchParams.set('code_challenge', request.codeChallenge);
  url.searchParams.set('code_challenge_method', 'S256');
  return url.toString();
}

/** An authorization code to exchange (RFC 6749 §4.1.3), with its PKCE verifier. */
export interface AuthorizationCodeGrant {
  code: string;
  redirectUri: string;
  codeVerifier: string;
}

/**
 * The cache key of a connector's token: owner and connector id plus a digest
 * of the grant settings and stored credentials, so re-connecting (new
 * credentials) or changing token_url / scopes starts from a fresh token
 * instead of a rotated refresh token of the old grant.
 */
export function oauthCacheKey(
  ownerUserId: string | undefined,
  connectorId: string,
  auth: OAuth2Auth,
  credentials: ConnectorCredentials,
): string {
  const digest = createHash('sha256')
    .update(
      JSON.stringify([
        auth.token_url,
        auth.grant_type,
        auth.scopes ?? [],
        auth.client_auth,
        credentials.client_id ?? '',
        credentials.client_secret ?? '',
        credentials.refresh_token ?? '',
      ]),
    )
    .digest('base64url')
    .slice(0, 32);
  return `${oauthCacheKeyPrefix(ownerUserId, connectorId)}${digest}`;
}

/**
 * The token-store key a call uses: the calling user's own connection for
 * `authorization_code`, the owner's grant (`oauthCacheKey`) otherwise.
 */
export function oauthTokenKey(
  ownerUserId: string | undefined,
  connectorId: string,
  auth: OAuth2Auth,
  credentials: ConnectorCredentials,
): string {
  return auth.grant_type === 'authorization_code'
    ? userConnectionTokenKey(ownerUserId ?? '', connectorId)
    : oauthCacheKey(ownerUserId, connectorId, auth, credentials);
}

/** Every encoding of a token value we might see echoed. */
export function tokenSecrets(token: StoredOAuthToken | undefined): string[] {
  if (!token) return [];
  return [token.accessToken, token.refreshToken]
    .filter((v): v is string => typeof v === 'string' && v !== '')
    .flatMap((v) => [v, encodeURIComponent(v), formEncode(v)]);
}

/** Origin and path of a URL (no query string), for messages. */
export function displayUrlOf(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
}

/**
 * Asks the token endpoint for a new access token. For the refresh_token
 * grant the refresh token is `current.refreshToken` (the latest rotated one)
 * or else the stored credential. Throws ConnectorError: AUTH_FAILED when the
 * endpoint refuses the grant or client (re-authentication needed),
 * UPSTREAM_ERROR for an unusable answer, and the usual status mapping
 * otherwise. Network failures become UNAVAILABLE, except when `io.signal`
 * fired: then the raw error is rethrown for the caller to report as TIMEOUT
 * or CANCELLED.
 */
export async function requestOAuthToken(
  connectorId: string,
  auth: OAuth2Auth,
  credentials: ConnectorCredentials,
  current: StoredOAuthToken | undefined,
  io: TokenRequestIo,
  exchange?: AuthorizationCodeGrant,
): Promise<StoredOAuthToken> {
  const label = `${connectorId} token`;
  // An authorization_code connector exchanges a code once, then refreshes.
  const grantType =
    exchange !== undefined ? 'authorization_code' : auth.grant_type === 'authorization_code' ? 'refresh_token' : auth.grant_type;
  const display = displayUrlOf(auth.token_url);
  const clientId = credentials.client_id as string;
  const clientSecret = credentials.client_secret as string;
  const refreshToken = current?.refreshToken ?? credentials.refresh_token;
  const secrets = [...credentialSecrets(credentials), ...tokenSecrets(current)];
  if (refreshToken !== undefined)
    secrets.push(refreshToken, encodeURIComponent(refreshToken), formEncode(refreshToken));

  const form: Array<[string, string]> = [['grant_type', grantType]];
  if (exchange !== undefined) {
    secrets.push(exchange.code, exchange.codeVerifier);
    form.push(['code', exchange.code], ['redirect_uri', exchange.redirectUri], ['code_verifier', exchange.codeVerifier]);
  } else if (grantType === 'refresh_token' && auth.grant_type === 'authorization_code') {
    if (refreshToken === undefined || refreshToken === '') {
      throw new ConnectorError(
        'AUTH_FAILED',
        `connector "${connectorId}": your connection's access token has expired and the provider gave no refresh token; connect again`,
      );
    }
    form.push(['refresh_token', refreshToken]);
  } else if (grantType === 'refresh_token') {
    if (refreshToken === undefined || refreshToken === '') {
      throw new ConnectorError(
        'FAILED_PRECONDITION',
        `connector "${connectorId}" needs the credential "refresh_token" for the oauth2 refresh_token grant, and none is stored`,
      );
    }
    form.push(['refresh_token', refreshToken]);
  }
  if (exchange === undefined && auth.scopes && auth.scopes.length > 0) form.push(['scope', auth.scopes.join(' ')]);
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-type': 'application/x-www-form-urlencoded',
  };
  if (auth.client_auth === 'basic') {
    const encoded = basicCredentials(clientId, clientSecret);
    headers.authorization = `Basic ${encoded}`;
    secrets.push(encoded);
  } else {
    form.push(['client_id', clientId], ['client_secret', clientSecret]);
  }
  const body = form.map(([k, v]) => `${formEncode(k)}=${formEncode(v)}`).join('&');

  io.onRequest?.(display);
  let res: Awaited<ReturnType<HttpRequestFn>>;
  let text: string;
  try {
    res = await io.http(auth.token_url, { method: 'POST', headers, body, signal: io.signal });
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    text = await readBody(
      res.body,
      ok ? MAX_TOKEN_RESPONSE_BYTES : ERROR_BODY_BYTES,
      label,
      ok ? 'fail' : 'truncate',
    );
  } catch (err) {
    if (err instanceof ConnectorError) throw err;
    if (io.signal.aborted) throw err;
    throw new ConnectorError(
      'UNAVAILABLE',
      redactSecrets(
        `${label}: could not reach the token endpoint ${display}: ${describeNetworkError(err)}`,
        secrets,
      ),
    );
  }

  const status = res.statusCode;
  if (status < 200 || status >= 300) {
    const oauthError = oauthErrorCode(text);
    const excerpt = snippet(redactSecrets(text, secrets));
    if (status === 401 || status === 403 || (oauthError !== undefined && REAUTH_ERRORS.has(oauthError))) {
      const why = oauthError !== undefined ? ` (${oauthError})` : '';
      throw new ConnectorError(
        'AUTH_FAILED',
        `${label}: the token endpoint refused the ${grantType} grant${why}; the connector needs re-authentication (HTTP ${status} from ${display})${excerpt ? `: ${excerpt}` : ''}`,
        { status },
      );
    }
    throw errorForStatus(status, res.headers, { label, displayUrl: display, bodySnippet: excerpt });
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConnectorError(
      'UPSTREAM_ERROR',
      `${label}: the token endpoint ${display} answered with something that is not JSON`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConnectorError(
      'UPSTREAM_ERROR',
      `${label}: the token endpoint ${display} answered with JSON that is not an object`,
    );
  }
  const answer = parsed as Record<string, unknown>;
  const accessToken = answer.access_token;
  if (typeof accessToken !== 'string' || accessToken === '') {
    throw new ConnectorError(
      'UPSTREAM_ERROR',
      `${label}: the token endpoint ${display} answered without an access_token`,
    );
  }
  const tokenType = answer.token_type;
  if (tokenType !== undefined && (typeof tokenType !== 'string' || tokenType.toLowerCase() !== 'bearer')) {
    const shown = typeof tokenType === 'string' ? JSON.stringify(tokenType.slice(0, 20)) : typeof tokenType;
    throw new ConnectorError(
      'UPSTREAM_ERROR',
      `${label}: the token endpoint ${display} issued a token of type ${redactSecrets(shown, [...secrets, accessToken])}; only bearer tokens are supported`,
    );
  }
  const token: StoredOAuthToken = { accessToken, tokenType: 'Bearer' };
  const expiresIn = toSeconds(answer.expires_in);
  if (expiresIn !== undefined) token.expiresAt = io.now() + expiresIn * 1000;
  const rotated = answer.refresh_token;
  if (typeof rotated === 'string' && rotated !== '') token.refreshToken = rotated;
  else if (refreshToken !== undefined && refreshToken !== '') token.refreshToken = refreshToken;
  return token;
}

/** `expires_in` as a non-negative number of seconds (some servers send a numeric string). */
function toSeconds(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+(?:\.\d+)?$/.test(value.trim()) ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** The RFC 6749 §5.2 `error` code of an error body, when it is one (printable, short). */
function oauthErrorCode(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    const code = body?.error;
    return typeof code === 'string' && /^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(code) ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One call's view of a connector's OAuth2 token: asks the shared cache only
 * when its local copy is missing or due, and after a 401.
 */
export class OAuthSession {
  private token: StoredOAuthToken | undefined;
  private readonly seen: string[] = [];

  constructor(
    private readonly connectorId: string,
    private readonly auth: OAuth2Auth,
    private readonly credentials: ConnectorCredentials,
    private readonly cache: OAuthTokenCache,
    private readonly key: string,
    private readonly io: TokenRequestIo,
  ) {}

  /** Token values this session has handled (every encoding), to scrub from messages. */
  get secrets(): string[] {
    return [...this.seen];
  }

  /** A usable access token (refreshed through the cache when missing or expiring within 120 s). */
  async accessToken(): Promise<string> {
    if (this.token && !tokenNeedsRefresh(this.token, OAUTH_REFRESH_BUFFER_MS, this.io.now())) {
      return this.token.accessToken;
    }
    return (await this.fromCache(undefined)).accessToken;
  }

  /**
   * The API answered 401 to `rejected`: a new token, unless another caller
   * has already replaced it in the cache (then that one, without spending
   * another refresh).
   */
  async replaceRejected(rejected: string): Promise<string> {
    return (await this.fromCache(rejected)).accessToken;
  }

  private async fromCache(rejected: string | undefined): Promise<StoredOAuthToken> {
    let token: StoredOAuthToken;
    try {
      token = await this.cache.getOrRefresh(
        this.key,
        OAUTH_REFRESH_BUFFER_MS,
        async (current) => {
          this.remember(current);
          if (current === undefined && this.auth.grant_type === 'authorization_code') {
            throw new ConnectorError(
              'FAILED_PRECONDITION',
              `connector "${this.connectorId}" acts as each user through OAuth and you have not connected your account yet: ` +
                `open GET /api/agent-factory/connectors/${this.connectorId}/oauth/auth-url and approve access`,
              { violations: [{ field: 'connector_id', reason: 'you have no OAuth connection for this connector' }] },
            );
          }
          if (
            rejected !== undefined &&
            current !== undefined &&
            current.accessToken !== rejected &&
            !tokenNeedsRefresh(current, OAUTH_REFRESH_BUFFER_MS, this.io.now())
          ) {
            return current;
          }
          const next = await requestOAuthToken(
            this.connectorId,
            this.auth,
            this.credentials,
            current,
            this.io,
          );
          this.remember(next);
          return next;
        },
        rejected !== undefined ? { force: true } : undefined,
      );
    } catch (err) {
      if (err instanceof ConnectorError || this.io.signal.aborted) throw err;
      const message = err instanceof Error ? err.message : String(err);
      throw new ConnectorError(
        'UNAVAILABLE',
        redactSecrets(`${this.connectorId}: the OAuth token store failed: ${message}`, [
          ...credentialSecrets(this.credentials),
          ...this.seen,
        ]),
      );
    }
    this.remember(token);
    if (typeof token?.accessToken !== 'string' || token.accessToken === '') {
      throw new ConnectorError(
        'UNAVAILABLE',
        `${this.connectorId}: the OAuth token store returned no access token`,
      );
    }
    this.token = token;
    return token;
  }

  private remember(token: StoredOAuthToken | undefined): void {
    for (const s of tokenSecrets(token)) if (!this.seen.includes(s)) this.seen.push(s);
  }
}
