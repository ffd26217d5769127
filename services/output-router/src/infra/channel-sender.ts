/**
 * Channel messages (Slack and the like) through connector plugins: a plugin
 * tool is called the way every service calls one — connector-runtime's
 * ActionService, action `plugin:<plugin>.<tool>`, with the run's principal
 * (connector-runtime supplies that user's plugin config, e.g. the webhook
 * URL) and the delivery key as idempotency key (connector-runtime answers a
 * replayed key with the first answer). Off without CONNECTOR_RUNTIME_URL.
 */
import { action } from '@af/contracts';
import { AppError, call, createGrpcClient, type ActionContext, type GrpcClientOptions } from '@af/service-kit';

/** A channel name (`slack`, `default`, …) → the plugin tool that posts to it. */
export type ChannelPlugins = Record<string, { plugin: string; tool: string }>;

/** `slack=slack-webhook.post_message,default=slack-webhook.post_message` → the map; problems say which entry. */
export function parseChannelPlugins(text: string): { ok: true; map: ChannelPlugins } | { ok: false; error: string } {
  const map: ChannelPlugins = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^([a-z0-9_-]+)=([a-z0-9._-]+)\.([a-z0-9_]+)$/.exec(part);
    if (!m) return { ok: false, error: `${JSON.stringify(part)} is not <channel>=<plugin>.<tool>` };
    map[m[1]!] = { plugin: m[2]!, tool: m[3]! };
  }
  return { ok: true, map };
}

export interface ChannelMessage {
  /** The plugin, or a channel name of the map. */
  plugin: string;
  channel?: string | undefined;
  title: string;
  message: string;
  deliveryKey: string;
}

type Auth = GrpcClientOptions['auth'];

export class ChannelSender {
  private readonly client: action.ActionServiceClient | undefined;

  constructor(
    url: string | undefined,
    auth: Auth,
    private readonly plugins: ChannelPlugins,
    private readonly timeoutMs = 15_000,
  ) {
    this.client = url ? createGrpcClient<action.ActionServiceClient>('action', action.ACTION_SERVICE_NAME, url, { auth }) : undefined;
  }

  get enabled(): boolean {
    return this.client !== undefined;
  }

  /** The plugin tool of a channel name or a plugin name (its `post_message`). */
  target(name: string): { plugin: string; tool: string } {
    return this.plugins[name] ?? { plugin: name, tool: 'post_message' };
  }

  async send(ctx: ActionContext, m: ChannelMessage): Promise<Record<string, unknown>> {
    if (!this.client)
      throw new AppError('FAILED_PRECONDITION', 'channel messages are off in this deployment: CONNECTOR_RUNTIME_URL is not set');
    const { plugin, tool } = this.target(m.plugin);
    const key = m.deliveryKey || `${ctx.idempotencyKey}:channel`;
    const res = await call(
      this.client.execute({
        action: `plugin:${plugin}.${tool}`,
        inputs: { text: m.title ? `*${m.title}*\n${m.message}` : m.message, ...(m.channel ? { channel: m.channel } : {}) },
        params: {},
        idempotencyKey: key,
        principal: { userId: ctx.principal.userId, teamIds: [...ctx.principal.teamIds] },
        timeoutMs: this.timeoutMs,
        runId: ctx.runId,
        nodeId: ctx.nodeId,
        attempt: 1,
      }),
      this.timeoutMs + 2_000,
    );
    return { plugin, tool, ...(m.channel ? { channel: m.channel } : {}), outputs: res.outputs ?? {} };
  }
}
