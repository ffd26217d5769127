/**
 * The plugin registry end to end inside one process. Real: PostgreSQL (the
 * service's migrations), gRPC over loopback for PluginRegistryService (our
 * controller) and for ConnectorPluginService (a scripted plugin served by
 * startGrpcServer, standing in for an @af/plugin-sdk plugin, which the e2e
 * test runs for real). Shows: registration rules and the token, heartbeats,
 * deregistration,
 * per-user enablement with the config encrypted at rest, liveness, and
 * `existing_tool` calls reaching the plugin with the user's config.
 */
import { Controller, Module } from '@nestjs/common';
import { connector } from '@af/contracts';
import {
  ServiceAuth,
  AppError,
  call,
  createGrpcClient,
  generateKeyBase64,
  parseKeyring,
  ServiceKit,
  sqlRows,
  startGrpcServer,
  type GrpcServer,
} from '@af/service-kit';
import { createTestDatabase, freePort, type TestDatabase } from '@af/testing';
import { Plugins } from '../../src/app/plugins.js';
import { connectorRuntimeEnvSchema, type ConnectorRuntimeConfig } from '../../src/config.js';
import {
  ConnectorError,
  executeEndpoint,
  parseConnectorDefinition,
  type ExecutionContext,
} from '@af/connectors';
import { reencryptSecrets } from '../../src/app/reencrypt-secrets.js';
import { PluginRegistryModule } from '../../src/grpc/plugin-registry.controller.js';
import { CONNECTOR_RUNTIME_MIGRATIONS } from '../../src/infra/migrations/index.js';
import { GrpcPluginTransport } from '../../src/infra/plugin.client.js';
import { pluginConfigAad, PluginRepository } from '../../src/infra/plugin.repository.js';

const TOKEN = 'registration-token-0123456789';
const serviceAuth = new ServiceAuth({ secret: 'int-test-service-auth-secret-0123456789', service: 'connector-runtime' });
const WEBHOOK = 'https://hooks.example.com/services/T0/B0/secret-value-xyz';
const keys = `k1:${generateKeyBase64()}`;

/** What the scripted plugin received, and how it answers per tool. */
const received: connector.InvokeRequest[] = [];

@Controller()
@connector.ConnectorPluginServiceControllerMethods()
class ScriptedPlugin implements connector.ConnectorPluginServiceController {
  async invoke(req: connector.InvokeRequest): Promise<connector.InvokeResponse> {
    received.push(req);
    switch (req.tool) {
      case 'post_message':
        return {
          output: {
            ok: true,
            echoed: req.inputs?.text ?? null,
            hasWebhook: req.config.webhook_url === WEBHOOK,
            // A careless plugin that echoes the user's secret config.
            ...(req.inputs?.text === 'echo config' ? { debug: `posted to ${req.config.webhook_url}` } : {}),
          },
        };
      case 'strict':
        throw new AppError('INVALID_ARGUMENT', 'invalid inputs for tool strict: inputs.text must be string', {
          violations: [{ field: 'inputs.text', reason: 'must be string' }],
        });
      case 'limited':
        throw new AppError('RESOURCE_EXHAUSTED', 'upstream rate limit', { retryAfterMs: 4000 });
      default:
        await new Promise((r) => setTimeout(r, 2_500));
        return { output: {} };
    }
  }
}

@Module({ controllers: [ScriptedPlugin] })
class ScriptedPluginModule {}

let db: TestDatabase;
let kit: ServiceKit<ConnectorRuntimeConfig>;
let plugins: Plugins;
let registryServer: GrpcServer;
let pluginServer: GrpcServer;
let registry: connector.PluginRegistryServiceClient;
let pluginAddress: string;
let registryAddress: string;
const alice = { userId: 'alice', teamIds: [] };
const bob = { userId: 'bob', teamIds: [] };

