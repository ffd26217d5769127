/**
 * A plugin service across processes. Real: connector-runtime
 * (`services/connector-runtime/dist/main.js`), the example Slack webhook
 * plugin (`plugins/slack-webhook/dist/main.js`, built with @af/plugin-sdk),
 * PostgreSQL, NATS, gRPC between them, and an HTTP server standing in for
 * Slack. The plugin registers, a user enables it with a webhook pointing at
 * the stand-in, an `existing_tool` connector posts through it exactly once
 * per idempotency key; when the plugin dies its tools answer UNAVAILABLE with
 * a retry-after, and when it comes back it registers again and works; when it
 * is stopped gracefully it deregisters and its tools answer UNAVAILABLE at once.
 *
 * Needs `pnpm --filter @af/plugin-sdk --filter @af/plugin-slack-webhook --filter @af/connector-runtime build`.
 */
import { randomBytes } from 'node:crypto';
import { connector } from '@af/contracts';
import { AppError, call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import {
  createTestDatabase,
  freePort,
  PluginProcess,
  ServiceProcess,
  startFixtureServer,
  TEST_NATS_URL,
  until,
  type FixtureServer,
  type TestDatabase,
} from '@af/testing';

const TOKEN = randomBytes(24).toString('hex');
const SERVICE_AUTH_SECRET = randomBytes(32).toString('hex');
/** Signs the test's own gRPC calls as the principal each message names. */
const auth = new ServiceAuth({ secret: SERVICE_AUTH_SECRET, service: 'e2e' });
const HOOK_PATH = '/services/T0E2E/B0E2E/e2e-webhook-secret-path';
const alice = { userId: 'alice', teamIds: [] };

const CONNECTOR_YAML = `
id: team-slack
name: Team Slack
type: existing_tool
connection:
  plugin: slack-webhook
  timeout_seconds: 10
endpoints:
  notify:
    description: Post to the team channel
    tool: post_message
    parameters:
      - name: text
        type: string
        required: true
      - name: channel
        type: string
`;

let db: TestDatabase;
let runtime: ServiceProcess;
let slackPlugin: PluginProcess;
let slack: FixtureServer;
let connectors: connector.ConnectorServiceClient;
let registry: connector.PluginRegistryServiceClient;

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected the call to fail');
}

const execute = (text: string, idempotencyKey: string, extra: Record<string, unknown> = {}) =>
  call(
    connectors.executeEndpoint({
      principal: alice,
      connectorId: 'team-slack',
      endpoint: 'notify',
      inputs: { text, ...extra },
      idempotencyKey,
      agentProfileId: '',
      readOnly: false,
    }),
    60_000,
  );
const getPlugin = () =>
  call(registry.getPlugin({ principal: alice, name: 'slack-webhook' })).then((r) => r.plugin!);

beforeAll(async () => {
  db = await createTestDatabase();
  slack = await startFixtureServer();
  slack.route('POST', HOOK_PATH, { body: 'ok' });
  const grpcPort = await freePort();
  runtime = new ServiceProcess('connector-runtime', {
    DATABASE_URL: db.url,
    NATS_URL: TEST_NATS_URL,
    NATS_PREFIX: `t${randomBytes(4).toString('hex')}`,
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: String(grpcPort),
    METRICS_PORT: '0',
    LOG_LEVEL: 'debug',
    CREDENTIALS_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    PLUGIN_REGISTRATION_TOKEN: TOKEN,
    PLUGIN_HEARTBEAT_SECONDS: '1',
    SERVICE_AUTH_SECRET: SERVICE_AUTH_SECRET,
  });
  await runtime.start();
  const address = `127.0.0.1:${grpcPort}`;
  connectors = createGrpcClient<connector.ConnectorServiceClient>('connector', 'ConnectorService', address, { auth });
  registry = createGrpcClient<connector.PluginRegistryServiceClient>(
    'connector',
    'PluginRegistryService',
    address,
    { auth },
  );
  slackPlugin = new PluginProcess({
    PLUGIN_HOST: '127.0.0.1',
    PLUGIN_PORT: String(await freePort()),
    PLUGIN_REGISTRY_URL: address,
    PLUGIN_REGISTRATION_TOKEN: TOKEN,
    SLACK_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    LOG_LEVEL: 'debug',
  });
  await slackPlugin.start();
}, 90_000);

afterAll(async () => {
  await slackPlugin?.kill();
  await runtime?.stop();
  await slack?.close();
  await db?.drop();
});

it('the plugin registers and is listed as active with its tool contract', async () => {
  const plugin = await getPlugin();
  expect(plugin).toMatchObject({
    name: 'slack-webhook',
    version: '0.1.0',
    connectionType: 'slack_webhook',
    requiredConfig: ['webhook_url'],
    toolPackName: 'slack',
    status: 'active',
    enabledForUser: false,
  });
  expect(plugin.tools).toEqual([
    expect.objectContaining({
      name: 'post_message',
      requires: 'slack_webhook',
      sideEffecting: true,
      inputSchema: expect.objectContaining({ required: ['text'] }),
    }),
  ]);
});

