/**
 * The post_message tool against a real HTTP server standing in for Slack
 * (startFixtureServer), called through the SDK's invokeTool as the gRPC
 * server would call it.
 */
import {
  createPluginLogger,
  IdempotencyCache,
  invokeTool,
  PluginError,
  type PluginDefinition,
} from '@af/plugin-sdk';
import { freePort, startFixtureServer, type FixtureServer } from '@af/testing';
import { allowedHostsFromEnv, createSlackWebhookPlugin, webhookUrl } from './plugin.js';

let slack: FixtureServer;
let plugin: PluginDefinition;
let lines: string[];
let cache: IdempotencyCache;

beforeAll(async () => {
  slack = await startFixtureServer();
  plugin = createSlackWebhookPlugin({ allowedHosts: ['127.0.0.1'] });
});
afterAll(() => slack.close());
beforeEach(() => {
  slack.reset();
  lines = [];
  cache = new IdempotencyCache();
});

const hook = () => `${slack.url}/services/T000/B000/XXXXSECRETXXXX`;

function post(inputs: Record<string, unknown>, extra: { key?: string; webhook?: string } = {}) {
  return invokeTool(
    plugin,
    {
      tool: 'post_message',
      inputs,
      config: { webhook_url: extra.webhook ?? hook() },
      ...(extra.key ? { idempotencyKey: extra.key } : {}),
      timeoutMs: 5000,
    },
    {
      log: createPluginLogger(plugin, 'debug', { write: (s: string) => void lines.push(s) }),
      idempotency: cache,
    },
  );
}

async function failure(p: Promise<unknown>): Promise<PluginError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(PluginError);
    return err as PluginError;
  }
  throw new Error('expected the call to fail');
}

describe('slack-webhook post_message', () => {
  it('declares its contract', () => {
    expect(plugin).toMatchObject({
      name: 'slack-webhook',
      connectionType: 'slack_webhook',
      requiredConfig: ['webhook_url'],
      toolPack: 'slack',
    });
    expect(plugin.tools.get('post_message')).toMatchObject({ sideEffecting: true });
  });

  it('posts a Slack-shaped JSON message to the webhook', async () => {
    slack.route('POST', '/services/T000/B000/XXXXSECRETXXXX', { body: 'ok' });
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: '*hi*' } }];
    await expect(
      post({ text: 'Filing ready', channel: '#filings', username: 'AF', icon_emoji: ':robot_face:', blocks }),
    ).resolves.toEqual({ ok: true, status: 200 });
    const [req] = slack.requestsTo('POST', '/services/T000/B000/XXXXSECRETXXXX');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req!.body)).toEqual({
      text: 'Filing ready',
      channel: '#filings',
      username: 'AF',
      icon_emoji: ':robot_face:',
      blocks,
    });
  });

  it('posts once per idempotency key, even when called again', async () => {
    slack.route('POST', '/services/T000/B000/XXXXSECRETXXXX', { body: 'ok' });
    await post({ text: 'once' }, { key: 'run1:notify:1' });
    await post({ text: 'once' }, { key: 'run1:notify:1' });
    await post({ text: 'once' }, { key: 'run1:notify:2' });
    expect(slack.count('POST', '/services/T000/B000/XXXXSECRETXXXX')).toBe(2);
  });

  it('maps Slack’s answers to statuses, without echoing the webhook', async () => {
    const path = '/services/T000/B000/XXXXSECRETXXXX';
    slack.route('POST', path, { status: 429, headers: { 'retry-after': '7' }, body: 'rate_limited' });
    expect(await failure(post({ text: 'x' }))).toMatchObject({
      code: 'RESOURCE_EXHAUSTED',
      retryAfterMs: 7000,
    });
    slack.route('POST', path, { status: 503, body: '<html>down</html>' });
    expect(await failure(post({ text: 'x' }))).toMatchObject({
      code: 'UNAVAILABLE',
      message: 'Slack answered 503',
    });
    slack.route('POST', path, { status: 400, body: 'invalid_payload' });
    expect(await failure(post({ text: 'x' }))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'Slack refused the message (400 invalid_payload)',
    });
    slack.route('POST', path, { status: 404, body: 'no_service' });
    const revoked = await failure(post({ text: 'x' }));
    expect(revoked).toMatchObject({
      code: 'FAILED_PRECONDITION',
      violations: [{ field: 'config.webhook_url', reason: 'Slack answered 404' }],
    });
    expect(revoked.message).toContain('404 no_service');
    slack.route('POST', path, { status: 403, body: 'Something with <b>markup</b> and detail' });
    expect((await failure(post({ text: 'x' }))).message).toContain('403 no detail');
    expect(lines.join('')).not.toContain('XXXXSECRETXXXX');
  });

  it('answers UNAVAILABLE when Slack cannot be reached, naming no URL', async () => {
    const closed = await freePort();
    const err = await failure(
      post({ text: 'x' }, { webhook: `http://127.0.0.1:${closed}/services/T0/B0/SECRETPATH` }),
    );
    expect(err.code).toBe('UNAVAILABLE');
    expect(err.message).toBe('Slack could not be reached (ECONNREFUSED)');
  });

  it('refuses bad inputs before posting', async () => {
    const err = await failure(post({ text: '', channel: 'bad channel!', colour: 'red' }));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations.map((v) => v.field).sort()).toEqual([
      'inputs.channel',
      'inputs.colour',
      'inputs.text',
    ]);
    expect(slack.requests).toHaveLength(0);
  });

  it('refuses webhook URLs that are not https on an allowed host', async () => {
    const err = await failure(post({ text: 'x' }, { webhook: 'https://evil.example.com/hook' }));
    expect(err).toMatchObject({
      code: 'FAILED_PRECONDITION',
      violations: [{ field: 'config.webhook_url', reason: 'must point at 127.0.0.1' }],
    });
    expect(() => webhookUrl('http://hooks.slack.com/services/x', ['hooks.slack.com'])).toThrow(
      'must use https',
    );
    expect(() => webhookUrl('not a url', ['hooks.slack.com'])).toThrow('must be an absolute URL');
    expect(() => webhookUrl('https://u:p@hooks.slack.com/x', ['hooks.slack.com'])).toThrow(
      'must not contain credentials',
    );
    expect(webhookUrl('https://anything.example/x', ['*'])).toBe('https://anything.example/x');
    expect(webhookUrl('https://hooks.slack.com/services/T/B/X', ['hooks.slack.com'])).toBe(
      'https://hooks.slack.com/services/T/B/X',
    );
  });

  it('reads the allowed hosts from SLACK_WEBHOOK_ALLOWED_HOSTS', () => {
    expect(allowedHostsFromEnv({})).toEqual(['hooks.slack.com']);
    expect(allowedHostsFromEnv({ SLACK_WEBHOOK_ALLOWED_HOSTS: ' Hooks.Slack.com, 127.0.0.1 ,' })).toEqual([
      'hooks.slack.com',
      '127.0.0.1',
    ]);
  });
});
