/**
 * What a connector author uses to publish a plugin service (seed §12): define
 * the plugin's tools with typed contracts, serve them over gRPC, and stay
 * registered with connector-runtime. See plugins/slack-webhook for an example.
 */
export {
  definePlugin,
  isPluginDefinition,
  PluginDefinitionError,
  CONFIG_KEY,
  CONNECTION_TYPE,
  PLUGIN_NAME,
  SEMVER,
  TOOL_NAME,
  type PluginDefinition,
  type PluginSpec,
  type PluginTool,
  type ToolContext,
  type ToolSpec,
} from './define-plugin.js';
export {
  PluginError,
  PLUGIN_ERROR_CODES,
  type FieldViolation,
  type PluginErrorCode,
  type PluginErrorOptions,
} from './errors.js';
export { IdempotencyCache, type IdempotencyOptions } from './idempotency.js';
export { DEFAULT_TIMEOUT_MS, invokeTool, MAX_TIMEOUT_MS, type ToolCall } from './invoke.js';
export type { JsonSchema } from './json-schema.js';
export { createPluginLogger, type PluginLogger } from './log.js';
export type { Registration, RegistrationStatus } from './registration.js';
export { parseRegistryAddress } from './registry-client.js';
export { pluginEnvSchema, pluginOptionsFromEnv, runPlugin } from './run-plugin.js';
export { servePlugin, type RunningPlugin, type ServeOptions } from './serve.js';