const contract = (name: string): connector.ToolContract => ({
  name,
  description: `tool ${name}`,
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  outputSchema: { type: 'object' },
  requires: 'slack_webhook',
  sideEffecting: name === 'post_message',
});

const registration = (
  over: Partial<connector.RegisterPluginRequest> = {},
): connector.RegisterPluginRequest => ({
  name: 'slack-webhook',
  version: '0.1.0',
  description: 'Slack incoming webhooks',
  connectionType: 'slack_webhook',
  requiredConfig: ['webhook_url'],
  toolPackName: 'slack',
  tools: ['post_message', 'strict', 'limited', 'slow'].map(contract),
  address: pluginAddress,
  registrationToken: TOKEN,
  ...over,
});

async function rejection(p: Promise<unknown>): Promise<AppError & ConnectorError> {
  try {
    await p;
  } catch (err) {
    return err as AppError & ConnectorError;
  }
  throw new Error('expected a failure');
}

beforeAll(async () => {
  db = await createTestDatabase();
  kit = await ServiceKit.start({
    name: 'connector-runtime',
    envSchema: connectorRuntimeEnvSchema,
    env: {
      SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789',
      DATABASE_URL: db.url,
      NATS_URL: 'memory://plugin-registry-test',
      CREDENTIALS_KEYS: keys,
      METRICS_PORT: '0',
      LOG_LEVEL: 'silent',
    },
    migrations: CONNECTOR_RUNTIME_MIGRATIONS,
  });
  plugins = new Plugins(new PluginRepository(kit, parseKeyring(keys)), new GrpcPluginTransport(), kit.log, {
    registrationToken: TOKEN,
    registrationOpen: false,
    heartbeatSeconds: 10,
  });
  const pluginPort = await freePort();
  pluginAddress = `127.0.0.1:${pluginPort}`;
  pluginServer = await startGrpcServer({
    module: { module: ScriptedPluginModule },
    packages: ['connector'],
    host: '127.0.0.1',
    port: pluginPort,
    log: kit.log,
    auth: null, // a plugin: outside the system
  });
  const registryPort = await freePort();
  registryAddress = `127.0.0.1:${registryPort}`;
  registryServer = await startGrpcServer({
    module: PluginRegistryModule.forRoot(plugins),
    packages: ['connector'],
    host: '127.0.0.1',
    port: registryPort,
    log: kit.log,
    auth: serviceAuth,
  });
  registry = createGrpcClient<connector.PluginRegistryServiceClient>(
    'connector',
    'PluginRegistryService',
    `127.0.0.1:${registryPort}`,
    { auth: serviceAuth },
  );
});

afterAll(async () => {
  await registryServer?.close();
  await pluginServer?.close();
  await kit?.close();
  await db?.drop();
});

