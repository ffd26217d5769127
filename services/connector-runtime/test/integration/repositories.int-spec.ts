/**
 * Connector and execution repositories against real PostgreSQL: credentials
 * are stored encrypted and bound to their row; idempotency claims behave.
 */
import { generateKeyBase64, parseKeyring, ServiceKit, sqlRows } from '@af/service-kit';
import { createTestDatabase, type TestDatabase } from '@af/testing';
import { connectorRuntimeEnvSchema, type ConnectorRuntimeConfig } from '../../src/config.js';
import { parseConnectorDefinition, type ConnectorDefinition } from '@af/connectors';
import { ConnectorRepository } from '../../src/infra/connector.repository.js';
import { ExecutionRepository } from '../../src/infra/execution.repository.js';
import { CONNECTOR_RUNTIME_MIGRATIONS } from '../../src/infra/migrations/index.js';

let db: TestDatabase;
let kit: ServiceKit<ConnectorRuntimeConfig>;
const keys = `k1:${generateKeyBase64()}`;

beforeAll(async () => {
  db = await createTestDatabase();
  kit = await ServiceKit.start({
    name: 'connector-runtime',
    envSchema: connectorRuntimeEnvSchema,
    env: { SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789', DATABASE_URL: db.url, NATS_URL: 'memory://conn-repo-test', CREDENTIALS_KEYS: keys, METRICS_PORT: '0', LOG_LEVEL: 'silent' },
    migrations: CONNECTOR_RUNTIME_MIGRATIONS,
  });
});

afterAll(async () => {
  await kit?.close();
  await db?.drop();
});

function definition(id: string): ConnectorDefinition {
  const parsed = parseConnectorDefinition({
    id,
    name: id,
    type: 'rest_api',
    version: '1.0',
    connection: { base_url: 'https://api.example.com', auth: { type: 'api_key', key_param: 'api_key' } },
    endpoints: { search: { method: 'GET', path: '/search', parameters: [] } },
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.definition;
}

describe('ConnectorRepository', () => {
  it('stores credentials encrypted and decrypts them for the owner only', async () => {
    const repo = new ConnectorRepository(kit, parseKeyring(keys));
    const stored = await repo.upsert('alice', definition('api-one'), { api_key: 'plain-secret-123' });
    expect(stored.credentialNames).toEqual(['api_key']);
    const raw = await sqlRows(kit.db, 'SELECT ciphertext FROM connector_credentials');
    expect(raw[0].ciphertext).toMatch(/^v1\.k1\./);
    expect(JSON.stringify(raw)).not.toContain('plain-secret-123');
    expect(await repo.credentials('alice', 'api-one')).toEqual({ api_key: 'plain-secret-123' });
    expect(await repo.get('bob', 'api-one')).toBeNull();
    expect(await repo.credentials('bob', 'api-one')).toEqual({});
  });

  it('a ciphertext copied onto another row does not decrypt (bound by AAD)', async () => {
    const repo = new ConnectorRepository(kit, parseKeyring(keys));
    await repo.upsert('alice', definition('api-two'), { api_key: 'other-secret' });
    await sqlRows(
      kit.db,
      `UPDATE connector_credentials SET ciphertext = (SELECT ciphertext FROM connector_credentials WHERE connector_id = 'api-one')
        WHERE connector_id = 'api-two'`,
    );
    await expect(repo.credentials('alice', 'api-two')).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
  });

  it('cannot decrypt with a keyring that lacks the key id', async () => {
    const repo = new ConnectorRepository(kit, parseKeyring(`k2:${generateKeyBase64()}`));
    await expect(repo.credentials('alice', 'api-one')).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
  });

  it('lists and deletes per owner', async () => {
    const repo = new ConnectorRepository(kit, parseKeyring(keys));
    expect((await repo.list('alice')).map((c) => c.definition.id)).toEqual(['api-one', 'api-two']);
    expect(await repo.delete('bob', 'api-one')).toBe(false);
    // OAuth tokens of the connector (the owner's grant and the owner's own connection) go with it; others stay.
    const keysFor = ['oauth2:alice:api-two:grant', 'oauth2-user:alice:api-two', 'oauth2:alice:api-one:grant', 'oauth2:bob:api-two:grant'];
    for (const key of keysFor) await sqlRows(kit.db, `INSERT INTO oauth_tokens (cache_key, ciphertext) VALUES ($1, 'x')`, [key]);
    expect(await repo.delete('alice', 'api-two')).toBe(true);
    expect(await sqlRows(kit.db, `SELECT 1 FROM connector_credentials WHERE connector_id = 'api-two'`)).toEqual([]);
    const left = await sqlRows<{ cache_key: string }>(kit.db, 'SELECT cache_key FROM oauth_tokens ORDER BY cache_key');
    expect(left.map((r) => r.cache_key)).toEqual(['oauth2:alice:api-one:grant', 'oauth2:bob:api-two:grant']);
  });

  it('hands back the same definition object while the stored definition is unchanged, a new one after an edit on any replica', async () => {
    const here = new ConnectorRepository(kit, parseKeyring(keys));
    const replica = new ConnectorRepository(kit, parseKeyring(keys));
    await here.upsert('carol', definition('cached-api'), { api_key: 'k' });
    const first = (await here.get('carol', 'cached-api'))!.definition;
    expect(first).toEqual(definition('cached-api'));
    expect((await here.get('carol', 'cached-api'))!.definition).toBe(first);
    expect((await here.list('carol'))[0]!.definition).toBe(first);

    const edited = { ...definition('cached-api'), description: 'edited elsewhere' };
    await replica.upsert('carol', edited, {});
    const after = (await here.get('carol', 'cached-api'))!.definition;
    expect(after).not.toBe(first);
    expect(after).toEqual(edited);
    expect(first.description).not.toBe('edited elsewhere'); // the object handed out before is not changed
    // another owner's connector of the same id is its own entry
    await here.upsert('dave', definition('cached-api'), { api_key: 'k' });
    expect((await here.get('dave', 'cached-api'))!.definition).not.toBe(after);
    expect(await here.get('erin', 'cached-api')).toBeNull();
  });
});

describe('ExecutionRepository', () => {
  const window = 3600_000;

  it('claims a key once; later callers see in_progress, then the stored result', async () => {
    const repo = new ExecutionRepository(kit);
    expect(await repo.claim('run:n:1', 'alice', 'c', 'e', 60_000, window)).toEqual({ state: 'claimed' });
    expect(await repo.claim('run:n:1', 'alice', 'c', 'e', 60_000, window)).toMatchObject({ state: 'in_progress' });
    await repo.complete('run:n:1', { results: [1], count: 1 });
    expect(await repo.claim('run:n:1', 'alice', 'c', 'e', 60_000, window)).toEqual({ state: 'completed', result: { results: [1], count: 1 } });
  });

  it('remembers permanent failures and releases transient ones', async () => {
    const repo = new ExecutionRepository(kit);
    await repo.claim('k:perm', 'alice', 'c', 'e', 60_000, window);
    await repo.fail('k:perm', { code: 'INVALID_ARGUMENT', message: 'bad input' }, true);
    expect(await repo.claim('k:perm', 'alice', 'c', 'e', 60_000, window)).toEqual({
      state: 'failed',
      error: { code: 'INVALID_ARGUMENT', message: 'bad input' },
    });
    await repo.claim('k:temp', 'alice', 'c', 'e', 60_000, window);
    await repo.fail('k:temp', { code: 'UNAVAILABLE', message: 'down' }, false);
    expect(await repo.claim('k:temp', 'alice', 'c', 'e', 60_000, window)).toEqual({ state: 'claimed' });
  });

  it('takes over a stale in-progress claim, and refuses a key owned by someone else', async () => {
    const repo = new ExecutionRepository(kit);
    await repo.claim('k:stale', 'alice', 'c', 'e', 60_000, window);
    await sqlRows(kit.db, `UPDATE executions SET updated_at = now() - interval '2 minutes' WHERE idempotency_key = 'k:stale'`);
    expect(await repo.claim('k:stale', 'alice', 'c', 'e', 60_000, window)).toEqual({ state: 'claimed' });
    await repo.complete('k:stale', { count: 0, results: [] });
    expect(await repo.claim('k:stale', 'mallory', 'c', 'e', 60_000, window)).toMatchObject({ state: 'failed', error: { code: 'ALREADY_EXISTS' } });
  });

  it('in single-process mode takes over at once the in-progress claim of another (dead) instance: never its own, a finished one, another caller\'s, or with replicas', async () => {
    const dead = new ExecutionRepository(kit, { instance: 'dead-process', singleProcess: true });
    const live = new ExecutionRepository(kit, { instance: 'this-process', singleProcess: true });
    expect(await dead.claim('k:crash', 'alice', 'c', 'e', 60_000, window)).toEqual({ state: 'claimed' });
    expect(await live.claim('k:crash', 'alice', 'c', 'e', 60_000, window)).toEqual({ state: 'claimed' });
    // Now this process's own claim: the same call again waits for it.
    expect(await live.claim('k:crash', 'alice', 'c', 'e', 60_000, window)).toMatchObject({ state: 'in_progress' });
    await live.complete('k:crash', { count: 1, results: [7] });
    expect(await new ExecutionRepository(kit, { instance: 'later', singleProcess: true }).claim('k:crash', 'alice', 'c', 'e', 60_000, window)).toEqual({
      state: 'completed',
      result: { count: 1, results: [7] },
    });
    expect(await dead.claim('k:theirs', 'alice', 'c', 'e', 60_000, window)).toEqual({ state: 'claimed' });
    expect(await live.claim('k:theirs', 'mallory', 'c', 'e', 60_000, window)).toMatchObject({ state: 'failed', error: { code: 'ALREADY_EXISTS' } });
    // With replicas (NATS) another instance may be alive: its claim is waited for until it goes stale.
    const replica = new ExecutionRepository(kit, { instance: 'replica-b' });
    expect(await replica.claim('k:theirs', 'alice', 'c', 'e', 60_000, window)).toMatchObject({ state: 'in_progress' });
  });

  it('lets exactly one of many concurrent callers claim a key', async () => {
    const repo = new ExecutionRepository(kit);
    const claims = await Promise.all(Array.from({ length: 10 }, () => repo.claim('k:race', 'alice', 'c', 'e', 60_000, window)));
    expect(claims.filter((c) => c.state === 'claimed')).toHaveLength(1);
    expect(claims.filter((c) => c.state === 'in_progress')).toHaveLength(9);
  });
});
