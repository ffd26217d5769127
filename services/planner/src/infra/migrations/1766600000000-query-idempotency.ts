import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency-Key of POST /query and /query/stream: one row per user and key,
 * the request it was first sent with (a fingerprint), the query it planned
 * and that plan, until it expires (QUERY_IDEMPOTENCY_TTL_SECONDS). A row
 * whose query_id is NULL is a request still planning.
 */
export class QueryIdempotency1766600000000 implements MigrationInterface {
  name = 'QueryIdempotency1766600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE query_idempotency_keys (
        user_id text NOT NULL,
        key text NOT NULL,
        fingerprint text NOT NULL,
        query_id uuid REFERENCES query_records(id) ON DELETE CASCADE,
        plan jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (user_id, key)
      );
      CREATE INDEX idx_query_idempotency_expires ON query_idempotency_keys (expires_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE query_idempotency_keys');
  }
}
