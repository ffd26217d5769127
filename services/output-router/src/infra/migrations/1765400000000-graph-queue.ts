import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Knowledge-graph writes that failed (entity-resolution down or erring):
 * kept with their entities and retried with backoff until they land or run
 * out of attempts. One row per delivery key.
 */
export class GraphQueue1765400000000 implements MigrationInterface {
  name = 'GraphQueue1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE graph_write_queue (
        delivery_key text PRIMARY KEY,
        owner_user_id text NOT NULL,
        team_ids text[] NOT NULL DEFAULT '{}',
        run_id text NOT NULL DEFAULT '',
        node_id text NOT NULL DEFAULT '',
        entities jsonb NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        last_error text,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX graph_write_queue_due ON graph_write_queue (next_attempt_at) WHERE status = 'pending';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE graph_write_queue');
  }
}
