/**
 * Who may create an account (SIGNUP): `open` — anyone; `invite` — only the
 * holder of a team invitation, for the address it was issued to, except the
 * deployment's very first account (someone has to invite the others);
 * `closed` — nobody (no new accounts by any path). An invitation given in
 * `open` mode is still honoured: the new account joins the inviting team. Pure.
 */
import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '@af/service-kit';

export const SIGNUP_MODES = ['open', 'invite', 'closed'] as const;
export type SignupMode = (typeof SIGNUP_MODES)[number];

/**
 * Whether `mode` lets this registration through: `allowed`, or
 * `first_account_only` (SIGNUP=invite without an invitation: only while the
 * deployment has no account yet). Throws PERMISSION_DENIED when closed.
 */
export function signupRule(mode: SignupMode, hasInvite: boolean): 'allowed' | 'first_account_only' {
  if (mode === 'closed') {
    throw new AppError('PERMISSION_DENIED', 'registration is closed on this deployment (SIGNUP=closed): ask its operator for an account', {
      violations: [{ field: 'email', reason: 'registration is closed', code: 'signup_closed' }],
    });
  }
  return mode === 'invite' && !hasInvite ? 'first_account_only' : 'allowed';
}

/** The refusal of a registration without an invitation when SIGNUP=invite and accounts exist. */
export function inviteRequired(): AppError {
  return new AppError('PERMISSION_DENIED', 'registration needs an invitation on this deployment (SIGNUP=invite): ask a team owner to invite you, then register with its invite_token', {
    violations: [{ field: 'invite_token', reason: 'is required: registration is by invitation only', code: 'invite_required' }],
  });
}

/** A new invitation token (shown once to the inviting owner) and the hash that is stored. */
export function newInviteToken(): { token: string; hash: Buffer } {
  const token = `afi_${randomBytes(32).toString('base64url')}`;
  return { token, hash: inviteTokenHash(token) };
}

export function inviteTokenHash(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** A stored invitation, as registration reads it. */
export interface StoredInvite {
  email: string;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
}

/** Why `invite` cannot be used by `email` at `now`, or undefined when it can. */
export function inviteProblem(invite: StoredInvite | undefined, email: string, now: Date): string | undefined {
  if (!invite || invite.revokedAt) return 'is not a valid invitation';
  if (invite.acceptedAt) return 'has already been used';
  if (invite.expiresAt.getTime() <= now.getTime()) return 'has expired: ask the team owner for a new invitation';
  if (invite.email !== email) return 'was issued for another email address';
  return undefined;
}

/** The INVALID_ARGUMENT for an unusable invitation. */
export function badInvite(reason: string): AppError {
  return AppError.invalid('invite_token', reason, 'invalid_invite');
}
