/**
 * The Slack webhook example plugin. `plugin` (default options) is what
 * `af plugin dev` serves; `main.ts` runs it as a service.
 */
import { createSlackWebhookPlugin } from './plugin.js';

export {
  allowedHostsFromEnv,
  createSlackWebhookPlugin,
  webhookUrl,
  type SlackWebhookOptions,
} from './plugin.js';

/** The plugin with its defaults (webhooks on hooks.slack.com only). */
export const plugin = createSlackWebhookPlugin();
