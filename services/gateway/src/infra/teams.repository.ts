/**
 * Teams and memberships (tables `teams`, `team_memberships`). Membership
 * changes lock the team row first, so concurrent changes of one team apply
 * one after the other and the "keeps an owner" rule holds under races. The
 * auth guard reads memberships on every request, so a change takes effect on
 * the member's next call (team decisions in the approval service included).
 */
import { randomUUID } from 'node:crypto';
import { AppError, sqlRows, type ServiceKit } from '@af/service-kit';
import type { EntityManager } from 'typeorm';
import { planMembershipChange, requireManager, teamNotFound, type AssignableRole, type Membership, type MembershipEffect, type TeamRole } from '../domain/teams.js';

export interface TeamSummary {
  id: string;
  name: string;
  /** The user who created the team. */
  createdBy: string;
  createdAt: Date;
  /** The caller's role in it. */
  role: TeamRole;
  memberCount: number;
}

export interface TeamMember {
  userId: string;
  email: string;
  name: string | null;
  role: TeamRole;
  joinedAt: Date;
}

export interface TeamDetail extends TeamSummary {
  members: TeamMember[];
}

/** Who to add: a user id or an email address (`field` names the body field for errors). */
export type MemberRef = { userId: string; field: string } | { email: string; field: string };

export class TeamsRepository {
  constructor(private readonly kit: ServiceKit) {}

  /** A new team with `ownerId` as its only member (role owner). */
  async create(ownerId: string, name: string): Promise<TeamDetail> {
    const id = randomUUID();
    await this.kit.transaction(async (m) => {
      await sqlRows(m, 'INSERT INTO teams (id, name, owner_user_id) VALUES ($1, $2, $3)', [id, name, ownerId]);
      await sqlRows(m, `INSERT INTO team_memberships (team_id, user_id, role) VALUES ($1, $2, 'owner')`, [id, ownerId]);
    });
    return this.detail(id, ownerId);
  }

  /** Teams `userId` is a member of, oldest first. */
  async listFor(userId: string): Promise<TeamSummary[]> {
    const rows = await sqlRows(
      this.kit.db,
      `SELECT t.id, t.name, t.owner_user_id, t.created_at, me.role,
              (SELECT count(*) FROM team_memberships c WHERE c.team_id = t.id)::int AS member_count
         FROM team_memberships me JOIN teams t ON t.id = me.team_id
        WHERE me.user_id = $1
        ORDER BY t.created_at, t.id`,
      [userId],
    );
    return rows.map(toSummary);
  }

  /** The team with its members; NOT_FOUND unless `viewerId` is a member. */
  async detail(teamId: string, viewerId: string): Promise<TeamDetail> {
    const rows = await sqlRows(
      this.kit.db,
      `SELECT t.id, t.name, t.owner_user_id, t.created_at,
              m.user_id, m.role, m.created_at AS joined_at, u.email, u.name AS user_name
         FROM teams t
         JOIN team_memberships m ON m.team_id = t.id
         JOIN users u ON u.id = m.user_id
        WHERE t.id = $1
        ORDER BY m.created_at, u.email`,
      [teamId],
    );
    const me = rows.find((r) => r.user_id === viewerId);
    if (!me) throw teamNotFound(teamId);
    const members: TeamMember[] = rows.map((r) => ({ userId: String(r.user_id), email: String(r.email), name: (r.user_name as string | null) ?? null, role: r.role as TeamRole, joinedAt: r.joined_at as Date }));
    return { ...toSummary({ ...me, member_count: rows.length }), members };
  }

  /**
   * Adds `ref` with `role`, or changes the role of a member, as `actorId`
   * (rules in domain/teams.ts). NOT_FOUND naming the field when no user
   * matches `ref`.
   */
  async addMember(teamId: string, actorId: string, ref: MemberRef, role: AssignableRole): Promise<{ effect: MembershipEffect; userId: string }> {
    return this.kit.transaction(async (m) => {
      const members = await this.lockMembers(m, teamId);
      // Check the actor before looking anyone up: only an owner learns whether an address has an account.
      requireManager(teamId, members, actorId);
      const users: Array<{ id: string }> =
        'userId' in ref
          ? await sqlRows(m, 'SELECT id FROM users WHERE id = $1', [ref.userId])
          : await sqlRows(m, 'SELECT id FROM users WHERE email = $1', [ref.email]);
      const userId = users[0]?.id;
      if (!userId) {
        const reason = `no user has this ${'userId' in ref ? 'id' : 'email address'} (they must register first)`;
        throw new AppError('NOT_FOUND', `${ref.field}: ${reason}`, { violations: [{ field: ref.field, reason }] });
      }
      const effect = planMembershipChange(teamId, members, actorId, { kind: 'add', userId, role, field: ref.field });
      if (effect === 'added') await sqlRows(m, 'INSERT INTO team_memberships (team_id, user_id, role) VALUES ($1, $2, $3)', [teamId, userId, role]);
      if (effect === 'updated') await sqlRows(m, 'UPDATE team_memberships SET role = $3 WHERE team_id = $1 AND user_id = $2', [teamId, userId, role]);
      return { effect, userId };
    });
  }

  /** Removes member `userId` as `actorId` (an owner, or the member leaving). */
  async removeMember(teamId: string, actorId: string, userId: string, field: string): Promise<void> {
    await this.kit.transaction(async (m) => {
      const members = await this.lockMembers(m, teamId);
      planMembershipChange(teamId, members, actorId, { kind: 'remove', userId, field });
      await sqlRows(m, 'DELETE FROM team_memberships WHERE team_id = $1 AND user_id = $2', [teamId, userId]);
    });
  }

  /** Locks the team row (serialising its membership changes) and reads its members; NOT_FOUND when there is no team. */
  private async lockMembers(m: EntityManager, teamId: string): Promise<Membership[]> {
    const team = await sqlRows(m, 'SELECT id FROM teams WHERE id = $1 FOR UPDATE', [teamId]);
    if (!team.length) throw teamNotFound(teamId);
    const rows: Array<{ user_id: string; role: TeamRole }> = await sqlRows(m, 'SELECT user_id, role FROM team_memberships WHERE team_id = $1', [teamId]);
    return rows.map((r) => ({ userId: String(r.user_id), role: r.role }));
  }
}

function toSummary(r: Record<string, unknown>): TeamSummary {
  return {
    id: String(r.id),
    name: String(r.name),
    createdBy: String(r.owner_user_id),
    createdAt: r.created_at as Date,
    role: r.role as TeamRole,
    memberCount: Number(r.member_count),
  };
}
