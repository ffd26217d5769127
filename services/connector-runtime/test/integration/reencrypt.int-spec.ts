/**
 * The key-rotation command (`node dist/reencrypt.js`) as a real process
 * against real PostgreSQL: connector and binding credentials, OAuth tokens and plugin configs move to the new
 * key (and the PKCE verifiers of pending OAuth authorizations), still decrypt (with only the new key), a second run changes nothing, and
 * an undecryptable row fails the run by id without printing any secret.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { decryptSecret, encryptSecret, generateKeyBase64, parseKeyring } from '@af/service-kit';
import { createTestDatabase, type TestDatabase } from '@af/testing';
import { bindingCredentialAad } from '../../src/infra/binding.repository.js';
import { connectorCredentialAad } from '../../src/infra/connector.repository.js';
import { oauthTokenAad } from '../../src/infra/oauth-token.store.js';
import { pluginConfigAad } from '../../src/infra/plugin.repository.js';
import { authorizationVerifierAad } from '../../src/infra/user-connection.repository.js';

const main = join(__dirname, '..', '..', 'dist', 'reencrypt.js');
const k1 = `k1:${generateKeyBase64()}`;
const k2 = `k2:${generateKeyBase64()}`;
const SECRET = `sk-rotate-${Math.random().toString(36).slice(2)}`;
let db: TestDatabase;

function run(keys: string, url = db.url) {
  const res = spawnSync(process.execPath, [main], { env: { PATH: process.env.PATH ?? '', DATABASE_URL: url, CREDENTIALS_KEYS: keys }, encoding: 'utf8', timeout: 60_000 });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

beforeAll(async () => {
  db = await createTestDatabase();
  // A first run creates the schema (it runs the migrations) and finds nothing to do.
  const empty = run(k1);
  expect(empty.code).toBe(0);
  const old = parseKeyring(k1);
  await db.query(`INSERT INTO connector_runtime.connectors (owner_user_id, id, name, type, version, definition) VALUES ('u1', 'c1', 'c1', 'rest_api', '1.0', '{}')`);
  for (const name of ['api_key', 'token']) {
    await db.query('INSERT INTO connector_runtime.connector_credentials (owner_user_id, connector_id, name, ciphertext) VALUES ($1, $2, $3, $4)', ['u1', 'c1', name, encryptSecret(`${SECRET}-${name}`, old, connectorCredentialAad('u1', 'c1', name))]);
  }
  await db.query(`INSERT INTO connector_runtime.bindings (owner_user_id, agent_profile_id, connector_id) VALUES ('u1', 'p1', 'c1')`);
  await db.query('INSERT INTO connector_runtime.binding_credentials (owner_user_id, agent_profile_id, connector_id, name, ciphertext) VALUES ($1, $2, $3, $4, $5)', ['u1', 'p1', 'c1', 'api_key', encryptSecret(`${SECRET}-binding`, old, bindingCredentialAad('u1', 'p1', 'c1', 'api_key'))]);
  await db.query('INSERT INTO connector_runtime.oauth_tokens (cache_key, ciphertext) VALUES ($1, $2)', ['u1:c1:abc', encryptSecret(JSON.stringify({ accessToken: `${SECRET}-oauth` }), old, oauthTokenAad('u1:c1:abc'))]);
  await db.query(`INSERT INTO connector_runtime.agent_plugin_registry (plugin_name, plugin_version, connection_type, tool_pack_name) VALUES ('slack', '1.0', 'slack_webhook', 'slack')`);
  await db.query('INSERT INTO connector_runtime.agent_plugin_user_config (user_id, plugin_name, is_enabled, config_keys, config_ciphertext) VALUES ($1, $2, true, $3, $4)', ['u1', 'slack', ['webhook_url'], encryptSecret(JSON.stringify({ webhook_url: `${SECRET}-hook` }), old, pluginConfigAad('u1', 'slack'))]);
  await db.query(`INSERT INTO connector_runtime.oauth_authorizations (nonce, user_id, connector_id, redirect_uri, verifier_ciphertext, expires_at) VALUES ($1, 'u1', 'c1', 'http://gw/cb', $2, now() + interval '10 minutes')`, ['n1', encryptSecret(`${SECRET}-verifier`, old, authorizationVerifierAad('n1'))]);
}, 90_000);

afterAll(async () => {
  await db?.drop();
});

describe('reencrypt command', () => {
  it('moves every secret to the new key; they decrypt with the new key alone', async () => {
    const res = run(`${k2},${k1}`);
    expect(res.code).toBe(0);
    const summary = JSON.parse(res.stdout);
    expect(summary.activeKid).toBe('k2');
    expect(summary.tables).toEqual([
      { table: 'connector_credentials', scanned: 2, reencrypted: 2, failed: 0, skipped: 0 },
      { table: 'binding_credentials', scanned: 1, reencrypted: 1, failed: 0, skipped: 0 },
      { table: 'oauth_tokens', scanned: 1, reencrypted: 1, failed: 0, skipped: 0 },
      { table: 'agent_plugin_user_config', scanned: 1, reencrypted: 1, failed: 0, skipped: 0 },
      { table: 'oauth_authorizations', scanned: 1, reencrypted: 1, failed: 0, skipped: 0 },
    ]);
    expect(res.stderr).toContain('connector_credentials: 2 scanned');
    const onlyNew = parseKeyring(k2);
    const creds = await db.query<{ name: string; ciphertext: string }>('SELECT name, ciphertext FROM connector_runtime.connector_credentials ORDER BY name');
    expect(creds.map((c) => decryptSecret(c.ciphertext, onlyNew, connectorCredentialAad('u1', 'c1', c.name)))).toEqual([`${SECRET}-api_key`, `${SECRET}-token`]);
    const [binding] = await db.query<{ ciphertext: string }>('SELECT ciphertext FROM connector_runtime.binding_credentials');
    expect(decryptSecret(binding!.ciphertext, onlyNew, bindingCredentialAad('u1', 'p1', 'c1', 'api_key'))).toBe(`${SECRET}-binding`);
    const [token] = await db.query<{ ciphertext: string }>('SELECT ciphertext FROM connector_runtime.oauth_tokens');
    expect(JSON.parse(decryptSecret(token!.ciphertext, onlyNew, oauthTokenAad('u1:c1:abc')))).toEqual({ accessToken: `${SECRET}-oauth` });
    const [plugin] = await db.query<{ config_ciphertext: string }>('SELECT config_ciphertext FROM connector_runtime.agent_plugin_user_config');
    expect(JSON.parse(decryptSecret(plugin!.config_ciphertext, onlyNew, pluginConfigAad('u1', 'slack')))).toEqual({ webhook_url: `${SECRET}-hook` });
    const [pending] = await db.query<{ verifier_ciphertext: string }>('SELECT verifier_ciphertext FROM connector_runtime.oauth_authorizations');
    expect(decryptSecret(pending!.verifier_ciphertext, onlyNew, authorizationVerifierAad('n1'))).toBe(`${SECRET}-verifier`);
    expect(res.stdout + res.stderr).not.toContain(SECRET);
  }, 60_000);

  it('changes nothing when run again', () => {
    const res = run(`${k2},${k1}`);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).tables.map((t: { reencrypted: number }) => t.reencrypted)).toEqual([0, 0, 0, 0, 0]);
  }, 60_000);

  it('fails by row id, without values, when no configured key opens a secret', async () => {
    const stranger = parseKeyring(`k9:${generateKeyBase64()}`);
    await db.query('INSERT INTO connector_runtime.connector_credentials (owner_user_id, connector_id, name, ciphertext) VALUES ($1, $2, $3, $4)', ['u1', 'c1', 'lost', encryptSecret(`${SECRET}-lost`, stranger, connectorCredentialAad('u1', 'c1', 'lost'))]);
    const res = run(`k3:${generateKeyBase64()},${k2}`);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('"name":"lost"');
    expect(JSON.parse(res.stdout).tables[0]).toMatchObject({ scanned: 3, reencrypted: 2, failed: 1 });
    expect(res.stdout + res.stderr).not.toContain(SECRET);
  }, 60_000);

  it('refuses bad configuration with the variable named', () => {
    const res = run('not-a-keyring');
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('CREDENTIALS_KEYS');
  });
});
