/**
 * OAuth2 token requests, rotation and the per-call session, with a scripted
 * HTTP function standing in for the token endpoint (the real-server tests
 * are in test/integration/oauth*.int-spec.ts).
 */
import { Readable } from 'node:stream';
import { parseConnectorDefinition } from './connector-definition.js';
import type { RestApiConnectorDefinition } from './connector-definition.schema.js';
import type { HttpRequestFn, OAuthTokenCache, StoredOAuthToken } from './connector-type.js';
import {
  OAUTH_REFRESH_BUFFER_MS,
  OAuthSession,
  oauthCacheKey,
  oauthCacheKeyPrefix,
  buildAuthorizeUrl,
  oauthTokenKey,
  requestOAuthToken,
  userConnectionTokenKey,
  type OAuth2Auth,
  type TokenRequestIo,
} from './oauth.js';
import { InMemoryOAuthTokenCache } from './oauth-token-cache.js';
import { failure } from './testing.js';

const CREDS = { client_id: 'client-1', client_secret: 'sec+ret/=1', refresh_token: 'rt-0' };
const TOKEN_URL = 'https://auth.acme.test/oauth/token?tenant=t1';

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  form: URLSearchParams;
}

interface Answer {
  status?: number;
  json?: unknown;
  body?: string;
  headers?: Record<string, string>;
}

/** An undici-`request`-shaped function answering from `script`, recording what was sent. */
function scriptedHttp(script: (sent: Sent, n: number) => Answer | Promise<Answer>) {
  const sent: Sent[] = [];
  const http = (async (
    url: string,
    options: { method: string; headers: Record<string, string>; body: string },
  ) => {
    const s: Sent = {
      url,
      method: options.method,
      headers: options.headers,
      form: new URLSearchParams(options.body),
    };
    sent.push(s);
    const answer = await script(s, sent.length);
    const text = answer.body ?? (answer.json !== undefined ? JSON.stringify(answer.json) : '');
    return {
      statusCode: answer.status ?? 200,
      headers: answer.headers ?? {},
      body: Readable.from([Buffer.from(text)]),
    };
  }) as unknown as HttpRequestFn;
  return { http, sent };
}

function auth(patch: Partial<OAuth2Auth> = {}): OAuth2Auth {
  return { type: 'oauth2', grant_type: 'refresh_token', token_url: TOKEN_URL, client_auth: 'body', ...patch };
}

function io(
  http: HttpRequestFn,
  now = () => 1_000_000,
  signal = new AbortController().signal,
): TokenRequestIo {
  return { http, signal, now };
}


