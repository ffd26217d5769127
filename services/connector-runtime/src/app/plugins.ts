/**
 * Plugin registry use cases (seed §12): plugin services register (with the
 * operator's token) and heartbeat; users list plugins and enable them with
 * their own config (stored encrypted); `existing_tool` connectors call plugin
 * tools through `invokePlugin`, which checks the plugin is live and enabled for
 * the calling user, decrypts that user's config and calls the plugin.
 *
 * Invocation failures are ConnectorErrors, so the call pipeline applies the
 * connector failure table to them (retry once when unavailable, back off on
 * rate limits, the breaker counts them) like any other upstream.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { AppError, registerSecret, type Logger } from '@af/service-kit';
import {
  ConnectorError,
  redactResult,
  resultSecrets,
  type ConnectorErrorCode,
  type PluginInvoker,
} from '@af/connectors';
import { checkPluginRegistration, CONFIG_KEY, type PluginRegistration } from '@af/connectors';
import { forgetAfterMs, liveWindowMs, pluginStatus, type PluginStatus } from '@af/connectors';
import type { PluginCallOptions } from '@af/connectors';
import type { PluginTransport } from '../infra/plugin.client.js';
import type { PluginRepository, StoredPlugin } from '../infra/plugin.repository.js';

const MAX_CONFIG_VALUE_BYTES = 16 * 1024;

export interface PluginsOptions {
  /** PLUGIN_REGISTRATION_TOKEN; registration needs it when set. */
  registrationToken?: string;
  /** PLUGIN_REGISTRATION_OPEN: accept registrations without a token when none is configured (local development). */
  registrationOpen: boolean;
  /** PLUGIN_HEARTBEAT_SECONDS: the interval plugins are told to heartbeat at. */
  heartbeatSeconds: number;
}

/** A plugin as one user sees it. */
export interface PluginView extends Omit<StoredPlugin, 'instances' | 'enabled'> {
  status: PluginStatus;
  /** Address of the freshest instance ('' when none). */
  address: string;
  lastHeartbeatAt?: Date;
  enabledForUser: boolean;
  configKeys: string[];
}

