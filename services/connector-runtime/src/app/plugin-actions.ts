/**
 * Plugin tools as ActionService actions: every tool of every registered
 * (operator-enabled) plugin is served as `plugin:<plugin>.<tool>`, so a tool
 * node naming a plugin (`params.plugin`) runs here. A call is the user's:
 * `Plugins.invoke` checks the plugin is live and enabled for the run's owner
 * and uses that user's config; the dispatcher around it stores the first
 * answer per `runId:nodeId:attempt` key and enforces the deadline.
 */
import { parsePluginActionName, pluginActionName, type ActionDescriptor, type ActionHandler, type ActionSource } from '@af/service-kit';
import type { StoredPlugin } from '../infra/plugin.repository.js';
import { toAppError } from './connectors.js';
import type { Plugins } from './plugins.js';

/** The contract a plugin tool is listed with: what the planner's Action I/O Registry and `GET /actions` show. */
export function pluginToolDescriptor(plugin: StoredPlugin, tool: StoredPlugin['tools'][number]): ActionDescriptor {
  return {
    name: pluginActionName(plugin.name, tool.name),
    version: plugin.version,
    sideEffects: tool.sideEffecting,
    contract: {
      category: `plugin:${plugin.name}`,
      plugin: plugin.name,
      tool: tool.name,
      description: tool.description,
      input_schema: tool.inputSchema,
      output_schema: tool.outputSchema,
      ...(tool.requires ? { requires: tool.requires } : {}),
    },
  };
}

export function pluginActionSource(plugins: Plugins): ActionSource {
  const handler = (name: string, plugin: string, tool: string, sideEffects: boolean): ActionHandler => ({
    name,
    sideEffects,
    execute: async (ctx) => {
      try {
        return await plugins.invoke(plugin, tool, ctx.inputs, {
          ownerUserId: ctx.principal.userId,
          ...(ctx.idempotencyKey ? { idempotencyKey: ctx.idempotencyKey } : {}),
          timeoutMs: Math.max(1, ctx.deadline - Date.now()),
          signal: ctx.signal,
        });
      } catch (err) {
        throw toAppError(err);
      }
    },
  });
  return {
    list: async () => (await plugins.registered()).flatMap((p) => p.tools.map((t) => pluginToolDescriptor(p, t))),
    find: async (name) => {
      const parsed = parsePluginActionName(name);
      if (!parsed) return undefined;
      const plugin = (await plugins.registered()).find((p) => p.name === parsed.plugin);
      const tool = plugin?.tools.find((t) => t.name === parsed.tool);
      return tool ? handler(name, parsed.plugin, parsed.tool, tool.sideEffecting) : undefined;
    },
  };
}
