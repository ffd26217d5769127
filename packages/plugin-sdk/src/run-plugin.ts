/**
 * The `main` of a plugin process: options from the environment (checked once,
 * naming the variable), serve, stop cleanly on SIGINT/SIGTERM, and exit 1 when
 * the registry refuses the plugin.
 */
import { z } from 'zod';
import type { PluginDefinition } from './define-plugin.js';
import { parseRegistryAddress } from './registry-client.js';
import { servePlugin, type RunningPlugin, type ServeOptions } from './serve.js';

const address = z
  .string()
  .refine((v) => parseRegistryAddress(v) !== undefined, 'must be host:port, e.g. connector-runtime:50053');

/** Environment variables a plugin process reads. */
export const pluginEnvSchema = z.object({
  /** Interface to listen on. */
  PLUGIN_HOST: z.string().min(1).default('0.0.0.0'),
  /** Port to listen on (0 picks a free one). */
  PLUGIN_PORT: z.coerce.number().int().min(0).max(65535).default(50100),
  /** `host:port` connector-runtime dials to reach the plugin (e.g. its Kubernetes service). */
  PLUGIN_ADVERTISE_ADDRESS: address.optional(),
  /** connector-runtime's gRPC address; required, since a plugin nobody can find is useless. */
  PLUGIN_REGISTRY_URL: address,
  /** Must equal connector-runtime's PLUGIN_REGISTRATION_TOKEN. */
  PLUGIN_REGISTRATION_TOKEN: z.string().default(''),
  /** Heartbeat at least this often (seconds). */
  PLUGIN_HEARTBEAT_SECONDS: z.coerce.number().positive().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});
export type PluginEnv = z.infer<typeof pluginEnvSchema>;

/** Parses the environment; throws one Error naming every bad variable (values are never echoed). */
export function pluginOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): ServeOptions {
  const raw: Record<string, string | undefined> = {};
  for (const key of Object.keys(pluginEnvSchema.shape)) raw[key] = env[key] === '' ? undefined : env[key];
  const parsed = pluginEnvSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (i) =>
        `${String(i.path[0])}: ${i.code === 'invalid_type' && i.input === undefined ? 'is required' : i.message}`,
    );
    throw new Error(`invalid plugin configuration: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  return {
    host: e.PLUGIN_HOST,
    port: e.PLUGIN_PORT,
    registryUrl: e.PLUGIN_REGISTRY_URL,
    registrationToken: e.PLUGIN_REGISTRATION_TOKEN,
    logLevel: e.LOG_LEVEL,
    ...(e.PLUGIN_ADVERTISE_ADDRESS ? { advertiseAddress: e.PLUGIN_ADVERTISE_ADDRESS } : {}),
    ...(e.PLUGIN_HEARTBEAT_SECONDS !== undefined ? { heartbeatSeconds: e.PLUGIN_HEARTBEAT_SECONDS } : {}),
  };
}

/** Serves `plugin` with options from the environment until SIGINT/SIGTERM. */
export async function runPlugin(
  plugin: PluginDefinition,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningPlugin> {
  let running: RunningPlugin;
  try {
    running = await servePlugin(plugin, pluginOptionsFromEnv(env));
  } catch (err) {
    process.stderr.write(`${plugin.name}: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const stop = (signal: string) => {
    void running.stop().then(() => {
      process.stderr.write(`${plugin.name}: stopped (${signal})\n`);
      process.exit(0);
    });
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  running.registered().catch(async (err: Error) => {
    process.stderr.write(`${plugin.name}: not registered: ${err.message}\n`);
    await running.stop();
    process.exit(1);
  });
  return running;
}
