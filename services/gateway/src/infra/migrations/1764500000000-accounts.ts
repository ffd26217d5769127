import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Accounts: a token version per user (bumped to revoke every token issued
 * before) and failed-login counters shared by all gateway replicas.
 */
export class Accounts1764500000000 implements MigrationInterface {
  name = 'Accounts1764500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE users ADD COLUMN token_version integer NOT NULL DEFAULT 0;
      -- key: 'account:' or 'address:' + sha256 of the email or client address (no plain emails or addresses stored).
      CREATE TABLE login_failures (
        key text PRIMARY KEY,
        failures integer NOT NULL,
        last_failure_at timestamptz NOT NULL
      );
      CREATE INDEX login_failures_last_failure_at ON login_failures (last_failure_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE login_failures; ALTER TABLE users DROP COLUMN token_version');
  }
}
