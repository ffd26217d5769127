/**
 * The plugin registry in Postgres: plugins and their contracts, their running
 * instances (registered and heartbeating), and each user's settings with the
 * user's plugin config encrypted like connector credentials. Heartbeat ages
 * are computed by the database clock, so every replica agrees on liveness.
 */
import {
  AppError,
  decryptSecret,
  encryptSecret,
  sqlRows,
  type Keyring,
  type ServiceKit,
} from '@af/service-kit';
import type { PluginRegistration, PluginToolContract } from '@af/connectors';

export interface PluginInstance {
  instanceId: string;
  address: string;
  version: string;
  /** Milliseconds since its last heartbeat (database clock). */
  heartbeatAgeMs: number;
  lastHeartbeatAt: Date;
}

export interface StoredPlugin {
  name: string;
  version: string;
  description: string;
  connectionType: string;
  requiredConfig: string[];
  toolPackName: string;
  tools: PluginToolContract[];
  /** The operator's switch (seed `is_enabled`). */
  enabled: boolean;
  /** Freshest first. */
  instances: PluginInstance[];
  updatedAt: Date;
}

export interface UserPluginSettings {
  enabled: boolean;
  /** Names of the config values stored (never the values). */
  configKeys: string[];
}

/** Binds the config ciphertext to its row, so a blob copied to another user's row does not decrypt. */
export const pluginConfigAad = (userId: string, plugin: string) => `plugin-config:${userId}:${plugin}`;

export class PluginRepository {
  constructor(
    private readonly kit: ServiceKit,
    private readonly keyring: Keyring,
  ) {}

  /**
   * Upserts the plugin's contract and records a new instance; instances not
   * heard from for `forgetAfterMs` are dropped on the way.
   */
  async register(reg: PluginRegistration, instanceId: string, forgetAfterMs: number): Promise<void> {
    await this.kit.transaction(async (m) => {
      await sqlRows(
        m,
        `INSERT INTO agent_plugin_registry (plugin_name, plugin_version, description, connection_type, required_config, tool_contracts, tool_pack_name)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7)
         ON CONFLICT (plugin_name) DO UPDATE SET plugin_version = EXCLUDED.plugin_version, description = EXCLUDED.description,
           connection_type = EXCLUDED.connection_type, required_config = EXCLUDED.required_config,
           tool_contracts = EXCLUDED.tool_contracts, tool_pack_name = EXCLUDED.tool_pack_name, updated_at = now()`,
        [
          reg.name,
          reg.version,
          reg.description,
          reg.connectionType,
          JSON.stringify(reg.requiredConfig),
          JSON.stringify(reg.tools),
          reg.toolPackName,
        ],
      );
      await sqlRows(
        m,
        `INSERT INTO agent_plugin_instances (instance_id, plugin_name, plugin_version, address) VALUES ($1, $2, $3, $4)`,
        [instanceId, reg.name, reg.version, reg.address],
      );
      await sqlRows(
        m,
        `DELETE FROM agent_plugin_instances WHERE last_heartbeat_at < now() - ($1::bigint * interval '1 millisecond')`,
        [forgetAfterMs],
      );
    });
  }

  /** True when the instance is known (and its heartbeat is now recorded). */
  async heartbeat(plugin: string, instanceId: string): Promise<boolean> {
    const rows = await sqlRows(
      this.kit.db,
      `UPDATE agent_plugin_instances SET last_heartbeat_at = now() WHERE instance_id = $1 AND plugin_name = $2 RETURNING instance_id`,
      [instanceId, plugin],
    );
    return rows.length > 0;
  }

  /** Removes the instance; true when it was there. */
  async deregister(plugin: string, instanceId: string): Promise<boolean> {
    const rows = await sqlRows(
      this.kit.db,
      'DELETE FROM agent_plugin_instances WHERE instance_id = $1 AND plugin_name = $2 RETURNING instance_id',
      [instanceId, plugin],
    );
    return rows.length > 0;
  }

  async find(name: string): Promise<StoredPlugin | null> {
    return (await this.select('WHERE r.plugin_name = $1', [name]))[0] ?? null;
  }

  list(): Promise<StoredPlugin[]> {
    return this.select('', []);
  }

  /** The operator's switch; false when the plugin is unknown. */
  async setOperatorEnabled(name: string, enabled: boolean): Promise<boolean> {
    const rows = await sqlRows(
      this.kit.db,
      'UPDATE agent_plugin_registry SET is_enabled = $2, updated_at = now() WHERE plugin_name = $1 RETURNING plugin_name',
      [name, enabled],
    );
    return rows.length > 0;
  }

