/**
 * connector-runtime serves plugin tools over ActionService, across processes.
 * Real: connector-runtime (`dist/main.js`), the example Slack webhook plugin
 * (`plugins/slack-webhook/dist/main.js`), PostgreSQL, NATS, gRPC between
 * them, and an HTTP server standing in for Slack (a message whose text is
 * `slow` is answered after 5 s). Runs the ActionService contract every
 * serving service runs: `plugin:slack-webhook.post_message` posts once per
 * idempotency key, an unknown action is INVALID_ARGUMENT, the deadline holds.
 *
 * Needs `pnpm --filter @af/plugin-sdk --filter @af/plugin-slack-webhook --filter @af/connector-runtime build`.
 */
import { randomBytes } from 'node:crypto';
import { action, connector } from '@af/contracts';
import { AppError, call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import {
  actionServiceContract,
  createTestDatabase,
  freePort,
  PluginProcess,
  ServiceProcess,
  startFixtureServer,
  TEST_NATS_URL,
  type FixtureServer,
  type TestDatabase,
} from '@af/testing';

const TOKEN = randomBytes(24).toString('hex');
const SERVICE_AUTH_SECRET = randomBytes(32).toString('hex');
const auth = new ServiceAuth({ secret: SERVICE_AUTH_SECRET, service: 'e2e' });
const HOOK_PATH = '/services/T0ACT/B0ACT/action-webhook-path';
const alice = { userId: 'alice', teamIds: [] };
const POST = 'plugin:slack-webhook.post_message';

let db: TestDatabase;
let runtime: ServiceProcess;
let slackPlugin: PluginProcess;
let slack: FixtureServer;
let actions: action.ActionServiceClient;
let registry: connector.PluginRegistryServiceClient;

beforeAll(async () => {
  db = await createTestDatabase();
  slack = await startFixtureServer();
  slack.route('POST', HOOK_PATH, (req) => (JSON.parse(req.body).text === 'slow' ? { body: 'ok', delayMs: 5_000 } : { body: 'ok' }));
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
    SERVICE_AUTH_SECRET,
  });
  await runtime.start();
  const address = `127.0.0.1:${grpcPort}`;
  actions = createGrpcClient<action.ActionServiceClient>('action', action.ACTION_SERVICE_NAME, address, { auth });
  registry = createGrpcClient<connector.PluginRegistryServiceClient>('connector', 'PluginRegistryService', address, { auth });
  slackPlugin = new PluginProcess({
    PLUGIN_HOST: '127.0.0.1',
    PLUGIN_PORT: String(await freePort()),
    PLUGIN_REGISTRY_URL: address,
    PLUGIN_REGISTRATION_TOKEN: TOKEN,
    SLACK_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    LOG_LEVEL: 'debug',
  });
  await slackPlugin.start();
  await call(registry.setPluginEnabled({ principal: alice, name: 'slack-webhook', enabled: true, config: { webhook_url: `${slack.url}${HOOK_PATH}` } }));
}, 90_000);

afterAll(async () => {
  await slackPlugin?.kill();
  await runtime?.stop();
  await slack?.close();
  await db?.drop();
});

// An execution of post_message is a POST to the webhook (the slow ones included once they land).
const executions = async () => slack.requestsTo('POST', HOOK_PATH).filter((r) => JSON.parse(r.body).text !== 'slow').length;

actionServiceContract('connector-runtime (plugin tools)', () => ({
  execute: (req) => call(actions.execute(req), 30_000),
  listActions: () => call(actions.listActions({})),
  principal: alice,
  probe: { action: POST, inputs: { text: 'contract probe' }, executions },
  slow: { action: POST, inputs: { text: 'slow' }, takesMs: 5_000 },
}));

const request = (over: Partial<action.ExecuteRequest>): action.ExecuteRequest => ({
  action: POST,
  inputs: { text: 'hello' },
  params: { plugin: 'slack-webhook' },
  idempotencyKey: `r-${randomBytes(4).toString('hex')}:post:1`,
  principal: alice,
  timeoutMs: 10_000,
  runId: 'r',
  nodeId: 'post',
  attempt: 1,
  ...over,
});

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected the call to fail');
}

it('lists each plugin tool as plugin:<plugin>.<tool> with its contract and version', async () => {
  const listed = await call(actions.listActions({}));
  expect(listed.service).toBe('connector-runtime');
  // Beside the built-in search_web and crawl_url (web-actions.e2e-spec.ts).
  expect(listed.actions.filter((a) => a.name.startsWith('plugin:'))).toEqual([
    {
      name: POST,
      version: '0.1.0',
      sideEffects: true,
      contract: expect.objectContaining({
        category: 'plugin:slack-webhook',
        plugin: 'slack-webhook',
        tool: 'post_message',
        input_schema: expect.objectContaining({ required: ['text'] }),
      }),
    },
  ]);
});

it('posts on behalf of the principal, and refuses a user who has not enabled the plugin', async () => {
  const before = slack.count('POST', HOOK_PATH);
  const done = await call(actions.execute(request({ inputs: { text: 'from a run', channel: '#runs' } })));
  expect(done).toEqual({ outputs: { ok: true, status: 200 }, replayed: false });
  expect(JSON.parse(slack.requestsTo('POST', HOOK_PATH).at(-1)!.body)).toEqual({ text: 'from a run', channel: '#runs' });
  const bob = await rejection(call(actions.execute(request({ principal: { userId: 'bob', teamIds: [] } }))));
  expect([bob.code, bob.message]).toEqual(['FAILED_PRECONDITION', expect.stringContaining('not enabled for this user')]);
  expect(slack.count('POST', HOOK_PATH) - before).toBe(1);
});

it("refuses inputs the tool's contract refuses, naming the field", async () => {
  const err = await rejection(call(actions.execute(request({ inputs: { text: 'x', channel: 'not a channel!' } }))));
  expect(err.code).toBe('INVALID_ARGUMENT');
  expect(err.violations).toEqual([{ field: 'inputs.channel', reason: expect.stringContaining('must match pattern') }]);
});

it('refuses a tool the plugin does not have, naming what it serves', async () => {
  const err = await rejection(call(actions.execute(request({ action: 'plugin:slack-webhook.delete_message' }))));
  expect(err.code).toBe('INVALID_ARGUMENT');
  expect(err.message).toContain(`connector-runtime serves no action "plugin:slack-webhook.delete_message" (it serves: crawl_url, ${POST}, search_web)`);
});
