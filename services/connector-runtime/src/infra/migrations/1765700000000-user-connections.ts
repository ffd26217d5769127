import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Users' own OAuth connections to `authorization_code` connectors.
 * `oauth_authorizations` holds an authorization between the consent URL and
 * the callback (single use, expires; the PKCE verifier encrypted);
 * `user_connections` lists what a user has connected. The tokens themselves
 * live in `oauth_tokens` under `oauth2-user:<user>:<connector>`, encrypted
 * like every other token.
 */
export class UserConnections1765700000000 implements MigrationInterface {
  name = 'UserConnections1765700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE oauth_authorizations (
        nonce text PRIMARY KEY,
        user_id text NOT NULL,
        connector_id text NOT NULL,
        redirect_uri text NOT NULL,
        verifier_ciphertext text NOT NULL,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX oauth_authorizations_expiry ON oauth_authorizations (expires_at);
      CREATE TABLE user_connections (
        connection_id uuid PRIMARY KEY,
        user_id text NOT NULL,
        connector_id text NOT NULL,
        provider text NOT NULL,
        scopes text[] NOT NULL DEFAULT '{}',
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active','expired','error','revoked')),
        token_key text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (user_id, connector_id),
        FOREIGN KEY (user_id, connector_id) REFERENCES connectors(owner_user_id, id) ON DELETE CASCADE
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE user_connections; DROP TABLE oauth_authorizations');
  }
}