const INSTANCE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class Plugins {
  constructor(
    private readonly repo: PluginRepository,
    private readonly transport: PluginTransport,
    private readonly log: Logger,
    private readonly options: PluginsOptions,
  ) {}

  /** RegisterPlugin: checks the token and every field, then records a new instance. */
  async register(
    reg: PluginRegistration,
    registrationToken: string,
  ): Promise<{ instanceId: string; heartbeatSeconds: number }> {
    this.checkToken(registrationToken);
    const violations = checkPluginRegistration(reg);
    if (violations.length > 0) {
      throw new AppError(
        'INVALID_ARGUMENT',
        `invalid plugin registration: ${violations.map((v) => `${v.field} ${v.reason}`).join('; ')}`,
        { violations },
      );
    }
    const previous = await this.repo.find(reg.name);
    const instanceId = randomUUID();
    await this.repo.register(reg, instanceId, forgetAfterMs(this.options.heartbeatSeconds));
    this.log.info(
      {
        plugin: reg.name,
        version: reg.version,
        previousVersion: previous?.version,
        address: reg.address,
        instanceId,
        tools: reg.tools.map((t) => t.name),
      },
      'plugin registered',
    );
    return { instanceId, heartbeatSeconds: this.options.heartbeatSeconds };
  }

  /** HeartbeatPlugin: false tells the plugin to register again. */
  async heartbeat(name: string, instanceId: string): Promise<boolean> {
    if (!name) throw AppError.invalid('name', 'is required');
    // An id that is not a UUID cannot be ours; answering "unknown" makes the plugin register again.
    if (!INSTANCE_ID.test(instanceId)) return false;
    const known = await this.repo.heartbeat(name, instanceId);
    if (!known)
      this.log.info(
        { plugin: name, instanceId },
        'heartbeat from an unknown plugin instance; asking it to register again',
      );
    return known;
  }

  /**
   * DeregisterPlugin: the instance leaves at once (a plugin shutting down), so
   * calls go to the plugin's other live instances — or answer UNAVAILABLE —
   * instead of failing until its missed heartbeats mark it gone. Holding the
   * instance id is the proof of identity, as for heartbeats.
   */
  async deregister(name: string, instanceId: string): Promise<boolean> {
    if (!name) throw AppError.invalid('name', 'is required');
    if (!instanceId) throw AppError.invalid('instance_id', 'is required');
    if (!INSTANCE_ID.test(instanceId)) throw AppError.invalid('instance_id', 'is not an instance id RegisterPlugin gave out (a UUID)');
    const removed = await this.repo.deregister(name, instanceId);
    this.log.info({ plugin: name, instanceId, removed }, removed ? 'plugin instance deregistered' : 'deregistration of an unknown plugin instance');
    return removed;
  }

  /** Every registered plugin the operator has not disabled, with its tools (ActionService lists their tools). */
  async registered(): Promise<StoredPlugin[]> {
    return (await this.repo.list()).filter((p) => p.enabled);
  }

  async list(userId: string): Promise<PluginView[]> {
    requireUser(userId);
    const [plugins, settings] = await Promise.all([this.repo.list(), this.repo.userSettings(userId)]);
    return plugins.map((p) => this.view(p, settings.get(p.name)));
  }

  async get(userId: string, name: string): Promise<PluginView> {
    requireUser(userId);
    const plugin = await this.find(name);
    return this.view(plugin, (await this.repo.userSettings(userId)).get(name));
  }

  /**
   * SetPluginEnabled: `config` (when given) replaces the user's stored config;
   * enabling needs every required key, from `config` or stored earlier.
   */
  async setEnabled(
    userId: string,
    name: string,
    enabled: boolean,
    config: Record<string, string>,
  ): Promise<PluginView> {
    requireUser(userId);
    const plugin = await this.find(name);
    for (const [key, value] of Object.entries(config)) {
      if (!CONFIG_KEY.test(key) || !plugin.requiredConfig.includes(key)) {
        throw AppError.invalid(
          `config.${key}`,
          `is not a config key of plugin ${name} (keys: ${plugin.requiredConfig.join(', ') || 'none'})`,
        );
      }
      if (typeof value !== 'string' || value === '')
        throw AppError.invalid(`config.${key}`, 'must be a non-empty string');
      if (Buffer.byteLength(value) > MAX_CONFIG_VALUE_BYTES)
        throw AppError.invalid(`config.${key}`, `must be at most ${MAX_CONFIG_VALUE_BYTES / 1024} KiB`);
    }
    const given = Object.keys(config).length > 0 ? config : undefined;
    if (enabled) {
      const stored = given ? [] : ((await this.repo.userSettings(userId)).get(name)?.configKeys ?? []);
      const have = new Set([...Object.keys(config), ...stored]);
      const missing = plugin.requiredConfig.filter((key) => !have.has(key));
      if (missing.length > 0) {
        const violations = missing.map((key) => ({
          field: `config.${key}`,
          reason: `is required to enable plugin ${name}`,
        }));
        throw new AppError('INVALID_ARGUMENT', violations.map((v) => `${v.field}: ${v.reason}`).join('; '), {
          violations,
        });
      }
    }
    await this.repo.saveUserSettings(userId, name, enabled, given);
    this.log.info(
      { userId, plugin: name, enabled, configKeys: given ? Object.keys(given) : undefined },
      'plugin settings saved',
    );
    return this.view(plugin, (await this.repo.userSettings(userId)).get(name));
  }

  /** The `ExecutionContext.invokePlugin` for `existing_tool` connectors: the caller is `options.ownerUserId`. */
  readonly invokePlugin: PluginInvoker = (plugin, tool, inputs, options) =>
    this.invoke(plugin, tool, inputs, options as PluginCallOptions);

  async invoke(
    pluginName: string,
    tool: string,
    inputs: Record<string, unknown>,
    options: PluginCallOptions,
  ): Promise<Record<string, unknown>> {
    const userId = options.ownerUserId;
    if (!userId)
      throw new ConnectorError(
        'FAILED_PRECONDITION',
        `plugin ${pluginName} can only be called on behalf of a user`,
      );
    const plugin = await this.repo.find(pluginName);
    if (!plugin) throw new ConnectorError('NOT_FOUND', `plugin ${pluginName} is not registered`);
    if (!plugin.enabled)
      throw new ConnectorError('FAILED_PRECONDITION', `plugin ${pluginName} is disabled by the operator`);
    if (!plugin.tools.some((t) => t.name === tool)) {
      throw new ConnectorError(
        'NOT_FOUND',
        `plugin ${pluginName} has no tool "${tool}" (tools: ${plugin.tools.map((t) => t.name).join(', ')})`,
      );
    }
    const settings = (await this.repo.userSettings(userId)).get(pluginName);
    if (!settings?.enabled) {
      throw new ConnectorError(
        'FAILED_PRECONDITION',
        `plugin ${pluginName} is not enabled for this user; enable it (SetPluginEnabled) with its config first`,
      );
    }
    const live = plugin.instances.filter(
      (i) => i.heartbeatAgeMs <= liveWindowMs(this.options.heartbeatSeconds),
    );
    if (live.length === 0) {
      const since = plugin.instances[0]
        ? `no heartbeat for ${Math.round(plugin.instances[0].heartbeatAgeMs / 1000)} s`
        : 'no running instance';
      throw new ConnectorError(
        'UNAVAILABLE',
        `plugin ${pluginName} is inactive (${since}); try again later`,
        {
          retryAfterMs: this.options.heartbeatSeconds * 1000,
        },
      );
    }
    const config = await this.userConfig(userId, plugin);
    // Several live instances share the load; any of them can take the call.
    const target = live[Math.floor(Math.random() * live.length)]!;
    const started = Date.now();
    try {
      const output = await this.transport.invoke(
        target.address,
        {
          tool,
          inputs,
          config,
          ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
          timeoutMs: options.timeoutMs,
        },
        options.signal,
      );
      this.log.info(
        { plugin: pluginName, tool, userId, instanceId: target.instanceId, ms: Date.now() - started },
        'plugin tool called',
      );
      // The user's plugin config is secret (tokens, webhook URLs): a tool that echoes it must not leak it.
      return redactResult(output, resultSecrets({}, Object.values(config)));
    } catch (err) {
      const failure = toConnectorError(err, pluginName, tool, options.timeoutMs);
      this.log.warn(
        {
          plugin: pluginName,
          tool,
          userId,
          instanceId: target.instanceId,
          code: failure.code,
          ms: Date.now() - started,
        },
        'plugin tool call failed',
      );
      throw failure;
    }
  }

  private async userConfig(userId: string, plugin: StoredPlugin): Promise<Record<string, string>> {
    let config: Record<string, string>;
    try {
      config = await this.repo.userConfig(userId, plugin.name);
    } catch (err) {
      throw new ConnectorError('FAILED_PRECONDITION', (err as Error).message);
    }
    for (const value of Object.values(config)) registerSecret(value);
    // A newer version of the plugin may need a key the user has not given yet.
    const missing = plugin.requiredConfig.filter((key) => !config[key]);
    if (missing.length > 0) {
      throw new ConnectorError(
        'FAILED_PRECONDITION',
        `plugin ${plugin.name} needs config ${missing.join(', ')} from this user; enable it again with them`,
        {
          violations: missing.map((key) => ({ field: `config.${key}`, reason: 'is required' })),
        },
      );
    }
    return config;
  }

  private checkToken(given: string): void {
    const expected = this.options.registrationToken;
    if (!expected) {
      if (this.options.registrationOpen) {
        this.log.warn(
          'accepting a plugin registration without a token (PLUGIN_REGISTRATION_OPEN=true; local development only)',
        );
        return;
      }
      throw new AppError(
        'FAILED_PRECONDITION',
        'plugin registration is closed: the operator has set no PLUGIN_REGISTRATION_TOKEN (PLUGIN_REGISTRATION_OPEN=true allows registration without one, for local development only)',
      );
    }
    if (!given) throw new AppError('UNAUTHENTICATED', 'registration_token is required');
    // Hashing first gives equal lengths, so the comparison is constant-time whatever was sent.
    const digest = (s: string) => createHash('sha256').update(s).digest();
    if (!timingSafeEqual(digest(given), digest(expected)))
      throw new AppError('UNAUTHENTICATED', 'registration_token is wrong');
  }

  private async find(name: string): Promise<StoredPlugin> {
    if (!name) throw AppError.invalid('name', 'is required');
    const plugin = await this.repo.find(name);
    if (!plugin) throw AppError.notFound('plugin', name);
    return plugin;
  }

  private view(
    p: StoredPlugin,
    settings: { enabled: boolean; configKeys: string[] } | undefined,
  ): PluginView {
    const { instances, enabled, ...rest } = p;
    const freshest = instances[0];
    return {
      ...rest,
      status: pluginStatus(
        { enabled, freshestHeartbeatAgeMs: freshest?.heartbeatAgeMs },
        this.options.heartbeatSeconds,
      ),
      address: freshest?.address ?? '',
      ...(freshest ? { lastHeartbeatAt: freshest.lastHeartbeatAt } : {}),
      enabledForUser: settings?.enabled ?? false,
      configKeys: settings?.configKeys ?? [],
    };
  }
}

