import type { MigrationInterface, QueryRunner } from 'typeorm';

/** API keys (hash only) that authenticate other teams' services as their user, optionally restricted to one team. */
export class ApiKeys1764300000000 implements MigrationInterface {
  name = 'ApiKeys1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        team_id uuid REFERENCES teams(id) ON DELETE CASCADE,
        name text NOT NULL,
        prefix text NOT NULL,
        key_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz,
        revoked_at timestamptz,
        last_used_at timestamptz
      );
      CREATE INDEX api_keys_user ON api_keys (user_id, created_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE api_keys');
  }
}
