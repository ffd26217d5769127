/**
 * Who may do what with an agent profile. The owner may do everything. A
 * member of a team the profile is shared with (an active share) may see it,
 * @mention and run it, and bind their own connectors to it (a binding is its
 * creator's: it serves only their runs); with `access_level: edit` they may
 * also change its settings — but never delete it, share it or attach
 * playbooks, which stay the owner's. Anyone else does not see it at all
 * (NOT_FOUND, never 403).
 */

export const ACCESS_LEVELS = ['use', 'edit'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];
/** Which journal entries team members see: their own runs only; own + scheduled / background (default); all. */
export const JOURNAL_VISIBILITY = ['own_only', 'own_and_scheduled', 'full'] as const;
export type JournalVisibility = (typeof JOURNAL_VISIBILITY)[number];

export interface TeamShare {
  teamId: string;
  accessLevel: AccessLevel;
  teamFileAccess: boolean;
  teamPostAccess: boolean;
  journalVisibility: JournalVisibility;
  isActive: boolean;
}

export interface Caller {
  userId: string;
  teamIds: readonly string[];
}

export type ProfileAction = 'view' | 'run' | 'edit' | 'delete' | 'share' | 'bind' | 'attach';
export const PROFILE_ACTIONS: readonly ProfileAction[] = ['view', 'run', 'bind', 'edit', 'attach', 'delete', 'share'];

export type Access = { allowed: true; via: 'owner' | 'team'; teamId?: string } | { allowed: false; visible: boolean };

/** The active shares through which `caller` reaches a profile of `ownerUserId`. */
export function sharesFor(caller: Caller, shares: readonly TeamShare[]): TeamShare[] {
  const teams = new Set(caller.teamIds);
  return shares.filter((s) => s.isActive && teams.has(s.teamId));
}

/**
 * Whether `caller` may do `action`. `visible: false` means the caller must
 * not learn the profile exists (NOT_FOUND); `visible: true` means they see it
 * but may not do this (PERMISSION_DENIED).
 */
export function accessTo(caller: Caller, ownerUserId: string, shares: readonly TeamShare[], action: ProfileAction): Access {
  if (caller.userId !== '' && caller.userId === ownerUserId) return { allowed: true, via: 'owner' };
  const mine = sharesFor(caller, shares);
  if (mine.length === 0) return { allowed: false, visible: false };
  const share = action === 'edit' ? mine.find((s) => s.accessLevel === 'edit') : mine[0];
  if (action === 'delete' || action === 'share' || action === 'attach' || !share) return { allowed: false, visible: true };
  return { allowed: true, via: 'team', teamId: share.teamId };
}

/**
 * Team tools a run may be given: file tools when the profile's team_config
 * and the share both grant file access, post tools likewise. The owner's own
 * runs get what team_config grants.
 */
export function teamToolGrants(teamConfig: { team_file_access?: boolean | undefined; team_post_access?: boolean | undefined }, share?: TeamShare): { files: boolean; posts: boolean } {
  const files = teamConfig.team_file_access === true;
  const posts = teamConfig.team_post_access === true;
  if (!share) return { files, posts };
  return { files: files && share.teamFileAccess, posts: posts && share.teamPostAccess };
}