it('an existing_tool connector cannot use it before the user enables it', async () => {
  await call(
    connectors.createConnector({
      principal: alice,
      yaml: CONNECTOR_YAML,
      definition: undefined,
      credentials: {},
      idempotencyKey: '',
    }),
  );
  const err = await rejection(execute('too early', 'run0:notify:1'));
  expect(err.code).toBe('FAILED_PRECONDITION');
  expect(err.message).toContain('not enabled for this user');
  expect(slack.count('POST', HOOK_PATH)).toBe(0);
});

it('once enabled, ExecuteEndpoint posts to the webhook exactly once per idempotency key', async () => {
  const { plugin } = await call(
    registry.setPluginEnabled({
      principal: alice,
      name: 'slack-webhook',
      enabled: true,
      config: { webhook_url: `${slack.url}${HOOK_PATH}` },
    }),
  );
  expect(plugin!.enabledForUser).toBe(true);
  const first = await execute('Filing report ready', 'run1:notify:1', { channel: '#filings' });
  expect(first).toEqual({ result: { results: [{ ok: true, status: 200 }], count: 1 }, deduplicated: false });
  const replay = await execute('Filing report ready', 'run1:notify:1', { channel: '#filings' });
  expect(replay).toEqual({ result: first.result, deduplicated: true });
  const posts = slack.requestsTo('POST', HOOK_PATH);
  expect(posts).toHaveLength(1);
  expect(JSON.parse(posts[0]!.body)).toEqual({ text: 'Filing report ready', channel: '#filings' });
});

it('bad inputs are refused naming the field, by the connector or by the plugin’s contract', async () => {
  const missing = await rejection(execute(undefined as unknown as string, 'run2:notify:1'));
  expect(missing.code).toBe('INVALID_ARGUMENT');
  expect(missing.violations).toEqual([{ field: 'inputs.text', reason: 'is required by endpoint "notify"' }]);
  const badChannel = await rejection(execute('hello', 'run2:notify:2', { channel: 'not a channel!' }));
  expect(badChannel.code).toBe('INVALID_ARGUMENT');
  expect(badChannel.violations).toEqual([
    { field: 'inputs.channel', reason: expect.stringContaining('must match pattern') },
  ]);
  expect(slack.count('POST', HOOK_PATH)).toBe(1);
});

it('a dead plugin goes inactive after three missed heartbeats and its tools answer UNAVAILABLE with a retry-after', async () => {
  await slackPlugin.kill();
  await until('plugin inactive', async () => ((await getPlugin()).status === 'inactive' ? true : undefined), 15_000, 200);
  const err = await rejection(execute('while down', 'run3:notify:1'));
  expect(err.code).toBe('UNAVAILABLE');
  expect(err.message).toContain('plugin slack-webhook is inactive');
  expect(err.retryAfterMs).toBe(1000);
  expect(err.retryable).toBe(true);
  expect(slack.count('POST', HOOK_PATH)).toBe(1);
});

it('a restarted plugin registers again and takes calls', async () => {
  await slackPlugin.start();
  await until('plugin active', async () => ((await getPlugin()).status === 'active' ? true : undefined), 15_000, 200);
  const res = await execute('back again', 'run4:notify:1');
  expect(res.result).toEqual({ results: [{ ok: true, status: 200 }], count: 1 });
  expect(slack.count('POST', HOOK_PATH)).toBe(2);
});

it('a plugin stopped gracefully deregisters: its tools answer UNAVAILABLE at once, not after missed heartbeats', async () => {
  expect((await getPlugin()).status).toBe('active');
  expect(await slackPlugin.terminate()).toBe(0);
  const exited = Date.now();
  expect(slackPlugin.output).toContain('deregistered from the plugin registry');
  // Straight after the exit: a killed plugin would count as live for three heartbeat intervals (3 s here),
  // and calls would go to its closed port.
  expect((await getPlugin()).status).toBe('inactive');
  const err = await rejection(execute('after the stop', 'run5:notify:1'));
  expect(Date.now() - exited).toBeLessThan(2_500);
  expect(err.code).toBe('UNAVAILABLE');
  expect(err.message).toContain('plugin slack-webhook is inactive');
  expect(runtime.output).toContain('plugin instance deregistered');
  expect(slack.count('POST', HOOK_PATH)).toBe(2);
});

it('neither process logged the webhook URL or the registration token', () => {
  for (const output of [runtime.output, slackPlugin.output]) {
    expect(output).not.toContain('e2e-webhook-secret-path');
    expect(output).not.toContain(TOKEN);
  }
  expect(runtime.output).toContain('plugin registered');
  expect(slackPlugin.output).toContain('tool call done');
});
