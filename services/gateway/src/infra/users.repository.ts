import { randomUUID } from 'node:crypto';
import { AppError, sqlRows, type ServiceKit } from '@af/service-kit';
import type { EntityManager } from 'typeorm';

export interface User {
  id: string;
  email: string;
  name: string | null;
  passwordHash: string;
  /** Tokens carry it (claim `ver`); bumping it revokes every token issued before. */
  tokenVersion: number;
  createdAt: Date;
}

/** What the auth guard needs per request, from one statement. */
export interface AuthState {
  tokenVersion: number;
  teamIds: string[];
}

/** Teams that would lose their owner, or be deleted with other members in them, if the user went. */
export interface TeamBlockingDeletion {
  id: string;
  name: string;
}

export class UsersRepository {
  constructor(private readonly kit: ServiceKit) {}

  /**
   * Create a user with a personal team; ALREADY_EXISTS when the email is
   * taken. `andThen` runs in the same transaction (accepting an invitation):
   * when it throws, no account is created. `onlyIfFirst`: the error to throw
   * when any account exists (checked under a lock, so two first
   * registrations cannot both pass).
   */
  async create(
    email: string,
    name: string | null,
    passwordHash: string,
    options: { andThen?: (m: EntityManager, userId: string) => Promise<void>; onlyIfFirst?: () => Error } = {},
  ): Promise<User> {
    return this.kit.transaction(async (m) => {
      if (options.onlyIfFirst) {
        // Blocks other writers of users until commit; reads go on.
        await sqlRows(m, 'LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE');
        const any = await sqlRows(m, 'SELECT 1 FROM users LIMIT 1');
        if (any.length > 0) throw options.onlyIfFirst();
      }
      const id = randomUUID();
      const rows = await sqlRows(m, 
        `INSERT INTO users (id, email, name, password_hash) VALUES ($1, $2, $3, $4)
         ON CONFLICT (email) DO NOTHING RETURNING *`,
        [id, email, name, passwordHash],
      );
      if (rows.length === 0) {
        throw new AppError('ALREADY_EXISTS', 'email is already registered', {
          violations: [{ field: 'email', reason: 'is already registered' }],
        });
      }
      const teamId = randomUUID();
      await sqlRows(m, 'INSERT INTO teams (id, name, owner_user_id) VALUES ($1, $2, $3)', [teamId, `${name ?? email} (personal)`, id]);
      await sqlRows(m, `INSERT INTO team_memberships (team_id, user_id, role) VALUES ($1, $2, 'owner')`, [teamId, id]);
      if (options.andThen) await options.andThen(m, id);
      return toUser(rows[0]);
    });
  }

  /** Whether any account exists. */
  async any(): Promise<boolean> {
    return (await sqlRows(this.kit.db, 'SELECT 1 FROM users LIMIT 1')).length > 0;
  }

  async byEmail(email: string): Promise<User | null> {
    const rows = await sqlRows(this.kit.db, 'SELECT * FROM users WHERE email = $1', [email]);
    return rows[0] ? toUser(rows[0]) : null;
  }

  async byId(id: string): Promise<User | null> {
    const rows = await sqlRows(this.kit.db, 'SELECT * FROM users WHERE id = $1', [id]);
    return rows[0] ? toUser(rows[0]) : null;
  }

  /**
   * The user's token version and team ids, or null when the user does not
   * exist (deleted). One statement: the guard runs it on every request.
   */
  async authState(userId: string): Promise<AuthState | null> {
    const rows: Array<{ token_version: number; team_ids: string[] }> = await sqlRows(
      this.kit.db,
      `SELECT u.token_version, COALESCE(array_agg(m.team_id) FILTER (WHERE m.team_id IS NOT NULL), '{}') AS team_ids
         FROM users u LEFT JOIN team_memberships m ON m.user_id = u.id
        WHERE u.id = $1
        GROUP BY u.id`,
      [userId],
    );
    const row = rows[0];
    return row ? { tokenVersion: Number(row.token_version), teamIds: row.team_ids.map(String) } : null;
  }

  /** Revoke every token of the user issued so far. */
  async bumpTokenVersion(userId: string): Promise<void> {
    await sqlRows(this.kit.db, 'UPDATE users SET token_version = token_version + 1 WHERE id = $1', [userId]);
  }

  /**
   * Delete the user: their memberships go, and so do the teams they created
   * when nobody else is in them (their personal team). Refused
   * (FAILED_PRECONDITION, naming the teams) while a team they created still has
   * other members, or they are the only owner of a team with other members.
   */
  async delete(userId: string): Promise<void> {
    await this.kit.transaction(async (m) => {
      const locked = await sqlRows(m, 'SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId]);
      if (locked.length === 0) throw new AppError('UNAUTHENTICATED', 'account no longer exists');
      const blocking: Array<{ id: string; name: string }> = await sqlRows(
        m,
        `SELECT t.id, t.name FROM teams t
          WHERE EXISTS (SELECT 1 FROM team_memberships o WHERE o.team_id = t.id AND o.user_id <> $1)
            AND (t.owner_user_id = $1
                 OR (EXISTS (SELECT 1 FROM team_memberships me WHERE me.team_id = t.id AND me.user_id = $1 AND me.role = 'owner')
                     AND NOT EXISTS (SELECT 1 FROM team_memberships o WHERE o.team_id = t.id AND o.user_id <> $1 AND o.role = 'owner')))
          ORDER BY t.created_at, t.id
          FOR UPDATE OF t`,
        [userId],
      );
      if (blocking.length > 0) {
        const names = blocking.map((t) => `"${t.name}" (${t.id})`).join(', ');
        throw new AppError('FAILED_PRECONDITION', `remove the other members of, or hand over ownership of, team(s) ${names} before deleting the account`, {
          violations: blocking.map((t) => ({ field: 'teams', reason: `team ${t.id} still has other members that depend on you`, code: 'team_not_empty' })),
        });
      }
      // Memberships and the teams the user created (now member-less) go by ON DELETE CASCADE.
      await sqlRows(m, 'DELETE FROM users WHERE id = $1', [userId]);
    });
  }

  async teamIds(userId: string): Promise<string[]> {
    const rows: Array<{ team_id: string }> = await sqlRows(this.kit.db, 'SELECT team_id FROM team_memberships WHERE user_id = $1', [userId]);
    return rows.map((r) => r.team_id);
  }
}

function toUser(r: Record<string, unknown>): User {
  return {
    id: String(r.id),
    email: String(r.email),
    name: (r.name as string | null) ?? null,
    passwordHash: String(r.password_hash),
    tokenVersion: Number(r.token_version ?? 0),
    createdAt: r.created_at as Date,
  };
}
