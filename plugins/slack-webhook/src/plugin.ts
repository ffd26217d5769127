/**
 * Example plugin: posts messages to a Slack incoming webhook. The webhook URL
 * is each user's plugin config (it is the credential: whoever has it can
 * post), so it is never logged or echoed in errors. The tool is
 * side-effecting: a repeated idempotency key is answered from memory by the
 * SDK instead of posting twice.
 */
import { definePlugin, PluginError, type PluginDefinition } from '@af/plugin-sdk';
import { request } from 'undici';

export interface SlackWebhookOptions {
  /**
   * Hosts webhook URLs may point at (default `hooks.slack.com`); `*` allows
   * any. Keeps a user's config from turning the plugin into a proxy.
   */
  allowedHosts?: readonly string[];
  /** undici's `request`; injectable for tests. */
  http?: typeof request;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/** Slack answers errors as a short code such as `invalid_payload` or `no_service`. */
const SLACK_ERROR = /^[a-z_]{1,64}$/;

export function createSlackWebhookPlugin(options: SlackWebhookOptions = {}): PluginDefinition {
  const allowedHosts = options.allowedHosts ?? ['hooks.slack.com'];
  const http = options.http ?? request;
  return definePlugin({
    name: 'slack-webhook',
    version: '0.1.0',
    description: 'Post messages to Slack through an incoming webhook',
    connectionType: 'slack_webhook',
    requiredConfig: ['webhook_url'],
    toolPack: 'slack',
    tools: {
      post_message: {
        description: 'Post a message to the Slack channel of the webhook',
        input: {
          type: 'object',
          properties: {
            text: {
              type: 'string',
              minLength: 1,
              maxLength: 40_000,
              description: 'Message text (Slack mrkdwn)',
            },
            channel: {
              type: 'string',
              pattern: '^[#@]?[A-Za-z0-9._-]{1,80}$',
              description: 'Override the channel (legacy webhooks only)',
            },
            username: { type: 'string', minLength: 1, maxLength: 80 },
            icon_emoji: { type: 'string', pattern: '^:[a-z0-9_+-]+:$' },
            blocks: {
              type: 'array',
              maxItems: 50,
              items: { type: 'object' },
              description: 'Block Kit blocks',
            },
          },
          required: ['text'],
          additionalProperties: false,
        },
        output: {
          type: 'object',
          properties: { ok: { type: 'boolean' }, status: { type: 'integer' } },
          required: ['ok', 'status'],
          additionalProperties: false,
        },
        sideEffecting: true,
        handler: async (inputs, { config, signal, log }) => {
          const url = webhookUrl(config.webhook_url ?? '', allowedHosts);
          const body = JSON.stringify({
            text: inputs.text,
            ...(inputs.channel ? { channel: inputs.channel } : {}),
            ...(inputs.username ? { username: inputs.username } : {}),
            ...(inputs.icon_emoji ? { icon_emoji: inputs.icon_emoji } : {}),
            ...(inputs.blocks ? { blocks: inputs.blocks } : {}),
          });
          let res;
          try {
            res = await http(url, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body,
              signal,
              headersTimeout: 15_000,
              bodyTimeout: 15_000,
            });
          } catch (err) {
            if (signal.aborted) throw err;
            // The error's message may hold the URL; its code says enough.
            const code = (err as { code?: string }).code ?? 'network error';
            throw PluginError.unavailable(`Slack could not be reached (${code})`);
          }
          const answer = (await res.body.text().catch(() => '')).trim();
          const slackError = SLACK_ERROR.test(answer) ? answer : 'no detail';
          const status = res.statusCode;
          log.info({ status }, 'slack webhook answered');
          if (status >= 200 && status < 300) return { ok: true, status };
          if (status === 429) {
            const after = Number(res.headers['retry-after']);
            throw new PluginError(
              'RESOURCE_EXHAUSTED',
              'Slack rate limit reached',
              Number.isFinite(after) && after >= 0 ? { retryAfterMs: after * 1000 } : {},
            );
          }
          if (status >= 500) throw PluginError.unavailable(`Slack answered ${status}`);
          if (status === 400 || status === 413 || status === 422) {
            throw new PluginError('INVALID_ARGUMENT', `Slack refused the message (${status} ${slackError})`);
          }
          // 403 / 404 / 410: the webhook was revoked or never existed.
          throw PluginError.failedPrecondition(
            `Slack refused the webhook (${status} ${slackError}); the user should enable the plugin again with a working webhook_url`,
            [{ field: 'config.webhook_url', reason: `Slack answered ${status}` }],
          );
        },
      },
    },
  });
}

/** The config's webhook URL, when it is an https URL of an allowed host (http only for loopback). */
export function webhookUrl(value: string, allowedHosts: readonly string[]): string {
  const refuse = (reason: string) =>
    PluginError.failedPrecondition(`config.webhook_url: ${reason}`, [
      { field: 'config.webhook_url', reason },
    ]);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse('must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname)))
    throw refuse('must use https');
  if (url.username || url.password) throw refuse('must not contain credentials');
  if (!allowedHosts.includes('*') && !allowedHosts.includes(url.hostname))
    throw refuse(`must point at ${allowedHosts.join(' or ')}`);
  return url.toString();
}

/** SLACK_WEBHOOK_ALLOWED_HOSTS: comma-separated hosts (`*` for any); default hooks.slack.com. */
export function allowedHostsFromEnv(env: NodeJS.ProcessEnv): string[] {
  const list = (env.SLACK_WEBHOOK_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  return list.length > 0 ? list : ['hooks.slack.com'];
}
