/**
 * OAuth2 `rest_api` connectors end to end: executeEndpoint with undici and
 * the Postgres token store, against an OAuth token endpoint on the fixture
 * server that issues short-lived access tokens and rotates single-use
 * refresh tokens (a spent one is refused with invalid_grant, as real
 * providers do). Two ServiceKits on one database stand in for two replicas.
 */
import { generateKeyBase64, parseKeyring, ServiceKit, sqlRows } from '@af/service-kit';
import {
  createTestDatabase,
  startFixtureServer,
  type FixtureRequest,
  type FixtureServer,
  type TestDatabase,
} from '@af/testing';
import { request } from 'undici';
import { connectorRuntimeEnvSchema, type ConnectorRuntimeConfig } from '../../src/config.js';
import {
  executeEndpoint,
  parseConnectorDefinition,
  requiredCredentials,
  type ConnectorDefinition,
  type HttpRequestFn,
  type RestApiConnectorDefinition,
} from '@af/connectors';
import { oauthCacheKey, type OAuth2Auth } from '@af/connectors';
import { Init1763800000000 } from '../../src/infra/migrations/1763800000000-init.js';
import { OAuthTokens1764100000000 } from '../../src/infra/migrations/1764100000000-oauth-tokens.js';
import { createGuardedHttp } from '../../src/infra/guarded-http.js';
import { PgOAuthTokenStore } from '../../src/infra/oauth-token.store.js';
import { failure } from '@af/connectors/testing';

const KEYS = `k1:${generateKeyBase64()}`;
const CLIENT = { client_id: 'client-abc', client_secret: 'S3cr3t+/=client' };

let db: TestDatabase;
let replicaA: ServiceKit<ConnectorRuntimeConfig>;
let replicaB: ServiceKit<ConnectorRuntimeConfig>;
let server: FixtureServer;

const startKit = (name: string) =>
  ServiceKit.start({
    name: 'connector-runtime',
    envSchema: connectorRuntimeEnvSchema,
    env: {
      SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789',
      DATABASE_URL: db.url,
      NATS_URL: `memory://oauth-${name}`,
      CREDENTIALS_KEYS: KEYS,
      METRICS_PORT: '0',
      LOG_LEVEL: 'silent',
    },
    migrations: [Init1763800000000, OAuthTokens1764100000000],
  });

beforeAll(async () => {
  db = await createTestDatabase();
  replicaA = await startKit('a');
  replicaB = await startKit('b');
  server = await startFixtureServer();
});

afterAll(async () => {
  await replicaA?.close();
  await replicaB?.close();
  await server?.close();
  await db?.drop();
});

/**
 * The provider: `/oauth/token` (client_credentials and refresh_token grants,
 * client auth in the body or a Basic header, single-use rotating refresh
 * tokens) and `/api/me`, which accepts only live access tokens.
 */
class Provider {
  expiresIn = 3600;
  delayMs = 0;
  rotate = true;
  private issued = 0;
  readonly live = new Set<string>();
  readonly validRefresh = new Set<string>();
  readonly spentRefresh: string[] = [];

  constructor(initialRefresh?: string) {
    if (initialRefresh) this.validRefresh.add(initialRefresh);
    server.route('POST', '/oauth/token', (req) => this.token(req));
    server.route('GET', '/api/me', (req) => this.me(req));
  }

  get tokenCalls(): number {
    return server.count('POST', '/oauth/token');
  }

  /** Server-side expiry: every access token issued so far stops working. */
  expireAll(): void {
    this.live.clear();
  }

