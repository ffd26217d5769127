/**
 * `af plugin dev <plugin-module>`: serves a plugin module (one exporting a
 * `definePlugin` result as `plugin` or default) against a registry, printing a
 * progress line per registration step, until Ctrl-C.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createPluginLogger,
  isPluginDefinition,
  servePlugin,
  type PluginDefinition,
  type RegistrationStatus,
} from '@af/plugin-sdk';
import { CliError, type CliIo } from '../io.js';

export interface PluginDevOptions {
  registry: string;
  token: string;
  host: string;
  port: number;
  advertise?: string;
  heartbeatSeconds?: number;
  /** pino level for the plugin's own logs (default warn, so progress lines stay readable). */
  logLevel?: string;
}

export async function loadPluginModule(modulePath: string): Promise<PluginDefinition> {
  const url = pathToFileURL(resolve(modulePath)).href;
  let mod: Record<string, unknown>;
  try {
    mod = (await import(url)) as Record<string, unknown>;
  } catch (err) {
    throw new CliError(`cannot load ${modulePath}: ${(err as Error).message.split('\n')[0]}`);
  }
  const plugin = [mod.plugin, mod.default].find(isPluginDefinition);
  if (!plugin)
    throw new CliError(
      `${modulePath} exports no plugin: export the result of definePlugin(...) as \`plugin\` or as the default export`,
    );
  return plugin;
}

/** Serves until `stop` fires; resolves with the exit code. */
export async function pluginDev(
  modulePath: string,
  options: PluginDevOptions,
  io: CliIo,
  stop: AbortSignal,
): Promise<number> {
  const plugin = await loadPluginModule(modulePath);
  let refused: Error | undefined;
  const running = await servePlugin(plugin, {
    host: options.host,
    port: options.port,
    registryUrl: options.registry,
    registrationToken: options.token,
    ...(options.advertise ? { advertiseAddress: options.advertise } : {}),
    ...(options.heartbeatSeconds !== undefined ? { heartbeatSeconds: options.heartbeatSeconds } : {}),
    logger: createPluginLogger(plugin, options.logLevel ?? 'warn', { write: (line: string) => io.err(line) }),
    onStatus: (s) => progress(s, options.registry, io),
  }).catch((err: Error) => {
    throw new CliError(err.message);
  });
  io.err(
    `serving ${plugin.name} ${plugin.version} on ${running.address} (tools: ${[...plugin.tools.keys()].join(', ')})`,
  );
  io.err(`registering with ${options.registry} …`);
  const stopped = new Promise<'stopped'>((r) =>
    stop.aborted ? r('stopped') : stop.addEventListener('abort', () => r('stopped'), { once: true }),
  );
  // Once registered, only Ctrl-C ends the session; a refusal ends it at once.
  const refusal = running.registered().then(
    () => new Promise<never>(() => undefined),
    (err: Error) => {
      refused = err;
      return 'refused' as const;
    },
  );
  const outcome = await Promise.race([stopped, refusal]);
  await running.stop();
  if (outcome === 'refused') {
    const violations =
      (refused as { violations?: Array<{ field: string; reason: string }> }).violations ?? [];
    throw new CliError(
      `the registry refused ${plugin.name}: ${refused!.message}`,
      violations.map((v) => `${v.field}: ${v.reason}`),
    );
  }
  io.err(`stopped ${plugin.name}`);
  return 0;
}

function progress(s: RegistrationStatus, registry: string, io: CliIo): void {
  switch (s.state) {
    case 'registering':
      // The first failure, then every fifth: enough to see it is still waiting.
      if (s.lastError && (s.attempt === 1 || s.attempt % 5 === 0))
        io.err(
          `waiting for the registry at ${registry} (attempt ${s.attempt}: ${s.lastError.split('\n')[0]})`,
        );
      break;
    case 'registered':
      io.err(
        `registered: instance ${s.instanceId}, heartbeat every ${s.heartbeatSeconds} s — Ctrl-C to stop`,
      );
      break;
    case 'refused':
    case 'stopped':
      break;
  }
}
