/**
 * Team invitations (table `team_invites`): owners create, list and revoke
 * them; registration accepts one in the transaction that creates the
 * account, so an invitation is used once even when two registrations race.
 */
import { randomUUID } from 'node:crypto';
import { AppError, sqlRows, type ServiceKit } from '@af/service-kit';
import type { EntityManager } from 'typeorm';
import { badInvite, inviteProblem, inviteTokenHash, newInviteToken } from '../domain/signup.js';
import { requireManager, teamNotFound, type AssignableRole, type Membership, type TeamRole } from '../domain/teams.js';

export interface TeamInvite {
  id: string;
  teamId: string;
  email: string;
  role: AssignableRole;
  createdBy: string;
  createdAt: Date;
  expiresAt: Date;
}

export class InvitesRepository {
  constructor(
    private readonly kit: ServiceKit,
    private readonly ttlMs: number,
  ) {}

  /** A new invitation by owner `actorId`; its token is returned once and only its hash is kept. */
  async create(teamId: string, actorId: string, email: string, role: AssignableRole): Promise<{ invite: TeamInvite; token: string }> {
    return this.kit.transaction(async (m) => {
      requireManager(teamId, await this.members(m, teamId), actorId);
      const existing = await sqlRows(m, 'SELECT 1 FROM users WHERE email = $1', [email]);
      if (existing.length > 0) {
        const reason = `already has an account: add them with POST /api/v1/teams/${teamId}/members`;
        throw new AppError('ALREADY_EXISTS', `email: ${reason}`, { violations: [{ field: 'email', reason }] });
      }
      const { token, hash } = newInviteToken();
      const [row] = await sqlRows(
        m,
        `INSERT INTO team_invites (id, team_id, email, role, token_hash, created_by, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7)) RETURNING *`,
        [randomUUID(), teamId, email, role, hash, actorId, this.ttlMs / 1000],
      );
      return { invite: toInvite(row), token };
    });
  }

  /** The team's invitations not used, revoked or expired, newest first (owners only). */
  async pending(teamId: string, actorId: string): Promise<TeamInvite[]> {
    requireManager(teamId, await this.members(this.kit.db.manager, teamId), actorId);
    const rows = await sqlRows(
      this.kit.db,
      `SELECT * FROM team_invites
        WHERE team_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()
        ORDER BY created_at DESC, id`,
      [teamId],
    );
    return rows.map(toInvite);
  }

  /** Revokes a pending invitation (owners only); NOT_FOUND when the team has no such pending invitation. */
  async revoke(teamId: string, actorId: string, inviteId: string): Promise<void> {
    await this.kit.transaction(async (m) => {
      requireManager(teamId, await this.members(m, teamId), actorId);
      const rows = await sqlRows(m, 'UPDATE team_invites SET revoked_at = now() WHERE id = $1 AND team_id = $2 AND accepted_at IS NULL AND revoked_at IS NULL RETURNING id', [inviteId, teamId]);
      if (rows.length === 0) throw new AppError('NOT_FOUND', `invitation ${inviteId} of team ${teamId} not found (or already used or revoked)`);
    });
  }

  /**
   * Accepts the invitation `token` for `email` as the new user `userId`, in
   * the transaction creating the account: marks it used and adds the
   * membership. INVALID_ARGUMENT naming invite_token when it cannot be used.
   */
  static async accept(m: EntityManager, token: string, email: string, userId: string): Promise<{ teamId: string; role: AssignableRole }> {
    const rows = await sqlRows(m, 'SELECT * FROM team_invites WHERE token_hash = $1 FOR UPDATE', [inviteTokenHash(token)]);
    const row = rows[0];
    const [{ now }] = await sqlRows(m, 'SELECT now() AS now');
    const problem = inviteProblem(
      row && { email: String(row.email), expiresAt: row.expires_at as Date, acceptedAt: (row.accepted_at as Date | null) ?? null, revokedAt: (row.revoked_at as Date | null) ?? null },
      email,
      now as Date,
    );
    if (problem) throw badInvite(problem);
    await sqlRows(m, 'UPDATE team_invites SET accepted_at = now(), accepted_by = $2 WHERE id = $1', [row!.id, userId]);
    await sqlRows(m, 'INSERT INTO team_memberships (team_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [row!.team_id, userId, row!.role]);
    return { teamId: String(row!.team_id), role: row!.role as AssignableRole };
  }

  private async members(m: EntityManager, teamId: string): Promise<Membership[]> {
    const team = await sqlRows(m, 'SELECT id FROM teams WHERE id = $1', [teamId]);
    if (!team.length) throw teamNotFound(teamId);
    const rows: Array<{ user_id: string; role: TeamRole }> = await sqlRows(m, 'SELECT user_id, role FROM team_memberships WHERE team_id = $1', [teamId]);
    return rows.map((r) => ({ userId: String(r.user_id), role: r.role }));
  }
}

function toInvite(r: Record<string, unknown>): TeamInvite {
  return {
    id: String(r.id),
    teamId: String(r.team_id),
    email: String(r.email),
    role: r.role as AssignableRole,
    createdBy: String(r.created_by),
    createdAt: r.created_at as Date,
    expiresAt: r.expires_at as Date,
  };
}
