import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OAuth2 access tokens (and rotated refresh tokens) of `rest_api` connectors,
 * shared by every replica (`infra/oauth-token.store.ts`). One row per cache
 * key (`oauth2:<owner>:<connector>:<grant digest>`); the token set is one
 * AES-256-GCM envelope bound to its key by AAD. `expires_at` is kept in clear
 * for operators and clean-up only; the store reads the encrypted copy.
 */
export class OAuthTokens1764100000000 implements MigrationInterface {
  name = 'OAuthTokens1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE oauth_tokens (
        cache_key text PRIMARY KEY,
        ciphertext text NOT NULL,
        expires_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE oauth_tokens');
  }
}