  async userSettings(userId: string): Promise<Map<string, UserPluginSettings>> {
    const rows = await sqlRows(
      this.kit.db,
      'SELECT plugin_name, is_enabled, config_keys FROM agent_plugin_user_config WHERE user_id = $1',
      [userId],
    );
    return new Map(
      rows.map((r: Record<string, unknown>) => [
        String(r.plugin_name),
        { enabled: r.is_enabled === true, configKeys: (r.config_keys as string[]) ?? [] },
      ]),
    );
  }

  /**
   * Saves the user's switch; `config` replaces the stored config (encrypted
   * before it reaches SQL), undefined keeps it.
   */
  async saveUserSettings(
    userId: string,
    plugin: string,
    enabled: boolean,
    config: Record<string, string> | undefined,
  ): Promise<void> {
    const keys = Object.keys(config ?? {}).sort();
    const ciphertext = encryptSecret(
      JSON.stringify(config ?? {}),
      this.keyring,
      pluginConfigAad(userId, plugin),
    );
    // Without a new config, an existing row keeps its config; a new row starts with an empty one.
    const onConflict =
      config === undefined
        ? 'is_enabled = EXCLUDED.is_enabled'
        : 'is_enabled = EXCLUDED.is_enabled, config_keys = EXCLUDED.config_keys, config_ciphertext = EXCLUDED.config_ciphertext';
    await sqlRows(
      this.kit.db,
      `INSERT INTO agent_plugin_user_config (user_id, plugin_name, is_enabled, config_keys, config_ciphertext) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (user_id, plugin_name) DO UPDATE SET ${onConflict}, updated_at = now()`,
      [userId, plugin, enabled, keys, ciphertext],
    );
  }

  /** The user's decrypted plugin config; only ever held in memory for a call. */
  async userConfig(userId: string, plugin: string): Promise<Record<string, string>> {
    const rows = await sqlRows(
      this.kit.db,
      'SELECT config_ciphertext FROM agent_plugin_user_config WHERE user_id = $1 AND plugin_name = $2',
      [userId, plugin],
    );
    const ciphertext = rows[0]?.config_ciphertext as string | undefined;
    if (ciphertext === undefined) return {};
    try {
      return JSON.parse(decryptSecret(ciphertext, this.keyring, pluginConfigAad(userId, plugin))) as Record<
        string,
        string
      >;
    } catch {
      throw new AppError(
        'FAILED_PRECONDITION',
        `the config of plugin ${plugin} cannot be decrypted with the configured keys; enable the plugin again with its config`,
      );
    }
  }

  private async select(where: string, params: unknown[]): Promise<StoredPlugin[]> {
    const rows = await sqlRows(
      this.kit.db,
      `SELECT r.*,
              COALESCE(json_agg(json_build_object(
                'instance_id', i.instance_id, 'address', i.address, 'version', i.plugin_version,
                'age_ms', floor(extract(epoch from (now() - i.last_heartbeat_at)) * 1000),
                'last_heartbeat_at', i.last_heartbeat_at)
                ORDER BY i.last_heartbeat_at DESC) FILTER (WHERE i.instance_id IS NOT NULL), '[]') AS instances
         FROM agent_plugin_registry r LEFT JOIN agent_plugin_instances i ON i.plugin_name = r.plugin_name
         ${where}
        GROUP BY r.plugin_name ORDER BY r.plugin_name`,
      params,
    );
    return rows.map(toStored);
  }
}

function toStored(r: Record<string, unknown>): StoredPlugin {
  return {
    name: String(r.plugin_name),
    version: String(r.plugin_version),
    description: String(r.description ?? ''),
    connectionType: String(r.connection_type),
    requiredConfig: (r.required_config as string[]) ?? [],
    toolPackName: String(r.tool_pack_name),
    tools: (r.tool_contracts as PluginToolContract[]) ?? [],
    enabled: r.is_enabled === true,
    instances: ((r.instances as Array<Record<string, unknown>>) ?? []).map((i) => ({
      instanceId: String(i.instance_id),
      address: String(i.address),
      version: String(i.version),
      heartbeatAgeMs: Number(i.age_ms),
      lastHeartbeatAt: new Date(String(i.last_heartbeat_at)),
    })),
    updatedAt: r.updated_at as Date,
  };
}
