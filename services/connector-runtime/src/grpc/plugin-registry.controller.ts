/**
 * PluginRegistryService: wire ⇄ app for plugin registration, heartbeats and
 * the per-user plugin settings. Config values are accepted, never returned.
 */
import { Controller, Inject, Module, type DynamicModule } from '@nestjs/common';
import { connector } from '@af/contracts';
import { PublicRpc } from '@af/service-kit';
import type { PluginView, Plugins } from '../app/plugins.js';
import type { PluginRegistration } from '@af/connectors';

const PLUGINS = Symbol('Plugins');

export function registrationFromWire(req: connector.RegisterPluginRequest): PluginRegistration {
  return {
    name: req.name,
    version: req.version,
    description: req.description,
    connectionType: req.connectionType,
    requiredConfig: req.requiredConfig ?? [],
    toolPackName: req.toolPackName,
    tools: (req.tools ?? []).map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema as Record<string, unknown>,
      outputSchema: t.outputSchema as Record<string, unknown>,
      requires: t.requires,
      sideEffecting: t.sideEffecting,
    })),
    address: req.address,
  };
}

export function pluginToWire(p: PluginView): connector.Plugin {
  return {
    name: p.name,
    version: p.version,
    description: p.description,
    connectionType: p.connectionType,
    requiredConfig: p.requiredConfig,
    toolPackName: p.toolPackName,
    tools: p.tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema,
      requires: t.requires,
      sideEffecting: t.sideEffecting,
    })),
    address: p.address,
    status: p.status,
    lastHeartbeatAt: p.lastHeartbeatAt?.toISOString() ?? '',
    enabledForUser: p.enabledForUser,
  };
}

@Controller()
@connector.PluginRegistryServiceControllerMethods()
export class PluginRegistryController implements connector.PluginRegistryServiceController {
  constructor(@Inject(PLUGINS) private readonly plugins: Plugins) {}

  @PublicRpc('plugins present PLUGIN_REGISTRATION_TOKEN')
  async registerPlugin(req: connector.RegisterPluginRequest): Promise<connector.RegisterPluginResponse> {
    const { instanceId, heartbeatSeconds } = await this.plugins.register(
      registrationFromWire(req),
      req.registrationToken,
    );
    return { instanceId, heartbeatIntervalSeconds: heartbeatSeconds };
  }

  @PublicRpc('plugins name the instance id their registration returned')
  async heartbeatPlugin(req: connector.HeartbeatPluginRequest): Promise<connector.HeartbeatPluginResponse> {
    return { known: await this.plugins.heartbeat(req.name, req.instanceId) };
  }

  @PublicRpc('plugins name the instance id their registration returned')
  async deregisterPlugin(req: connector.DeregisterPluginRequest): Promise<connector.DeregisterPluginResponse> {
    return { removed: await this.plugins.deregister(req.name, req.instanceId) };
  }

  async listPlugins(req: connector.ListPluginsRequest): Promise<connector.ListPluginsResponse> {
    return { plugins: (await this.plugins.list(req.principal?.userId ?? '')).map(pluginToWire) };
  }

  async getPlugin(req: connector.GetPluginRequest): Promise<connector.GetPluginResponse> {
    return { plugin: pluginToWire(await this.plugins.get(req.principal?.userId ?? '', req.name)) };
  }

  async setPluginEnabled(
    req: connector.SetPluginEnabledRequest,
  ): Promise<connector.SetPluginEnabledResponse> {
    return {
      plugin: pluginToWire(
        await this.plugins.setEnabled(req.principal?.userId ?? '', req.name, req.enabled, req.config ?? {}),
      ),
    };
  }
}

@Module({})
export class PluginRegistryModule {
  static forRoot(plugins: Plugins): DynamicModule {
    return {
      module: PluginRegistryModule,
      controllers: [PluginRegistryController],
      providers: [{ provide: PLUGINS, useValue: plugins }],
    };
  }
}
