import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Node result cache (PlanNode.cache: key + TTL), scoped per user. */
export class NodeCache1764000000000 implements MigrationInterface {
  name = 'NodeCache1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE node_cache (
        user_id text NOT NULL,
        key text NOT NULL,
        output jsonb,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (user_id, key)
      );
      CREATE INDEX node_cache_expiry ON node_cache (expires_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE node_cache');
  }
}
