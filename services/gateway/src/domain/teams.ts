/**
 * Team membership rules (seed agent-factory-architecture "team sharing"): who
 * may see a team, who may change its members, and the invariant that a team
 * always keeps an owner. Pure; the repository applies a plan under a lock on
 * the team row, so two owners removing each other cannot both succeed.
 *
 * - Members (any role) see the team and its members; anyone else is told it
 *   does not exist (404), as for every other resource of another user.
 * - Owners add members, change roles and remove members. A member who is not
 *   an owner gets PERMISSION_DENIED (403): they can already see the team, so
 *   hiding it behind a 404 would hide nothing.
 * - Anyone may remove themself (leave), except the last owner.
 */
import { AppError } from '@af/service-kit';

/** Roles stored in `team_memberships.role`; the API assigns `member` and `owner`. */
export type TeamRole = 'owner' | 'admin' | 'member' | 'viewer';
export const ASSIGNABLE_ROLES = ['member', 'owner'] as const;
export type AssignableRole = (typeof ASSIGNABLE_ROLES)[number];

export interface Membership {
  userId: string;
  role: TeamRole;
}

export type MembershipChange = { kind: 'add'; userId: string; role: AssignableRole; field: string } | { kind: 'remove'; userId: string; field: string };

/** What applying a change does; `unchanged` when the member already has that role. */
export type MembershipEffect = 'added' | 'updated' | 'unchanged' | 'removed';

/** The error for a team the caller is not a member of (or that does not exist): the same either way. */
export function teamNotFound(teamId: string): AppError {
  return new AppError('NOT_FOUND', `team ${teamId} not found`);
}

/**
 * Checks `change` by `actorId` against the team's current `members`; returns
 * the effect or throws: NOT_FOUND when the actor is not a member (or the user
 * to remove is not one), PERMISSION_DENIED when a non-owner changes someone
 * else, FAILED_PRECONDITION when the last owner would go.
 */
export function planMembershipChange(teamId: string, members: readonly Membership[], actorId: string, change: MembershipChange): MembershipEffect {
  requireManager(teamId, members, actorId, change.kind === 'remove' && change.userId === actorId);
  const target = members.find((m) => m.userId === change.userId);
  const owners = members.filter((m) => m.role === 'owner').length;
  if (change.kind === 'remove') {
    if (!target) {
      throw new AppError('NOT_FOUND', `user ${change.userId} is not a member of team ${teamId}`, { violations: [{ field: change.field, reason: 'is not a member of this team' }] });
    }
    if (target.role === 'owner' && owners === 1) throw lastOwner(teamId, change.field, 'removed');
    return 'removed';
  }
  if (!target) return 'added';
  if (target.role === change.role) return 'unchanged';
  if (target.role === 'owner' && owners === 1) throw lastOwner(teamId, 'role', 'demoted');
  return 'updated';
}

/**
 * Throws unless `actorId` may change the team's members: NOT_FOUND for
 * non-members, PERMISSION_DENIED for members who are not owners (unless
 * `leaving`: removing themself).
 */
export function requireManager(teamId: string, members: readonly Membership[], actorId: string, leaving = false): void {
  const actor = members.find((m) => m.userId === actorId);
  if (!actor) throw teamNotFound(teamId);
  if (actor.role !== 'owner' && !leaving) {
    throw new AppError('PERMISSION_DENIED', `only an owner of team ${teamId} may change its members (you are ${article(actor.role)} ${actor.role})`);
  }
}

function lastOwner(teamId: string, field: string, what: 'removed' | 'demoted'): AppError {
  return new AppError('FAILED_PRECONDITION', `team ${teamId} must keep an owner: the last owner cannot be ${what} (make another member owner first)`, {
    violations: [{ field, reason: `is the team's last owner and cannot be ${what}`, code: 'last_owner' }],
  });
}

const article = (role: string) => (/^[aeiou]/.test(role) ? 'an' : 'a');