  private token(req: FixtureRequest) {
    const form = new URLSearchParams(req.body);
    let id = form.get('client_id');
    let secret = form.get('client_secret');
    const basic = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ''));
    if (basic)
      [id, secret] = Buffer.from(basic[1] as string, 'base64')
        .toString('utf8')
        .split(/:(.*)/s) as [string, string];
    if (id !== CLIENT.client_id || secret !== CLIENT.client_secret)
      return { status: 401, json: { error: 'invalid_client' } };
    const answer: Record<string, unknown> = { token_type: 'Bearer', expires_in: this.expiresIn };
    if (form.get('grant_type') === 'refresh_token') {
      const rt = form.get('refresh_token') ?? '';
      if (!this.validRefresh.has(rt))
        return {
          status: 400,
          json: { error: 'invalid_grant', error_description: `refresh token ${rt} is not valid` },
        };
      this.spentRefresh.push(rt);
      if (this.rotate) {
        this.validRefresh.delete(rt);
        const next = `rt-${this.issued + 1}`;
        this.validRefresh.add(next);
        answer.refresh_token = next;
      }
    } else if (form.get('grant_type') !== 'client_credentials') {
      return { status: 400, json: { error: 'unsupported_grant_type' } };
    }
    const access = `at-${++this.issued}`;
    this.live.add(access);
    answer.access_token = access;
    return { json: answer, delayMs: this.delayMs };
  }

  private me(req: FixtureRequest) {
    const token = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
    return this.live.has(token)
      ? { json: { user: 'u-1', token } }
      : { status: 401, json: { error: 'invalid_token' } };
  }
}

