import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Connector bindings per agent profile (seed `agent_data_sources`): config
 * overrides, allowed endpoints, a rate-limit override, the binding's own
 * encrypted credentials, and a status (`auth_failed` after a 401/403).
 */
export class Bindings1764100000004 implements MigrationInterface {
  name = 'Bindings1764100000004';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE bindings (
        owner_user_id text NOT NULL,
        agent_profile_id text NOT NULL,
        connector_id text NOT NULL,
        config_overrides jsonb NOT NULL DEFAULT '{}',
        allowed_endpoints text[] NOT NULL DEFAULT '{}',
        rate_limit_per_minute double precision NOT NULL DEFAULT 0,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active','auth_failed','disabled')),
        status_reason text NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (owner_user_id, agent_profile_id, connector_id),
        FOREIGN KEY (owner_user_id, connector_id) REFERENCES connectors(owner_user_id, id) ON DELETE CASCADE
      );
      CREATE TABLE binding_credentials (
        owner_user_id text NOT NULL,
        agent_profile_id text NOT NULL,
        connector_id text NOT NULL,
        name text NOT NULL,
        ciphertext text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (owner_user_id, agent_profile_id, connector_id, name),
        FOREIGN KEY (owner_user_id, agent_profile_id, connector_id)
          REFERENCES bindings(owner_user_id, agent_profile_id, connector_id) ON DELETE CASCADE
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE binding_credentials, bindings');
  }
}