describe('registration', () => {
  it('refuses a missing or wrong token with UNAUTHENTICATED', async () => {
    expect(
      await rejection(call(registry.registerPlugin(registration({ registrationToken: '' })))),
    ).toMatchObject({ code: 'UNAUTHENTICATED', message: 'registration_token is required' });
    expect(
      await rejection(call(registry.registerPlugin(registration({ registrationToken: 'nope' })))),
    ).toMatchObject({ code: 'UNAUTHENTICATED', message: 'registration_token is wrong' });
  });

  it('refuses a bad contract naming each field', async () => {
    const err = await rejection(
      call(
        registry.registerPlugin(
          registration({
            address: 'nowhere',
            tools: [
              { ...contract('ok'), inputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } } },
              { ...contract('ok'), inputSchema: undefined },
            ],
          }),
        ),
      ),
    );
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations.map((v) => v.field)).toEqual([
      'address',
      'tools[0].input_schema',
      'tools[1].name',
      'tools[1].input_schema',
    ]);
  });

  it('registers, tells the heartbeat interval, and the plugin is listed as active', async () => {
    const res = await call(registry.registerPlugin(registration()));
    expect(res.instanceId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.heartbeatIntervalSeconds).toBe(10);
    const { plugins: list } = await call(registry.listPlugins({ principal: alice }));
    expect(list).toEqual([
      expect.objectContaining({
        name: 'slack-webhook',
        version: '0.1.0',
        connectionType: 'slack_webhook',
        requiredConfig: ['webhook_url'],
        toolPackName: 'slack',
        address: pluginAddress,
        status: 'active',
        enabledForUser: false,
      }),
    ]);
    expect(list[0]!.tools.map((t) => t.name)).toEqual(['post_message', 'strict', 'limited', 'slow']);
    expect(list[0]!.tools[0]).toMatchObject({
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      sideEffecting: true,
    });
    expect(Date.parse(list[0]!.lastHeartbeatAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('heartbeats: known instances say yes, unknown or malformed ids say no', async () => {
    const { instanceId } = await call(registry.registerPlugin(registration()));
    expect((await call(registry.heartbeatPlugin({ name: 'slack-webhook', instanceId }))).known).toBe(true);
    expect(
      (
        await call(
          registry.heartbeatPlugin({
            name: 'slack-webhook',
            instanceId: '00000000-0000-4000-8000-000000000000',
          }),
        )
      ).known,
    ).toBe(false);
    expect((await call(registry.heartbeatPlugin({ name: 'other', instanceId }))).known).toBe(false);
    expect(
      (await call(registry.heartbeatPlugin({ name: 'slack-webhook', instanceId: "x' OR 1=1" }))).known,
    ).toBe(false);
  });

  it('is closed without a configured token unless PLUGIN_REGISTRATION_OPEN', async () => {
    const repo = new PluginRepository(kit, parseKeyring(keys));
    const closed = new Plugins(repo, new GrpcPluginTransport(), kit.log, {
      registrationOpen: false,
      heartbeatSeconds: 10,
    });
    const refused = await rejection(closed.register({ ...registrationDomain(), name: 'dev-plugin' }, ''));
    expect(refused.code).toBe('FAILED_PRECONDITION');
    expect(refused.message).toContain('PLUGIN_REGISTRATION_TOKEN');
    const open = new Plugins(repo, new GrpcPluginTransport(), kit.log, {
      registrationOpen: true,
      heartbeatSeconds: 10,
    });
    await expect(open.register({ ...registrationDomain(), name: 'dev-plugin' }, '')).resolves.toMatchObject({
      heartbeatSeconds: 10,
    });
  });

  it('forgets long-silent instances when a plugin registers, so their heartbeat asks them to register again', async () => {
    const { instanceId } = await call(registry.registerPlugin(registration()));
    await sqlRows(
      kit.db,
      `UPDATE agent_plugin_instances SET last_heartbeat_at = now() - interval '1 hour' WHERE instance_id = $1`,
      [instanceId],
    );
    await call(registry.registerPlugin(registration()));
    expect((await call(registry.heartbeatPlugin({ name: 'slack-webhook', instanceId }))).known).toBe(false);
  });
});

function registrationDomain() {
  const r = registration();
  return {
    ...r,
    tools: r.tools.map((t) => ({ ...t, inputSchema: t.inputSchema!, outputSchema: t.outputSchema! })),
  };
}

describe('per-user settings', () => {
  it('needs a principal: a call without a principal token is refused', async () => {
    // The principal comes from the signed token now (ServiceAuthGuard), never from the message.
    const unsigned = createGrpcClient<connector.PluginRegistryServiceClient>('connector', 'PluginRegistryService', registryAddress, { auth: null });
    const err = await rejection(call(unsigned.listPlugins({ principal: alice })));
    expect(err.code).toBe('UNAUTHENTICATED');
    expect(err.message).toMatch(/missing af-principal-token/);
  });

  it('refuses unknown plugins, unknown config keys and enabling without the required config', async () => {
    expect((await rejection(call(registry.getPlugin({ principal: alice, name: 'nope' })))).code).toBe(
      'NOT_FOUND',
    );
    const unknownKey = await rejection(
      call(
        registry.setPluginEnabled({
          principal: alice,
          name: 'slack-webhook',
          enabled: true,
          config: { webhook: WEBHOOK },
        }),
      ),
    );
    expect(unknownKey.violations).toEqual([
      { field: 'config.webhook', reason: 'is not a config key of plugin slack-webhook (keys: webhook_url)' },
    ]);
    const missing = await rejection(
      call(registry.setPluginEnabled({ principal: alice, name: 'slack-webhook', enabled: true, config: {} })),
    );
    expect(missing.violations).toEqual([
      { field: 'config.webhook_url', reason: 'is required to enable plugin slack-webhook' },
    ]);
  });

  it('enables with the config stored encrypted and never returned', async () => {
    const { plugin } = await call(
      registry.setPluginEnabled({
        principal: alice,
        name: 'slack-webhook',
        enabled: true,
        config: { webhook_url: WEBHOOK },
      }),
    );
    expect(plugin).toMatchObject({ name: 'slack-webhook', enabledForUser: true, status: 'active' });
    expect(JSON.stringify(plugin)).not.toContain('secret-value-xyz');
    const rows = await sqlRows(kit.db, 'SELECT * FROM agent_plugin_user_config');
    expect(rows).toEqual([
      expect.objectContaining({
        user_id: 'alice',
        plugin_name: 'slack-webhook',
        is_enabled: true,
        config_keys: ['webhook_url'],
      }),
    ]);
    expect(rows[0].config_ciphertext).toMatch(/^v1\.k1\./);
    expect(JSON.stringify(rows)).not.toContain('secret-value-xyz');
    expect(
      (await call(registry.getPlugin({ principal: bob, name: 'slack-webhook' }))).plugin!.enabledForUser,
    ).toBe(false);
  });

  it('disabling keeps the config, so enabling again needs none', async () => {
    expect(
      (
        await call(
          registry.setPluginEnabled({ principal: alice, name: 'slack-webhook', enabled: false, config: {} }),
        )
      ).plugin!.enabledForUser,
    ).toBe(false);
    await expect(
      plugins.invokePlugin('slack-webhook', 'post_message', { text: 'x' }, {
        timeoutMs: 2000,
        ownerUserId: 'alice',
      } as never),
    ).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: expect.stringContaining('not enabled for this user'),
    });
    expect(
      (
        await call(
          registry.setPluginEnabled({ principal: alice, name: 'slack-webhook', enabled: true, config: {} }),
        )
      ).plugin!.enabledForUser,
    ).toBe(true);
  });
});