let seq = 0;
function connector(auth: Partial<OAuth2Auth>): RestApiConnectorDefinition {
  const parsed = parseConnectorDefinition({
    id: `oauth-api-${++seq}`,
    name: 'OAuth API',
    type: 'rest_api',
    connection: {
      base_url: `${server.url}/api`,
      auth: {
        type: 'oauth2',
        grant_type: 'client_credentials',
        token_url: `${server.url}/oauth/token`,
        scopes: ['read'],
        ...auth,
      },
    },
    endpoints: { me: { path: '/me', response_mapping: { fields: { user: 'user', token: 'token' } } } },
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.definition as RestApiConnectorDefinition;
}

const storeOf = (kit: ServiceKit<ConnectorRuntimeConfig>, options = {}) =>
  new PgOAuthTokenStore(kit.db, parseKeyring(KEYS), options);

// The SSRF-guarded client production uses reads API answers with `text` (no body stream).
const guardedHttp = createGuardedHttp({ allow: '127.0.0.1' });
afterAll(() => guardedHttp.close());

const call = (
  def: ConnectorDefinition,
  creds: Record<string, string>,
  store: PgOAuthTokenStore,
  owner = 'alice',
  http: HttpRequestFn = request,
) => executeEndpoint(def, 'me', {}, creds, { http, oauth: store, ownerUserId: owner });

const tokenOf = async (p: ReturnType<typeof call>) => (await p).results[0]?.token;


beforeEach(() => server.reset());

describe('client_credentials', () => {
  it('gets a token once, stores it encrypted, and reuses it (client auth in the body, scopes sent)', async () => {
    const provider = new Provider();
    const def = connector({});
    const store = storeOf(replicaA);
    expect(requiredCredentials(def)).toEqual(['client_id', 'client_secret']);

    expect(await tokenOf(call(def, CLIENT, store))).toBe('at-1');
    expect(await tokenOf(call(def, CLIENT, storeOf(replicaB)))).toBe('at-1');

    expect(provider.tokenCalls).toBe(1);
    const form = new URLSearchParams(server.requestsTo('POST', '/oauth/token')[0]?.body);
    expect(Object.fromEntries(form)).toEqual({ grant_type: 'client_credentials', scope: 'read', ...CLIENT });
    const rows = await sqlRows(replicaA.db, 'SELECT cache_key, ciphertext, expires_at FROM oauth_tokens');
    const row = rows.find((r) => String(r.cache_key).includes(def.id));
    expect(row?.ciphertext).toMatch(/^v1\.k1\./);
    expect(row?.expires_at).toBeInstanceOf(Date);
    const dump = JSON.stringify(rows);
    for (const secret of ['at-1', CLIENT.client_secret]) expect(dump).not.toContain(secret);
    const schema = await sqlRows(
      replicaA.db,
      `SELECT table_schema FROM information_schema.tables WHERE table_name = 'oauth_tokens'`,
    );
    expect(schema).toEqual([{ table_schema: 'connector_runtime' }]);
  });

  it('client auth in a Basic header', async () => {
    const provider = new Provider();
    expect(await tokenOf(call(connector({ client_auth: 'basic' }), CLIENT, storeOf(replicaA)))).toBe('at-1');
    const [req] = server.requestsTo('POST', '/oauth/token');
    expect(req?.headers.authorization).toMatch(/^Basic /);
    expect(new URLSearchParams(req?.body).get('client_secret')).toBeNull();
    expect(provider.tokenCalls).toBe(1);
  });

  it('a wrong client secret is AUTH_FAILED (re-authenticate) and never echoed', async () => {
    new Provider();
    const err = await failure(
      call(connector({}), { ...CLIENT, client_secret: 'wrong-secret-value' }, storeOf(replicaA)),
    );
    expect(err).toMatchObject({ code: 'AUTH_FAILED', retryable: false });
    expect(err.message).toContain('invalid_client');
    expect(err.message).not.toContain('wrong-secret-value');
    expect(server.count('GET', '/api/me')).toBe(0);
  });

  it('keeps tokens per owner', async () => {
    const provider = new Provider();
    const def = connector({});
    const store = storeOf(replicaA);
    expect(await tokenOf(call(def, CLIENT, store, 'alice'))).toBe('at-1');
    expect(await tokenOf(call(def, CLIENT, store, 'bob'))).toBe('at-2');
    expect(await tokenOf(call(def, CLIENT, store, 'alice'))).toBe('at-1');
    expect(provider.tokenCalls).toBe(2);
  });
});

describe('expiry and the 120 s buffer', () => {
  it('refreshes before every call when the token lives less than the buffer, not when it lives longer', async () => {
    const provider = new Provider();
    const store = storeOf(replicaA);
    provider.expiresIn = 119;
    const short = connector({});
    expect(await tokenOf(call(short, CLIENT, store))).toBe('at-1');
    expect(await tokenOf(call(short, CLIENT, store))).toBe('at-2');

    provider.expiresIn = 125;
    const long = connector({});
    expect(await tokenOf(call(long, CLIENT, store))).toBe('at-3');
    expect(await tokenOf(call(long, CLIENT, store))).toBe('at-3');
    expect(provider.tokenCalls).toBe(3);
  });

  it.each([
    ['undici request', request as HttpRequestFn],
    ['the guarded client (text)', guardedHttp as HttpRequestFn],
  ])('a 401 from the API (token expired early on the server) forces one refresh and one retry, over %s', async (_name, http) => {
    const provider = new Provider();
    const def = connector({});
    const store = storeOf(replicaA);
    expect(await tokenOf(call(def, CLIENT, store, 'alice', http))).toBe('at-1');

    provider.expireAll();
    expect(await tokenOf(call(def, CLIENT, store, 'alice', http))).toBe('at-2');
    expect(await tokenOf(call(def, CLIENT, storeOf(replicaB), 'alice', http))).toBe('at-2');

    expect(provider.tokenCalls).toBe(2);
    expect(server.count('GET', '/api/me')).toBe(4);
  });

  it.each([
    ['undici request', request as HttpRequestFn],
    ['the guarded client (text)', guardedHttp as HttpRequestFn],
  ])('a 401 that persists after the refresh is AUTH_FAILED, after exactly one refresh, over %s', async (_name, http) => {
    const provider = new Provider();
    server.route('GET', '/api/me', { status: 401, json: { error: 'invalid_token' } });
    const err = await failure(call(connector({}), CLIENT, storeOf(replicaA), 'alice', http));
    expect(err.code).toBe('AUTH_FAILED');
    expect(provider.tokenCalls).toBe(2);
    expect(server.count('GET', '/api/me')).toBe(2);
  });
});

describe('refresh_token grant with single-use rotating refresh tokens', () => {
  const creds = (rt = 'rt-0') => ({ ...CLIENT, refresh_token: rt });

  it('spends each refresh token once, storing the rotated one for the next refresh — across restarts', async () => {
    const provider = new Provider('rt-0');
    provider.expiresIn = 60; // inside the buffer: every call refreshes
    const def = connector({ grant_type: 'refresh_token' });
    expect(requiredCredentials(def)).toEqual(['client_id', 'client_secret', 'refresh_token']);

    expect(await tokenOf(call(def, creds(), storeOf(replicaA)))).toBe('at-1');
    expect(await tokenOf(call(def, creds(), storeOf(replicaB)))).toBe('at-2');
    // A new store instance (a restarted replica) reads the latest refresh token from Postgres.
    expect(await tokenOf(call(def, creds(), storeOf(replicaA)))).toBe('at-3');

    expect(provider.spentRefresh).toEqual(['rt-0', 'rt-1', 'rt-2']);
    const key = oauthCacheKey('alice', def.id, def.connection.auth as OAuth2Auth, creds());
    expect(await storeOf(replicaA).peek(key)).toMatchObject({ accessToken: 'at-3', refreshToken: 'rt-3' });
    const dump = JSON.stringify(await sqlRows(replicaA.db, 'SELECT * FROM oauth_tokens'));
    expect(dump).not.toContain('rt-3');
  });

  it('keeps using the same refresh token when the provider does not rotate', async () => {
    const provider = new Provider('rt-0');
    provider.rotate = false;
    provider.expiresIn = 60;
    const def = connector({ grant_type: 'refresh_token' });
    await call(def, creds(), storeOf(replicaA));
    await call(def, creds(), storeOf(replicaA));
    expect(provider.spentRefresh).toEqual(['rt-0', 'rt-0']);
  });

  it('a revoked refresh token is AUTH_FAILED with nothing stored and no token in the message', async () => {
    const provider = new Provider('rt-other');
    const def = connector({ grant_type: 'refresh_token' });
    const err = await failure(call(def, creds('rt-revoked-123'), storeOf(replicaA)));
    expect(err).toMatchObject({ code: 'AUTH_FAILED' });
    expect(err.message).toContain('invalid_grant');
    expect(err.message).toContain('needs re-authentication');
    expect(err.message).not.toContain('rt-revoked-123');
    const key = oauthCacheKey('alice', def.id, def.connection.auth as OAuth2Auth, creds('rt-revoked-123'));
    expect(await storeOf(replicaA).peek(key)).toBeUndefined();
    expect(provider.tokenCalls).toBe(1);
  });

  it('re-connecting with a new refresh token starts over instead of using the old grant', async () => {
    const provider = new Provider('rt-0');
    provider.expiresIn = 60;
    const def = connector({ grant_type: 'refresh_token' });
    await call(def, creds('rt-0'), storeOf(replicaA));
    provider.validRefresh.add('fresh-grant');
    await call(def, creds('fresh-grant'), storeOf(replicaA));
    expect(provider.spentRefresh).toEqual(['rt-0', 'fresh-grant']);
  });
});

describe('two replicas sharing the Postgres store', () => {
  const creds = { ...CLIENT, refresh_token: 'rt-0' };

  it('concurrent callers on both replicas refresh once and all succeed', async () => {
    const provider = new Provider('rt-0');
    provider.delayMs = 300;
    const def = connector({ grant_type: 'refresh_token' });
    const a = storeOf(replicaA);
    const b = storeOf(replicaB);

    const tokens = await Promise.all(
      Array.from({ length: 8 }, (_, i) => tokenOf(call(def, creds, i % 2 ? a : b))),
    );

    expect(tokens).toEqual(Array(8).fill('at-1'));
    expect(provider.tokenCalls).toBe(1);
    expect(provider.spentRefresh).toEqual(['rt-0']);
  });

  it('concurrent 401s for the same token on both replicas spend one refresh', async () => {
    const provider = new Provider('rt-0');
    const def = connector({ grant_type: 'refresh_token' });
    const a = storeOf(replicaA);
    const b = storeOf(replicaB);
    expect(await tokenOf(call(def, creds, a))).toBe('at-1');
    provider.expireAll();
    provider.delayMs = 200;

    const tokens = await Promise.all(
      Array.from({ length: 6 }, (_, i) => tokenOf(call(def, creds, i % 2 ? a : b))),
    );

    expect(tokens).toEqual(Array(6).fill('at-2'));
    expect(provider.spentRefresh).toEqual(['rt-0', 'rt-1']);
  });

  it('a refresh stuck behind another holder of the lock gives up after lock_timeout with UNAVAILABLE (retryable)', async () => {
    new Provider();
    const def = connector({});
    const key = oauthCacheKey('alice', def.id, def.connection.auth as OAuth2Auth, CLIENT);
    // Another session (here: a connection of the other replica) holds the key's lock.
    const holder = replicaB.db.createQueryRunner();
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`oauth-token:${key}`]);
      const err = await failure(call(def, CLIENT, storeOf(replicaA, { lockTimeoutMs: 200 })));
      expect(err).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
      expect(err.message).toContain('OAuth token store failed');
      expect(server.count('POST', '/oauth/token')).toBe(0);
    } finally {
      await holder.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [`oauth-token:${key}`]);
      await holder.release();
    }
    expect(await tokenOf(call(def, CLIENT, storeOf(replicaA)))).toBe('at-1');
  });
});