/**
 * A failed plugin call as the connector failure table sees it: the plugin is
 * the upstream. Its field violations and retry-after are kept.
 */
function toConnectorError(err: unknown, plugin: string, tool: string, timeoutMs: number): ConnectorError {
  if (err instanceof ConnectorError) return err;
  const app = err instanceof AppError ? err : new AppError('INTERNAL', 'unexpected error', { cause: err });
  const code: ConnectorErrorCode =
    (
      {
        INVALID_ARGUMENT: 'INVALID_ARGUMENT',
        NOT_FOUND: 'NOT_FOUND',
        FAILED_PRECONDITION: 'FAILED_PRECONDITION',
        UNIMPLEMENTED: 'UNIMPLEMENTED',
        RESOURCE_EXHAUSTED: 'RATE_LIMIT',
        UNAVAILABLE: 'UNAVAILABLE',
        DEADLINE_EXCEEDED: 'TIMEOUT',
        CANCELLED: 'CANCELLED',
        PERMISSION_DENIED: 'AUTH_FAILED',
        UNAUTHENTICATED: 'AUTH_FAILED',
      } as Partial<Record<string, ConnectorErrorCode>>
    )[app.code] ?? 'UPSTREAM_ERROR';
  const message =
    app.code === 'DEADLINE_EXCEEDED' && /call did not answer within/.test(app.message)
      ? `plugin ${plugin} did not answer tool ${tool} within ${timeoutMs} ms`
      : app.code === 'UNAVAILABLE' && /No connection established|ECONNREFUSED|connect/i.test(app.message)
        ? `plugin ${plugin} could not be reached: ${app.message}`
        : `plugin ${plugin}: ${app.message}`;
  return new ConnectorError(code, message, {
    violations: app.violations.map((v) => ({ field: v.field, reason: v.reason })),
    ...(app.retryAfterMs !== undefined ? { retryAfterMs: app.retryAfterMs } : {}),
  });
}

function requireUser(userId: string): void {
  if (!userId) throw new AppError('UNAUTHENTICATED', 'principal.user_id is required');
}