describe('invoking plugin tools', () => {
  const existingTool = () => {
    const parsed = parseConnectorDefinition({
      id: 'team-slack',
      name: 'Team Slack',
      type: 'existing_tool',
      connection: { plugin: 'slack-webhook' },
      endpoints: {
        notify: { tool: 'post_message', parameters: [{ name: 'text', type: 'string', required: true }] },
      },
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    return parsed.definition;
  };
  const ctx = (user: string, extra: Partial<ExecutionContext> = {}): ExecutionContext => ({
    http: (() => Promise.reject(new Error('no http'))) as unknown as ExecutionContext['http'],
    invokePlugin: plugins.invokePlugin,
    ownerUserId: user,
    ...extra,
  });

  it('an existing_tool endpoint reaches the plugin with the user’s decrypted config, the key and the timeout', async () => {
    received.length = 0;
    const result = await executeEndpoint(
      existingTool(),
      'notify',
      { text: 'hello' },
      {},
      ctx('alice', { idempotencyKey: 'run1:n1:1', timeoutMs: 4000 }),
    );
    expect(result).toEqual({ results: [{ ok: true, echoed: 'hello', hasWebhook: true }], count: 1 });
    expect(received).toEqual([
      expect.objectContaining({
        tool: 'post_message',
        inputs: { text: 'hello' },
        config: { webhook_url: WEBHOOK },
        idempotencyKey: 'run1:n1:1',
        timeoutMs: 4000,
      }),
    ]);
  });

  it('redacts the user’s config from a tool output that echoes it', async () => {
    const result = await executeEndpoint(existingTool(), 'notify', { text: 'echo config' }, {}, ctx('alice'));
    expect(result.results).toEqual([
      { ok: true, echoed: 'echo config', hasWebhook: true, debug: 'posted to [REDACTED]' },
    ]);
    expect(JSON.stringify(result)).not.toContain('secret-value-xyz');
  });

  it('refuses users who have not enabled it, unknown plugins and unknown tools', async () => {
    expect(
      await rejection(executeEndpoint(existingTool(), 'notify', { text: 'x' }, {}, ctx('bob'))),
    ).toMatchObject({ code: 'FAILED_PRECONDITION' });
    expect(
      await rejection(plugins.invoke('ghost', 't', {}, { timeoutMs: 1000, ownerUserId: 'alice' })),
    ).toMatchObject({ code: 'NOT_FOUND', message: 'plugin ghost is not registered' });
    expect(
      await rejection(
        plugins.invoke('slack-webhook', 'delete_all', {}, { timeoutMs: 1000, ownerUserId: 'alice' }),
      ),
    ).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining('tools: post_message, strict, limited, slow'),
    });
    expect(
      await rejection(plugins.invoke('slack-webhook', 'post_message', {}, { timeoutMs: 1000 })),
    ).toMatchObject({ code: 'FAILED_PRECONDITION' });
  });

  it('keeps the plugin’s field violations and retry-after', async () => {
    const strict = await rejection(
      plugins.invoke('slack-webhook', 'strict', { text: 1 }, { timeoutMs: 2000, ownerUserId: 'alice' }),
    );
    expect(strict).toBeInstanceOf(ConnectorError);
    expect(strict).toMatchObject({
      code: 'INVALID_ARGUMENT',
      violations: [{ field: 'inputs.text', reason: 'must be string' }],
    });
    const limited = await rejection(
      plugins.invoke('slack-webhook', 'limited', {}, { timeoutMs: 2000, ownerUserId: 'alice' }),
    );
    expect(limited).toMatchObject({ code: 'RATE_LIMIT', retryAfterMs: 4000, retryable: true });
  });

  it('times out and cancels calls that take too long', async () => {
    const slow = await rejection(
      plugins.invoke('slack-webhook', 'slow', {}, { timeoutMs: 200, ownerUserId: 'alice' }),
    );
    expect(slow).toMatchObject({
      code: 'TIMEOUT',
      message: 'plugin slack-webhook did not answer tool slow within 200 ms',
    });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    expect(
      (
        await rejection(
          plugins.invoke(
            'slack-webhook',
            'slow',
            {},
            { timeoutMs: 5000, ownerUserId: 'alice', signal: abort.signal },
          ),
        )
      ).code,
    ).toBe('CANCELLED');
  });

  it('answers UNAVAILABLE with a retry-after once heartbeats are three intervals old, and recovers on the next heartbeat', async () => {
    const { instanceId } = await call(registry.registerPlugin(registration()));
    await sqlRows(
      kit.db,
      `UPDATE agent_plugin_instances SET last_heartbeat_at = now() - interval '31 seconds'`,
    );
    expect((await call(registry.getPlugin({ principal: alice, name: 'slack-webhook' }))).plugin!.status).toBe(
      'inactive',
    );
    const down = await rejection(
      plugins.invoke(
        'slack-webhook',
        'post_message',
        { text: 'x' },
        { timeoutMs: 1000, ownerUserId: 'alice' },
      ),
    );
    expect(down).toMatchObject({
      code: 'UNAVAILABLE',
      retryAfterMs: 10_000,
      message: expect.stringContaining('is inactive (no heartbeat for 31 s)'),
    });
    expect((await call(registry.heartbeatPlugin({ name: 'slack-webhook', instanceId }))).known).toBe(true);
    expect((await call(registry.getPlugin({ principal: alice, name: 'slack-webhook' }))).plugin!.status).toBe(
      'active',
    );
  });

  it('a deregistered instance gets no more calls: the live ones take them, and with none left calls answer UNAVAILABLE', async () => {
    await sqlRows(kit.db, 'DELETE FROM agent_plugin_instances');
    const deadAddress = `127.0.0.1:${await freePort()}`;
    const good = await call(registry.registerPlugin(registration()));
    const gone = await call(registry.registerPlugin(registration({ address: deadAddress })));
    expect((await call(registry.deregisterPlugin({ name: 'slack-webhook', instanceId: gone.instanceId }))).removed).toBe(true);
    received.length = 0;
    for (let i = 0; i < 8; i++) {
      // Before, each call picked one of the two at random and half of them failed on the dead address.
      await plugins.invoke('slack-webhook', 'post_message', { text: `m${i}` }, { timeoutMs: 2000, ownerUserId: 'alice' });
    }
    expect(received).toHaveLength(8);
    expect((await call(registry.getPlugin({ principal: alice, name: 'slack-webhook' }))).plugin).toMatchObject({
      status: 'active',
      address: pluginAddress,
    });

    expect((await call(registry.deregisterPlugin({ name: 'slack-webhook', instanceId: good.instanceId }))).removed).toBe(true);
    const down = await rejection(
      plugins.invoke('slack-webhook', 'post_message', { text: 'x' }, { timeoutMs: 1000, ownerUserId: 'alice' }),
    );
    expect(down).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringContaining('no running instance') });
    // Its heartbeat now asks it to register again; deregistering twice is no error.
    expect((await call(registry.heartbeatPlugin({ name: 'slack-webhook', instanceId: good.instanceId }))).known).toBe(false);
    expect((await call(registry.deregisterPlugin({ name: 'slack-webhook', instanceId: good.instanceId }))).removed).toBe(false);
    await call(registry.registerPlugin(registration()));
  });

  it('deregistration names the field it cannot use, and only the holder of an instance id can end it', async () => {
    const { instanceId } = await call(registry.registerPlugin(registration()));
    expect(await rejection(call(registry.deregisterPlugin({ name: '', instanceId })))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      violations: [{ field: 'name', reason: 'is required' }],
    });
    expect(await rejection(call(registry.deregisterPlugin({ name: 'slack-webhook', instanceId: '' })))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      violations: [{ field: 'instance_id', reason: 'is required' }],
    });
    expect(
      await rejection(call(registry.deregisterPlugin({ name: 'slack-webhook', instanceId: "x' OR 1=1" }))),
    ).toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'instance_id', reason: expect.stringContaining('UUID') }] });
    // Another plugin's name with this id, or a made-up id: nothing removed.
    expect((await call(registry.deregisterPlugin({ name: 'other', instanceId }))).removed).toBe(false);
    expect(
      (await call(registry.deregisterPlugin({ name: 'slack-webhook', instanceId: '00000000-0000-4000-8000-000000000000' }))).removed,
    ).toBe(false);
    expect((await call(registry.heartbeatPlugin({ name: 'slack-webhook', instanceId }))).known).toBe(true);
  });

  it('answers FAILED_PRECONDITION for an operator-disabled plugin, which lists as disabled', async () => {
    const repo = new PluginRepository(kit, parseKeyring(keys));
    await repo.setOperatorEnabled('slack-webhook', false);
    try {
      expect(
        (await call(registry.getPlugin({ principal: alice, name: 'slack-webhook' }))).plugin!.status,
      ).toBe('disabled');
      expect(
        await rejection(
          plugins.invoke(
            'slack-webhook',
            'post_message',
            { text: 'x' },
            { timeoutMs: 1000, ownerUserId: 'alice' },
          ),
        ),
      ).toMatchObject({
        code: 'FAILED_PRECONDITION',
        message: 'plugin slack-webhook is disabled by the operator',
      });
    } finally {
      await repo.setOperatorEnabled('slack-webhook', true);
    }
  });

  it('a plugin that registered but does not answer times out with its name', async () => {
    const dead = await freePort();
    await plugins.register(
      { ...registrationDomain(), name: 'dead-plugin', address: `127.0.0.1:${dead}` },
      TOKEN,
    );
    await plugins.setEnabled('alice', 'dead-plugin', true, { webhook_url: WEBHOOK });
    const err = await rejection(
      plugins.invoke('dead-plugin', 'post_message', {}, { timeoutMs: 300, ownerUserId: 'alice' }),
    );
    expect(err).toMatchObject({
      code: 'TIMEOUT',
      message: 'plugin dead-plugin did not answer tool post_message within 300 ms',
    });
  });

  it('a config ciphertext copied to another user does not decrypt (bound by AAD)', async () => {
    await plugins.setEnabled('bob', 'slack-webhook', true, { webhook_url: 'https://hooks.example.com/bob' });
    await sqlRows(
      kit.db,
      `UPDATE agent_plugin_user_config SET config_ciphertext = (SELECT config_ciphertext FROM agent_plugin_user_config WHERE user_id = 'alice' AND plugin_name = 'slack-webhook')
        WHERE user_id = 'bob' AND plugin_name = 'slack-webhook'`,
    );
    expect(pluginConfigAad('bob', 'slack-webhook')).toBe('plugin-config:bob:slack-webhook');
    expect(
      await rejection(
        plugins.invoke(
          'slack-webhook',
          'post_message',
          { text: 'x' },
          { timeoutMs: 1000, ownerUserId: 'bob' },
        ),
      ),
    ).toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: expect.stringContaining('cannot be decrypted'),
    });
  });

  it('a plugin without required config is enabled with an empty config, still stored encrypted', async () => {
    await plugins.register(
      { ...registrationDomain(), name: 'no-config', connectionType: 'none', requiredConfig: [] },
      TOKEN,
    );
    await plugins.setEnabled('carol', 'no-config', true, {});
    const [row] = await sqlRows(
      kit.db,
      `SELECT config_keys, config_ciphertext FROM agent_plugin_user_config WHERE user_id = 'carol'`,
    );
    expect(row.config_keys).toEqual([]);
    expect(row.config_ciphertext).toMatch(/^v1\.k1\./);
    received.length = 0;
    await plugins.invoke(
      'no-config',
      'post_message',
      { text: 'x' },
      { timeoutMs: 2000, ownerUserId: 'carol' },
    );
    expect(received[0]!.config).toEqual({});
  });
});

describe('key rotation', () => {
  it('the user config column re-encrypts under a new key with its row binding (for ENCRYPTED_COLUMNS)', async () => {
    const next = `k2:${generateKeyBase64()},${keys}`;
    const column = {
      table: 'agent_plugin_user_config',
      column: 'config_ciphertext',
      keyColumns: ['user_id', 'plugin_name'],
      aad: (r: Record<string, unknown>) => pluginConfigAad(String(r.user_id), String(r.plugin_name)),
    };
    const sql = (text: string, params: unknown[]) => sqlRows(kit.db, text, params);
    const [report] = await reencryptSecrets(sql, parseKeyring(next), [column]);
    // bob's row holds alice's ciphertext (copied above), which his row binding refuses.
    expect(report).toMatchObject({ table: 'agent_plugin_user_config', failed: 1 });
    expect(report!.reencrypted).toBe(report!.scanned - 1);
    const rotated = new PluginRepository(kit, parseKeyring(next.split(',')[0]!));
    expect(await rotated.userConfig('alice', 'slack-webhook')).toEqual({ webhook_url: WEBHOOK });
  });
});
