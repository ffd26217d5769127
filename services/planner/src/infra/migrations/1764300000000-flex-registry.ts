import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Facet catalog and capability registry (flex spec §9 `flex_capabilities`, §11). */
export class FlexRegistry1764300000000 implements MigrationInterface {
  name = 'FlexRegistry1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE flex_facets (
        name text PRIMARY KEY,
        version text NOT NULL,
        direction text NOT NULL CHECK (direction IN ('input', 'output', 'bidirectional')),
        definition jsonb NOT NULL,
        catalog_tags text[] NOT NULL DEFAULT '{}',
        collection text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE flex_capabilities (
        capability_id text PRIMARY KEY,
        owner_user_id text NOT NULL,
        agent_type text NOT NULL CHECK (agent_type IN ('ai', 'human')),
        version text NOT NULL,
        display_name text NOT NULL,
        input_facets text[] NOT NULL,
        output_facets text[] NOT NULL,
        registration jsonb NOT NULL,
        input_schema jsonb NOT NULL,
        output_schema jsonb NOT NULL,
        catalog_tags text[] NOT NULL DEFAULT '{}',
        collection text,
        registered_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX flex_capabilities_output_facets ON flex_capabilities USING gin (output_facets);
      CREATE TABLE flex_capability_instances (
        capability_id text NOT NULL REFERENCES flex_capabilities (capability_id) ON DELETE CASCADE,
        instance_id text NOT NULL,
        scopes text[] NOT NULL DEFAULT '{}',
        endpoint text,
        heartbeat_timeout_seconds integer CHECK (heartbeat_timeout_seconds > 0),
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
        registered_at timestamptz NOT NULL DEFAULT now(),
        last_seen_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (capability_id, instance_id)
      );
      CREATE INDEX flex_capability_instances_expiring ON flex_capability_instances (last_seen_at)
        WHERE status = 'active' AND heartbeat_timeout_seconds IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE flex_capability_instances, flex_capabilities, flex_facets');
  }
}