describe('requestOAuthToken', () => {
  it('client_credentials with client auth in the body: form fields, scopes, no Authorization header', async () => {
    const { http, sent } = scriptedHttp(() => ({
      json: { access_token: 'at-1', token_type: 'bearer', expires_in: 3600 },
    }));

    const token = await requestOAuthToken(
      'acme',
      auth({ grant_type: 'client_credentials', scopes: ['read', 'write:all'] }),
      { client_id: 'client-1', client_secret: 'sec+ret/=1' },
      undefined,
      io(http),
    );

    expect(token).toEqual({ accessToken: 'at-1', tokenType: 'Bearer', expiresAt: 1_000_000 + 3_600_000 });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ url: TOKEN_URL, method: 'POST' });
    expect(sent[0]?.headers).toEqual({
      accept: 'application/json',
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(Object.fromEntries(sent[0]!.form)).toEqual({
      grant_type: 'client_credentials',
      scope: 'read write:all',
      client_id: 'client-1',
      client_secret: 'sec+ret/=1',
    });
  });

  it('client auth basic: credentials in an Authorization header, not in the form', async () => {
    const { http, sent } = scriptedHttp(() => ({ json: { access_token: 'at' } }));

    await requestOAuthToken(
      'acme',
      auth({ grant_type: 'client_credentials', client_auth: 'basic' }),
      CREDS,
      undefined,
      io(http),
    );

    expect(sent[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from('client-1:sec+ret/=1').toString('base64')}`,
    );
    expect(Object.fromEntries(sent[0]!.form)).toEqual({ grant_type: 'client_credentials' });
  });

  it('refresh_token grant: spends the stored refresh token first, then the latest rotated one', async () => {
    const { http, sent } = scriptedHttp((_s, n) => ({
      json: { access_token: `at-${n}`, refresh_token: `rt-${n}`, expires_in: '60' },
    }));

    const first = await requestOAuthToken('acme', auth(), CREDS, undefined, io(http));
    const second = await requestOAuthToken('acme', auth(), CREDS, first, io(http));

    expect(sent.map((s) => s.form.get('refresh_token'))).toEqual(['rt-0', 'rt-1']);
    expect(sent[0]?.form.get('grant_type')).toBe('refresh_token');
    expect(first).toEqual({
      accessToken: 'at-1',
      refreshToken: 'rt-1',
      tokenType: 'Bearer',
      expiresAt: 1_060_000,
    });
    expect(second.refreshToken).toBe('rt-2');
  });

  it('keeps the previous refresh token when the server does not rotate; no expiry without expires_in', async () => {
    const { http } = scriptedHttp(() => ({ json: { access_token: 'at', refresh_token: '' } }));

    expect(
      await requestOAuthToken('acme', auth(), CREDS, { accessToken: 'old', refreshToken: 'rt-7' }, io(http)),
    ).toEqual({
      accessToken: 'at',
      refreshToken: 'rt-7',
      tokenType: 'Bearer',
    });
    expect(await requestOAuthToken('acme', auth(), CREDS, undefined, io(http))).toMatchObject({
      refreshToken: 'rt-0',
    });
  });

  it('FAILED_PRECONDITION for the refresh_token grant without any refresh token', async () => {
    const { http, sent } = scriptedHttp(() => ({ json: { access_token: 'at' } }));
    const err = await failure(
      requestOAuthToken('acme', auth(), { client_id: 'c', client_secret: 's' }, undefined, io(http)),
    );
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(sent).toHaveLength(0);
  });

  it.each([
    [400, { error: 'invalid_grant', error_description: 'refresh token rt-0 was already used' }],
    [400, { error: 'invalid_client' }],
    [401, { error: 'whatever' }],
    [403, {}],
  ])('AUTH_FAILED (re-authenticate) for HTTP %i %j, secrets scrubbed', async (status, json) => {
    const { http } = scriptedHttp(() => ({ status, json }));

    const err = await failure(requestOAuthToken('acme', auth(), CREDS, undefined, io(http)));

    expect(err).toMatchObject({ code: 'AUTH_FAILED', status, retryable: false });
    expect(err.message).toContain('needs re-authentication');
    expect(err.message).toContain('https://auth.acme.test/oauth/token');
    expect(err.message).not.toContain('tenant=');
    expect(err.message).not.toContain('rt-0');
    if (typeof (json as { error?: string }).error === 'string' && status === 400) {
      expect(err.message).toContain(`(${(json as { error: string }).error})`);
    }
  });

  it.each([
    [500, 'UNAVAILABLE', true],
    [429, 'RATE_LIMIT', true],
    [400, 'INVALID_ARGUMENT', false],
  ])('HTTP %i from the token endpoint → %s', async (status, code, retryable) => {
    const { http } = scriptedHttp(() => ({
      status,
      json: { error: 'invalid_scope' },
      headers: { 'retry-after': '7' },
    }));
    const err = await failure(requestOAuthToken('acme', auth(), CREDS, undefined, io(http)));
    expect(err).toMatchObject({ code, retryable });
    if (code === 'RATE_LIMIT') expect(err.retryAfterMs).toBe(7000);
  });

  it.each([
    ['not JSON', { body: '<html>oops</html>' }, 'not JSON'],
    ['a JSON list', { json: [1] }, 'not an object'],
    ['no access_token', { json: { token_type: 'bearer' } }, 'without an access_token'],
    ['an empty access_token', { json: { access_token: '' } }, 'without an access_token'],
    ['a mac token', { json: { access_token: 'at', token_type: 'mac' } }, 'type "mac"; only bearer'],
    ['an oversized answer', { body: `{"access_token":"${'x'.repeat(70_000)}"}` }, 'larger than'],
  ])('UPSTREAM_ERROR for %s', async (_label, answer, reason) => {
    const { http } = scriptedHttp(() => answer);
    const err = await failure(requestOAuthToken('acme', auth(), CREDS, undefined, io(http)));
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toContain(reason);
  });

  it('UNAVAILABLE for a network failure, without the secrets in the message', async () => {
    const http = (async () => {
      throw Object.assign(new Error(`connect ECONNREFUSED (sent client_secret=${CREDS.client_secret})`), {
        code: 'ECONNREFUSED',
      });
    }) as unknown as HttpRequestFn;
    const err = await failure(requestOAuthToken('acme', auth(), CREDS, undefined, io(http)));
    expect(err.code).toBe('UNAVAILABLE');
    expect(err.message).toContain('could not reach the token endpoint');
    expect(err.message).not.toContain(CREDS.client_secret);
  });

  it('rethrows the raw error when the call was aborted (the executor reports TIMEOUT/CANCELLED)', async () => {
    const controller = new AbortController();
    const abortError = new Error('aborted');
    const http = (async () => {
      controller.abort();
      throw abortError;
    }) as unknown as HttpRequestFn;
    await expect(
      requestOAuthToken(
        'acme',
        auth(),
        CREDS,
        undefined,
        io(http, () => 0, controller.signal),
      ),
    ).rejects.toBe(abortError);
  });
});

describe('oauthCacheKey', () => {
  const a = auth();
  it('is stable, scoped by owner and connector, and changes with the grant or stored credentials', () => {
    const key = oauthCacheKey('alice', 'acme', a, CREDS);
    expect(oauthCacheKey('alice', 'acme', a, { ...CREDS })).toBe(key);
    expect(key.startsWith(oauthCacheKeyPrefix('alice', 'acme'))).toBe(true);
    const others = [
      oauthCacheKey('bob', 'acme', a, CREDS),
      oauthCacheKey(undefined, 'acme', a, CREDS),
      oauthCacheKey('alice', 'acme-2', a, CREDS),
      oauthCacheKey('alice', 'acme', auth({ scopes: ['x'] }), CREDS),
      oauthCacheKey('alice', 'acme', auth({ token_url: 'https://other.test/t' }), CREDS),
      oauthCacheKey('alice', 'acme', a, { ...CREDS, refresh_token: 'reconnected' }),
      oauthCacheKey('alice', 'acme', a, { ...CREDS, client_secret: 'rotated' }),
    ];
    expect(new Set([key, ...others]).size).toBe(others.length + 1);
  });

  it('holds no credential value, and owner ids cannot be confused by ":"', () => {
    const key = oauthCacheKey('alice', 'acme', a, CREDS);
    for (const v of Object.values(CREDS)) expect(key).not.toContain(v);
    expect(oauthCacheKeyPrefix('a:b', 'c')).not.toBe(oauthCacheKeyPrefix('a', 'b:c'));
  });
});

describe('OAuthSession', () => {
  let now = 1_000_000;
  const clock = () => now;
  beforeEach(() => {
    now = 1_000_000;
  });

  /** The token endpoint: each refresh issues at-N / rt-N valid for 1 h and refuses spent refresh tokens. */
  function rotatingServer() {
    const spent = new Set<string>();
    return scriptedHttp((s, n) => {
      const rt = s.form.get('refresh_token') ?? '';
      if (spent.has(rt)) return { status: 400, json: { error: 'invalid_grant' } };
      spent.add(rt);
      return { json: { access_token: `at-${n}`, refresh_token: `rt-${n}`, expires_in: 3600 } };
    });
  }

  function session(cache: OAuthTokenCache, http: HttpRequestFn, signal = new AbortController().signal) {
    return new OAuthSession('acme', auth(), CREDS, cache, 'k', { http, signal, now: clock });
  }

  it('gets a token once and reuses it locally and through the cache while it is fresh', async () => {
    const { http, sent } = rotatingServer();
    const cache = new InMemoryOAuthTokenCache(clock);
    const s = session(cache, http);

    expect(await s.accessToken()).toBe('at-1');
    expect(await s.accessToken()).toBe('at-1');
    expect(await session(cache, http).accessToken()).toBe('at-1');
    expect(sent).toHaveLength(1);
    expect(cache.peek('k')).toEqual({
      accessToken: 'at-1',
      refreshToken: 'rt-1',
      tokenType: 'Bearer',
      expiresAt: now + 3_600_000,
    });
  });

  it('refreshes 120 s before expiry (not earlier), spending the rotated refresh token', async () => {
    const { http, sent } = rotatingServer();
    const cache = new InMemoryOAuthTokenCache(clock);
    const s = session(cache, http);
    await s.accessToken();

    now += 3_600_000 - OAUTH_REFRESH_BUFFER_MS - 1;
    expect(await s.accessToken()).toBe('at-1');
    now += 1;
    expect(await s.accessToken()).toBe('at-2');
    now += 3_600_000;
    expect(await s.accessToken()).toBe('at-3');

    expect(sent.map((x) => x.form.get('refresh_token'))).toEqual(['rt-0', 'rt-1', 'rt-2']);
    expect(cache.peek('k')?.refreshToken).toBe('rt-3');
  });

  it('after a 401 gets a new token once; a second rejection of the old token reuses the replacement', async () => {
    const { http, sent } = rotatingServer();
    const cache = new InMemoryOAuthTokenCache(clock);
    const a = session(cache, http);
    const b = session(cache, http);
    expect(await a.accessToken()).toBe('at-1');
    expect(await b.accessToken()).toBe('at-1');

    // Both callers saw at-1 refused: only the first spends a refresh.
    expect(await a.replaceRejected('at-1')).toBe('at-2');
    expect(await b.replaceRejected('at-1')).toBe('at-2');
    expect(sent).toHaveLength(2);
    // A rejection of the current token does refresh again.
    expect(await b.replaceRejected('at-2')).toBe('at-3');
  });

  it('concurrent sessions on one cache spend a single-use refresh token once', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const spent: string[] = [];
    const { http } = scriptedHttp(async (s, n) => {
      await gate;
      spent.push(s.form.get('refresh_token') ?? '');
      return { json: { access_token: `at-${n}`, refresh_token: `rt-${n}`, expires_in: 3600 } };
    });
    const cache = new InMemoryOAuthTokenCache(clock);
    const pending = Array.from({ length: 5 }, () => session(cache, http).accessToken());
    release();
    expect(await Promise.all(pending)).toEqual(['at-1', 'at-1', 'at-1', 'at-1', 'at-1']);
    expect(spent).toEqual(['rt-0']);
  });

  it('collects every token it handled as secrets', async () => {
    const { http } = rotatingServer();
    const s = session(new InMemoryOAuthTokenCache(clock), http);
    await s.accessToken();
    expect(s.secrets).toEqual(expect.arrayContaining(['at-1', 'rt-1']));
  });

  it('a failing token store becomes UNAVAILABLE without secrets; ConnectorErrors pass through', async () => {
    const broken: OAuthTokenCache = {
      getOrRefresh: async () => {
        throw new Error(`pool exhausted while storing ${CREDS.client_secret}`);
      },
    };
    const err = await failure(session(broken, rotatingServer().http).accessToken());
    expect(err.code).toBe('UNAVAILABLE');
    expect(err.message).toContain('OAuth token store failed');
    expect(err.message).not.toContain(CREDS.client_secret);

    const refusing: OAuthTokenCache = {
      getOrRefresh: async (_k, _b, refresh) => refresh(undefined),
    };
    const { http } = scriptedHttp(() => ({ status: 400, json: { error: 'invalid_grant' } }));
    expect((await failure(session(refusing, http).accessToken())).code).toBe('AUTH_FAILED');
  });

  it('refuses a store answer without an access token', async () => {
    const odd: OAuthTokenCache = { getOrRefresh: async () => ({}) as StoredOAuthToken };
    expect((await failure(session(odd, rotatingServer().http).accessToken())).code).toBe('UNAVAILABLE');
  });
});

describe('definitions with oauth2 auth', () => {
  it('parse with the credential names they need', () => {
    const result = parseConnectorDefinition({
      id: 'acme',
      name: 'Acme',
      type: 'rest_api',
      connection: {
        base_url: 'https://api.acme.test',
        auth: { type: 'oauth2', grant_type: 'refresh_token', token_url: TOKEN_URL, scopes: 'a b' },
      },
      endpoints: { me: { path: '/me' } },
    });
    expect(result.ok).toBe(true);
    expect(result.ok && (result.definition as RestApiConnectorDefinition).connection.auth).toMatchObject({
      scopes: ['a', 'b'],
      client_auth: 'body',
    });
  });
});

describe('authorization_code (each user connects their own account)', () => {
  const AUTHORIZE = 'https://auth.acme.test/authorize?access_type=offline';
  const codeAuth = () => auth({ grant_type: 'authorization_code', authorize_url: AUTHORIZE, scopes: ['mail.read', 'mail.send'] });
  const APP = { client_id: 'client-1', client_secret: 'sec+ret/=1' };

  it('builds the consent URL with PKCE S256, keeping the query already on authorize_url', () => {
    const url = new URL(buildAuthorizeUrl(codeAuth(), 'client-1', { state: 'st.sig', redirectUri: 'http://gw.test/cb', codeChallenge: 'ch' }));
    expect(url.origin + url.pathname).toBe('https://auth.acme.test/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      access_type: 'offline',
      response_type: 'code',
      client_id: 'client-1',
      redirect_uri: 'http://gw.test/cb',
      scope: 'mail.read mail.send',
      state: 'st.sig',
      code_challenge: 'ch',
      code_challenge_method: 'S256',
    });
    expect(() => buildAuthorizeUrl(auth(), 'c', { state: 's', redirectUri: 'r', codeChallenge: 'c' })).toThrow(/authorization_code/);
  });

  it('exchanges a code with its verifier and redirect URI (no scope), keeping the refresh token', async () => {
    const { http, sent } = scriptedHttp(() => ({ json: { access_token: 'at-1', refresh_token: 'rt-1', expires_in: 60 } }));
    const token = await requestOAuthToken('mail', codeAuth(), APP, undefined, io(http), { code: 'code-1', redirectUri: 'http://gw.test/cb', codeVerifier: 'v'.repeat(43) });
    expect(token).toEqual({ accessToken: 'at-1', refreshToken: 'rt-1', tokenType: 'Bearer', expiresAt: 1_000_000 + 60_000 });
    expect(Object.fromEntries(sent[0]!.form)).toEqual({
      grant_type: 'authorization_code',
      code: 'code-1',
      redirect_uri: 'http://gw.test/cb',
      code_verifier: 'v'.repeat(43),
      client_id: 'client-1',
      client_secret: 'sec+ret/=1',
    });
  });

  it('refreshes a connection with the refresh_token grant and the connection\'s refresh token', async () => {
    const { http, sent } = scriptedHttp(() => ({ json: { access_token: 'at-2', expires_in: 60 } }));
    const token = await requestOAuthToken('mail', codeAuth(), APP, { accessToken: 'at-1', refreshToken: 'rt-1', expiresAt: 0 }, io(http));
    expect(sent[0]!.form.get('grant_type')).toBe('refresh_token');
    expect(sent[0]!.form.get('refresh_token')).toBe('rt-1');
    expect(token.refreshToken).toBe('rt-1');
  });

  it('an expired connection without a refresh token needs connecting again (AUTH_FAILED), with no request sent', async () => {
    const { http, sent } = scriptedHttp(() => ({ json: {} }));
    await expect(requestOAuthToken('mail', codeAuth(), APP, { accessToken: 'at-1', expiresAt: 0 }, io(http))).rejects.toMatchObject({
      code: 'AUTH_FAILED',
      message: expect.stringMatching(/connect again/),
    });
    expect(sent).toHaveLength(0);
  });

  it('a session of a user who never connected is refused naming connector_id, before any request', async () => {
    const { http, sent } = scriptedHttp(() => ({ json: {} }));
    const session = new OAuthSession('mail', codeAuth(), APP, new InMemoryOAuthTokenCache(), userConnectionTokenKey('u1', 'mail'), io(http));
    await expect(session.accessToken()).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: expect.stringMatching(/connectors\/mail\/oauth\/auth-url/),
      violations: [{ field: 'connector_id', reason: expect.any(String) }],
    });
    expect(sent).toHaveLength(0);
  });

  it('keys tokens by the calling user for authorization_code and by the grant otherwise', () => {
    expect(oauthTokenKey('u:1', 'mail', codeAuth(), APP)).toBe('oauth2-user:u%3A1:mail');
    expect(oauthTokenKey('u:1', 'mail', codeAuth(), APP)).not.toBe(oauthTokenKey('u2', 'mail', codeAuth(), APP));
    expect(oauthTokenKey('u1', 'acme', auth(), CREDS)).toBe(oauthCacheKey('u1', 'acme', auth(), CREDS));
  });

  it('a definition needs authorize_url for authorization_code, and only there', () => {
    const def = (a: Record<string, unknown>) =>
      parseConnectorDefinition({ id: 'mail', name: 'Mail', type: 'rest_api', connection: { base_url: 'https://api.acme.test', auth: a }, endpoints: { me: { path: '/me' } } });
    const missing = def({ type: 'oauth2', grant_type: 'authorization_code', token_url: TOKEN_URL });
    expect(missing.ok).toBe(false);
    expect(!missing.ok && missing.errors.map((e) => e.field)).toContain('connection.auth.authorize_url');
    const extra = def({ type: 'oauth2', grant_type: 'client_credentials', token_url: TOKEN_URL, authorize_url: AUTHORIZE });
    expect(!extra.ok && extra.errors.map((e) => e.reason).join()).toMatch(/only used by grant_type authorization_code/);
    expect(def({ type: 'oauth2', grant_type: 'authorization_code', token_url: TOKEN_URL, authorize_url: AUTHORIZE }).ok).toBe(true);
  });
});
