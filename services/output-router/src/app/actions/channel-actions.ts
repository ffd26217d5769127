/**
 * send_channel_message: a message to a messaging channel through the
 * connector plugin that posts there (`OUTPUT_CHANNEL_PLUGINS`: `slack` →
 * `slack-webhook.post_message` by default), called through connector-runtime
 * with the caller's principal (their plugin config, e.g. their webhook URL).
 * Once per node: the delivery log is read first and the plugin call carries
 * the delivery key, which connector-runtime de-duplicates.
 */
import { type ActionHandler } from '@af/service-kit';
import { z } from 'zod';
import type { ChannelSender } from '../../infra/channel-sender.js';
import { parse } from '../parse.js';
import { actionKey, type ActionDeps } from './context.js';

export function channelActions(d: ActionDeps & { channels: ChannelSender }): ActionHandler[] {
  const send: ActionHandler = {
    name: 'send_channel_message',
    sideEffects: true,
    async execute(ctx) {
      const i = parse(z.object({ message: z.string().min(1).max(40_000) }), ctx.inputs, 'inputs');
      const p = parse(
        z.object({
          channel: z.string().min(1).max(100).default('default'),
          chat_id: z.string().min(1).max(200).optional(),
          format: z.enum(['markdown', 'plain', 'html']).default('markdown'),
          silent: z.boolean().optional(),
        }),
        ctx.params,
        'params',
      );
      const key = actionKey(ctx);
      const done = await d.deliveries.find(key);
      const target = d.channels.target(p.channel);
      if (done?.status === 'delivered') return { ...done.details, success: true };
      try {
        const r = await d.channels.send(ctx, {
          plugin: p.channel,
          channel: p.chat_id,
          title: '',
          message: i.message,
          deliveryKey: key,
        });
        const outputs = (r.outputs ?? {}) as Record<string, unknown>;
        const details = {
          message_id: typeof outputs.message_id === 'string' ? outputs.message_id : key || 'sent',
          channel: p.channel,
          plugin: target.plugin,
        };
        await d.deliveries.record(key, ctx.principal.userId, 'channel_message', 'delivered', details);
        return { ...details, success: true };
      } catch (err) {
        await d.deliveries.record(key, ctx.principal.userId, 'channel_message', 'failed', { error: (err as Error).message });
        throw err;
      }
    },
  };
  return [send];
}
