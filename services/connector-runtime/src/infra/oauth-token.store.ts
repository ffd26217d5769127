/**
 * The Postgres-backed `OAuthTokenCache` every replica shares (table
 * `oauth_tokens` in the connector_runtime schema, migration
 * `1764100000000-oauth-tokens.ts`).
 *
 * - Token sets are encrypted with the service keyring (AES-256-GCM via
 *   `encryptSecret`), bound to their cache key by AAD, like connector
 *   credentials.
 * - A fresh token is served from one SELECT. A refresh runs inside a
 *   transaction holding `pg_advisory_xact_lock` on the key, re-reads the row
 *   under the lock and only calls the token endpoint when the token is still
 *   due: two replicas never spend the same single-use refresh token, and the
 *   one that waited gets the token the other stored.
 * - Waiting for the lock is bounded by `lock_timeout`; a timeout surfaces as
 *   an error the executor reports as UNAVAILABLE (retryable).
 */
import {
  decryptSecret,
  encryptSecret,
  sqlRows,
  type Keyring,
  type Logger,
  type Queryable,
} from '@af/service-kit';
import type { DataSource } from 'typeorm';
import type { OAuthTokenCache, StoredOAuthToken } from '@af/connectors';
import { oauthCacheKeyPrefix } from '@af/connectors';
import { tokenNeedsRefresh } from '@af/connectors';

export interface PgOAuthTokenStoreOptions {
  /** Longest wait for another replica's refresh of the same key (default 30 s). */
  lockTimeoutMs?: number;
  now?: () => number;
  log?: Logger;
}

/** Binds a ciphertext to its cache key, so a blob copied to another row does not decrypt. */
export const oauthTokenAad = (key: string) => `oauth-token:${key}`;

export class PgOAuthTokenStore implements OAuthTokenCache {
  private readonly lockTimeoutMs: number;
  private readonly now: () => number;

  constructor(
    private readonly db: DataSource,
    private readonly keyring: Keyring,
    private readonly options: PgOAuthTokenStoreOptions = {},
  ) {
    this.lockTimeoutMs = Math.max(1, Math.floor(options.lockTimeoutMs ?? 30_000));
    this.now = options.now ?? Date.now;
  }

  async getOrRefresh(
    key: string,
    bufferMs: number,
    refresh: (current: StoredOAuthToken | undefined) => Promise<StoredOAuthToken>,
    options: { force?: boolean } = {},
  ): Promise<StoredOAuthToken> {
    if (!options.force) {
      const stored = await this.read(this.db, key);
      if (stored && !tokenNeedsRefresh(stored, bufferMs, this.now())) return stored;
    }
    return this.db.transaction(async (m) => {
      await sqlRows(m, `SELECT set_config('lock_timeout', $1, true)`, [`${this.lockTimeoutMs}ms`]);
      await sqlRows(m, 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`oauth-token:${key}`]);
      // Another replica may have refreshed while we waited for the lock.
      const current = await this.read(m, key);
      if (!options.force && current && !tokenNeedsRefresh(current, bufferMs, this.now())) return current;
      const next = await refresh(current);
      if (next !== current) await this.write(m, key, next);
      return next;
    });
  }

  /** The stored token of `key`, decrypted (for tests and operators). */
  peek(key: string): Promise<StoredOAuthToken | undefined> {
    return this.read(this.db, key);
  }

  /** Stores a token set obtained outside a refresh (a user's code exchange), in the caller's transaction. */
  async put(q: Queryable, key: string, token: StoredOAuthToken): Promise<void> {
    await this.write(q, key, token);
  }

  /** Forgets every token of one owner's connector (call when it is deleted or its credentials change). */
  async deleteConnectorTokens(ownerUserId: string, connectorId: string): Promise<number> {
    const rows = await sqlRows(
      this.db,
      'DELETE FROM oauth_tokens WHERE starts_with(cache_key, $1) RETURNING cache_key',
      [oauthCacheKeyPrefix(ownerUserId, connectorId)],
    );
    return rows.length;
  }

  private async read(q: Queryable, key: string): Promise<StoredOAuthToken | undefined> {
    const rows: Array<{ ciphertext: string }> = await sqlRows(
      q,
      'SELECT ciphertext FROM oauth_tokens WHERE cache_key = $1',
      [key],
    );
    const row = rows[0];
    if (!row) return undefined;
    try {
      return parseToken(decryptSecret(row.ciphertext, this.keyring, oauthTokenAad(key)));
    } catch {
      // Unreadable (key rotated away, or tampered): behave as if no token were stored.
      this.options.log?.warn(
        { cacheKey: key },
        'stored oauth token cannot be decrypted; obtaining a new one',
      );
      return undefined;
    }
  }

  private async write(q: Queryable, key: string, token: StoredOAuthToken): Promise<void> {
    const plain: StoredOAuthToken = { accessToken: token.accessToken };
    if (token.expiresAt !== undefined) plain.expiresAt = token.expiresAt;
    if (token.refreshToken !== undefined) plain.refreshToken = token.refreshToken;
    if (token.tokenType !== undefined) plain.tokenType = token.tokenType;
    const expiresAt = token.expiresAt !== undefined ? new Date(token.expiresAt) : null;
    await sqlRows(
      q,
      `INSERT INTO oauth_tokens (cache_key, ciphertext, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (cache_key) DO UPDATE SET ciphertext = EXCLUDED.ciphertext, expires_at = EXCLUDED.expires_at, updated_at = now()`,
      [key, encryptSecret(JSON.stringify(plain), this.keyring, oauthTokenAad(key)), expiresAt],
    );
  }
}

function parseToken(text: string): StoredOAuthToken | undefined {
  const value = JSON.parse(text) as Partial<StoredOAuthToken>;
  if (typeof value?.accessToken !== 'string' || value.accessToken === '') return undefined;
  const token: StoredOAuthToken = { accessToken: value.accessToken };
  if (typeof value.expiresAt === 'number') token.expiresAt = value.expiresAt;
  if (typeof value.refreshToken === 'string') token.refreshToken = value.refreshToken;
  if (typeof value.tokenType === 'string') token.tokenType = value.tokenType;
  return token;
}