describe('stored tokens', () => {
  it('a ciphertext moved to another key, or unreadable with the keyring, counts as no token', async () => {
    const provider = new Provider();
    const one = connector({});
    const two = connector({});
    const store = storeOf(replicaA);
    await call(one, CLIENT, store);
    await call(two, CLIENT, store);
    const keyOne = oauthCacheKey('alice', one.id, one.connection.auth as OAuth2Auth, CLIENT);
    const keyTwo = oauthCacheKey('alice', two.id, two.connection.auth as OAuth2Auth, CLIENT);
    await sqlRows(
      replicaA.db,
      'UPDATE oauth_tokens SET ciphertext = (SELECT ciphertext FROM oauth_tokens WHERE cache_key = $1) WHERE cache_key = $2',
      [keyOne, keyTwo],
    );

    expect(await store.peek(keyTwo)).toBeUndefined();
    expect(await tokenOf(call(two, CLIENT, store))).toBe('at-3');
    expect(
      await new PgOAuthTokenStore(replicaA.db, parseKeyring(`k9:${generateKeyBase64()}`)).peek(keyOne),
    ).toBeUndefined();
    expect(provider.tokenCalls).toBe(3);
  });

  it('deleteConnectorTokens forgets one owner’s connector only', async () => {
    new Provider();
    const def = connector({});
    const store = storeOf(replicaA);
    await call(def, CLIENT, store, 'alice');
    await call(def, CLIENT, store, 'bob');
    expect(await store.deleteConnectorTokens('alice', def.id)).toBe(1);
    expect(
      await store.peek(oauthCacheKey('alice', def.id, def.connection.auth as OAuth2Auth, CLIENT)),
    ).toBeUndefined();
    expect(
      await store.peek(oauthCacheKey('bob', def.id, def.connection.auth as OAuth2Auth, CLIENT)),
    ).toBeDefined();
  });
});

describe('echoed tokens', () => {
  it('redacts an access token the API echoes in a successful answer (tokens of 8+ characters)', async () => {
    const access = 'at-long-echoed-0001';
    server.route('POST', '/oauth/token', () => ({
      json: { token_type: 'Bearer', expires_in: 3600, access_token: access },
    }));
    server.route('GET', '/api/me', (req) => ({
      json: { user: 'u-1', token: String(req.headers.authorization ?? '') },
    }));
    const result = await call(connector({}), CLIENT, storeOf(replicaA));
    expect(server.requestsTo('GET', '/api/me')[0]?.headers.authorization).toBe(`Bearer ${access}`);
    expect(result.results).toEqual([{ user: 'u-1', token: 'Bearer [REDACTED]' }]);
    expect(JSON.stringify(result)).not.toContain(access);
  });
});
