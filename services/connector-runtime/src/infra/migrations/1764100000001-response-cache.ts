import type { MigrationInterface, QueryRunner } from 'typeorm';

export class ResponseCache1764100000001 implements MigrationInterface {
  name = 'ResponseCache1764100000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      -- Successful endpoint results of connectors that opt in (cache_ttl_seconds), keyed by
      -- sha256(owner, connector, definition hash, endpoint, canonical inputs). The result is
      -- JSON text, not jsonb: upstream strings may hold \\u0000, which jsonb refuses.
      CREATE TABLE response_cache (
        cache_key text PRIMARY KEY,
        result text NOT NULL,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX response_cache_expiry ON response_cache (expires_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE response_cache');
  }
}
