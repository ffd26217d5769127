/**
 * API keys (table `api_keys`): create (the key is returned once; only its
 * hash is kept), list, revoke, and authenticate a presented key. Lookups go
 * to the database on every request, so a revocation, an expiry or a team
 * membership that ends takes effect on the next call.
 */
import { randomUUID } from 'node:crypto';
import { AppError, sqlRows, type ServiceKit } from '@af/service-kit';
import { generateApiKey, hashApiKey, looksLikeApiKey, MAX_API_KEYS_PER_USER } from '../domain/api-keys.js';

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  teamId: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

/** Who a valid key acts as: its user, restricted to its team when it has one. */
export interface ApiKeyPrincipal {
  userId: string;
  teamIds: string[];
  apiKeyId: string;
}

export class ApiKeysRepository {
  constructor(private readonly kit: ServiceKit) {}

  /** A new key for `userId`; `teamId` must be a team the user is a member of (400 naming team_id otherwise). */
  async create(userId: string, input: { name: string; teamId?: string | undefined; expiresInDays?: number | undefined }): Promise<{ key: string; view: ApiKeyView }> {
    return this.kit.transaction(async (m) => {
      // One key at a time per user, so the cap holds under concurrent creates.
      await sqlRows(m, 'SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId]);
      if (input.teamId) {
        const member = await sqlRows(m, 'SELECT 1 FROM team_memberships WHERE team_id = $1 AND user_id = $2', [input.teamId, userId]);
        if (member.length === 0) throw AppError.invalid('team_id', 'is not a team you are a member of');
      }
      const [count] = (await sqlRows(m, 'SELECT count(*)::int AS n FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL', [userId])) as Array<{ n: number }>;
      if ((count?.n ?? 0) >= MAX_API_KEYS_PER_USER) {
        throw new AppError('FAILED_PRECONDITION', `you already have ${MAX_API_KEYS_PER_USER} API keys: revoke one first`);
      }
      const fresh = generateApiKey();
      const rows = await sqlRows(
        m,
        `INSERT INTO api_keys (id, user_id, team_id, name, prefix, key_hash, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $7::int IS NULL THEN NULL ELSE now() + make_interval(days => $7::int) END)
         RETURNING *`,
        [randomUUID(), userId, input.teamId ?? null, input.name, fresh.prefix, fresh.hash, input.expiresInDays ?? null],
      );
      return { key: fresh.key, view: toView(rows[0]) };
    });
  }

  /** The user's keys, newest first, revoked ones included (marked). */
  async list(userId: string): Promise<ApiKeyView[]> {
    const rows = await sqlRows(this.kit.db, 'SELECT * FROM api_keys WHERE user_id = $1 ORDER BY created_at DESC, id', [userId]);
    return rows.map(toView);
  }

  /** Revoke one of the user's keys (idempotent); NOT_FOUND for a key that is not theirs. */
  async revoke(userId: string, id: string): Promise<ApiKeyView> {
    const rows = await sqlRows(
      this.kit.db,
      'UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 AND user_id = $2 RETURNING *',
      [id, userId],
    );
    if (!rows[0]) throw AppError.notFound('API key', id);
    return toView(rows[0]);
  }

  /** The principal of a presented key; UNAUTHENTICATED (never echoing the key) when it is unknown, revoked, expired or its team dropped the user. */
  async authenticate(key: string): Promise<ApiKeyPrincipal> {
    if (!looksLikeApiKey(key)) throw new AppError('UNAUTHENTICATED', 'invalid API key');
    const rows = (await sqlRows(
      this.kit.db,
      `SELECT k.id, k.user_id, k.team_id, k.revoked_at, k.expires_at <= now() AS expired,
              (k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute') AS stale,
              (k.team_id IS NULL OR EXISTS (SELECT 1 FROM team_memberships t WHERE t.team_id = k.team_id AND t.user_id = k.user_id)) AS in_team
         FROM api_keys k WHERE k.key_hash = $1`,
      [hashApiKey(key)],
    )) as Array<{ id: string; user_id: string; team_id: string | null; revoked_at: Date | null; expired: boolean | null; stale: boolean; in_team: boolean }>;
    const row = rows[0];
    if (!row) throw new AppError('UNAUTHENTICATED', 'invalid API key');
    // last_used_at to the minute: one write per key per minute, off the request's path.
    if (row.stale) {
      sqlRows(this.kit.db, 'UPDATE api_keys SET last_used_at = now() WHERE id = $1', [row.id]).catch((err: unknown) => this.kit.log.warn({ err, apiKeyId: row.id }, 'could not record API key use'));
    }
    if (row.revoked_at) throw new AppError('UNAUTHENTICATED', 'the API key has been revoked');
    if (row.expired) throw new AppError('UNAUTHENTICATED', 'the API key has expired');
    if (!row.in_team) throw new AppError('UNAUTHENTICATED', "the API key's user is no longer a member of its team");
    if (row.team_id) return { userId: row.user_id, teamIds: [row.team_id], apiKeyId: row.id };
    const teams = (await sqlRows(this.kit.db, 'SELECT team_id FROM team_memberships WHERE user_id = $1', [row.user_id])) as Array<{ team_id: string }>;
    return { userId: row.user_id, teamIds: teams.map((t) => t.team_id), apiKeyId: row.id };
  }
}

function toView(r: Record<string, unknown>): ApiKeyView {
  return {
    id: String(r.id),
    name: String(r.name),
    prefix: String(r.prefix),
    teamId: (r.team_id as string | null) ?? null,
    createdAt: r.created_at as Date,
    expiresAt: (r.expires_at as Date | null) ?? null,
    revokedAt: (r.revoked_at as Date | null) ?? null,
    lastUsedAt: (r.last_used_at as Date | null) ?? null,
  };
}
