/**
 * Runs the Slack webhook plugin as a service: PLUGIN_* variables (see
 * @af/plugin-sdk `pluginEnvSchema`) plus SLACK_WEBHOOK_ALLOWED_HOSTS.
 */
import { runPlugin } from '@af/plugin-sdk';
import { allowedHostsFromEnv, createSlackWebhookPlugin } from './plugin.js';

void runPlugin(createSlackWebhookPlugin({ allowedHosts: allowedHostsFromEnv(process.env) }));
