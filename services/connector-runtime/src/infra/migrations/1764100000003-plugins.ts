import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The plugin registry (seed §12 `agent_plugin_registry`, `agent_plugin_user_config`)
 * plus the running instances of each plugin, which register and heartbeat.
 */
export class Plugins1764100000003 implements MigrationInterface {
  name = 'Plugins1764100000003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      -- One row per plugin; the latest registration's contract wins.
      CREATE TABLE agent_plugin_registry (
        plugin_name text PRIMARY KEY,
        plugin_version text NOT NULL,
        description text NOT NULL DEFAULT '',
        connection_type text NOT NULL,
        required_config jsonb NOT NULL DEFAULT '[]',
        tool_contracts jsonb NOT NULL DEFAULT '[]',
        tool_pack_name text NOT NULL,
        -- Operator switch: a disabled plugin's tools answer FAILED_PRECONDITION.
        is_enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      -- Each running process of a plugin; live while its heartbeat is recent.
      CREATE TABLE agent_plugin_instances (
        instance_id uuid PRIMARY KEY,
        plugin_name text NOT NULL REFERENCES agent_plugin_registry(plugin_name) ON DELETE CASCADE,
        plugin_version text NOT NULL,
        address text NOT NULL,
        registered_at timestamptz NOT NULL DEFAULT now(),
        last_heartbeat_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX agent_plugin_instances_freshest ON agent_plugin_instances (plugin_name, last_heartbeat_at DESC);
      -- Per user: enabled or not, and the user's plugin config as one AES-256-GCM
      -- envelope (v1.<kid>.<iv>.<tag>.<ct>) bound to its row by AAD; only the key names are plain.
      -- An empty config is an envelope of {} too, so every row is one the key rotation can re-encrypt.
      CREATE TABLE agent_plugin_user_config (
        user_id text NOT NULL,
        plugin_name text NOT NULL REFERENCES agent_plugin_registry(plugin_name) ON DELETE CASCADE,
        is_enabled boolean NOT NULL,
        config_keys text[] NOT NULL DEFAULT '{}',
        config_ciphertext text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, plugin_name)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE agent_plugin_user_config, agent_plugin_instances, agent_plugin_registry');
  }
}
