/**
 * Pending OAuth authorizations (single use, expiring, PKCE verifier
 * encrypted and bound to its row) and users' connections. Tokens are written
 * through `PgOAuthTokenStore` in the same transaction as the connection row.
 */
import { decryptSecret, encryptSecret, sqlRows, type Keyring, type ServiceKit } from '@af/service-kit';
import type { EntityManager } from 'typeorm';

export type ConnectionStatus = 'active' | 'expired' | 'error' | 'revoked';

export interface PendingAuthorization {
  nonce: string;
  userId: string;
  connectorId: string;
  redirectUri: string;
  codeVerifier: string;
  expiresAt: Date;
}

export interface UserConnection {
  connectionId: string;
  userId: string;
  connectorId: string;
  provider: string;
  scopes: string[];
  status: ConnectionStatus;
  /** Access-token expiry as last stored (epoch ms), when the provider gave one. */
  expiresAt?: number;
  createdAt: Date;
  updatedAt: Date;
}

export const authorizationVerifierAad = (nonce: string) => `oauth-authorization:${nonce}`;

interface ConnectionRow {
  connection_id: string;
  user_id: string;
  connector_id: string;
  provider: string;
  scopes: string[];
  status: ConnectionStatus;
  token_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const SELECT = `SELECT c.*, t.expires_at AS token_expires_at FROM user_connections c LEFT JOIN oauth_tokens t ON t.cache_key = c.token_key`;

export class UserConnectionRepository {
  constructor(
    private readonly kit: ServiceKit,
    private readonly keyring: Keyring,
  ) {}

  async addPending(p: PendingAuthorization): Promise<void> {
    await sqlRows(
      this.kit.db,
      `INSERT INTO oauth_authorizations (nonce, user_id, connector_id, redirect_uri, verifier_ciphertext, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [p.nonce, p.userId, p.connectorId, p.redirectUri, encryptSecret(p.codeVerifier, this.keyring, authorizationVerifierAad(p.nonce)), p.expiresAt],
    );
    // Housekeeping: authorizations nobody came back for.
    await sqlRows(this.kit.db, `DELETE FROM oauth_authorizations WHERE expires_at < now() - interval '1 hour'`);
  }

  /** Takes the pending authorization out (a second callback with the same state finds nothing). */
  async consumePending(m: EntityManager, nonce: string): Promise<PendingAuthorization | undefined> {
    const rows: Array<{ nonce: string; user_id: string; connector_id: string; redirect_uri: string; verifier_ciphertext: string; expires_at: Date }> =
      await sqlRows(m, 'DELETE FROM oauth_authorizations WHERE nonce = $1 RETURNING *', [nonce]);
    const row = rows[0];
    if (!row) return undefined;
    return {
      nonce: row.nonce,
      userId: row.user_id,
      connectorId: row.connector_id,
      redirectUri: row.redirect_uri,
      codeVerifier: decryptSecret(row.verifier_ciphertext, this.keyring, authorizationVerifierAad(row.nonce)),
      expiresAt: row.expires_at,
    };
  }

  async upsertConnection(m: EntityManager, c: { connectionId: string; userId: string; connectorId: string; provider: string; scopes: string[]; tokenKey: string }): Promise<void> {
    await sqlRows(
      m,
      `INSERT INTO user_connections (connection_id, user_id, connector_id, provider, scopes, status, token_key)
       VALUES ($1, $2, $3, $4, $5::text[], 'active', $6)
       ON CONFLICT (user_id, connector_id) DO UPDATE SET provider = EXCLUDED.provider, scopes = EXCLUDED.scopes,
         status = 'active', token_key = EXCLUDED.token_key, updated_at = now()`,
      [c.connectionId, c.userId, c.connectorId, c.provider, c.scopes, c.tokenKey],
    );
  }

  async get(userId: string, connectorId: string): Promise<UserConnection | undefined> {
    const rows: ConnectionRow[] = await sqlRows(this.kit.db, `${SELECT} WHERE c.user_id = $1 AND c.connector_id = $2`, [userId, connectorId]);
    return rows[0] ? toConnection(rows[0]) : undefined;
  }

  async list(userId: string): Promise<UserConnection[]> {
    const rows: ConnectionRow[] = await sqlRows(this.kit.db, `${SELECT} WHERE c.user_id = $1 ORDER BY c.created_at, c.connection_id`, [userId]);
    return rows.map(toConnection);
  }

  /** Deletes one of the user's connections and its tokens; false when the user has none with that id. */
  async delete(userId: string, connectionId: string): Promise<boolean> {
    return this.kit.transaction(async (m) => {
      const rows: Array<{ token_key: string }> = await sqlRows(
        m,
        'DELETE FROM user_connections WHERE user_id = $1 AND connection_id = $2 RETURNING token_key',
        [userId, connectionId],
      );
      if (!rows[0]) return false;
      await sqlRows(m, 'DELETE FROM oauth_tokens WHERE cache_key = $1', [rows[0].token_key]);
      return true;
    });
  }

  /** Marks a connection whose refresh the provider refused (the user must connect again). */
  async markStatus(userId: string, connectorId: string, status: ConnectionStatus): Promise<void> {
    await sqlRows(this.kit.db, 'UPDATE user_connections SET status = $3, updated_at = now() WHERE user_id = $1 AND connector_id = $2', [userId, connectorId, status]);
  }
}

function toConnection(r: ConnectionRow): UserConnection {
  const c: UserConnection = {
    connectionId: r.connection_id,
    userId: r.user_id,
    connectorId: r.connector_id,
    provider: r.provider,
    scopes: r.scopes ?? [],
    status: r.status,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
  if (r.token_expires_at) c.expiresAt = r.token_expires_at.getTime();
  return c;
}
