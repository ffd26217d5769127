/** Bodies and path ids of the team routes: parsed here, documented in /api/docs from the same schemas. */
import { z } from 'zod';
import { ASSIGNABLE_ROLES } from '../domain/teams.js';

export const CreateTeamSchema = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
});

/** Add a member (or change a member's role): exactly one of `user_id` or `email`. */
export const AddMemberSchema = z
  .object({
    user_id: z.string().uuid('must be a user id').optional(),
    email: z.string().trim().toLowerCase().pipe(z.email('must be an email address')).optional(),
    /** Default `member`. */
    role: z.enum(ASSIGNABLE_ROLES, { error: `must be one of ${ASSIGNABLE_ROLES.join(', ')}` }).default('member'),
  })
  .refine((b) => (b.user_id === undefined) !== (b.email === undefined), { message: 'give exactly one of user_id or email', path: ['user_id'] });

/** Invite an email address that has no account yet; whoever registers with the invitation's token for it joins the team. */
export const InviteSchema = z.strictObject({
  email: z.string().trim().toLowerCase().pipe(z.email('must be an email address')).pipe(z.string().max(254)),
  /** Default `member`. */
  role: z.enum(ASSIGNABLE_ROLES, { error: `must be one of ${ASSIGNABLE_ROLES.join(', ')}` }).default('member'),
});

/** Path ids: `id` (a team), `userId` and `inviteId`; a malformed one is a 400 naming it. */
export const TeamPathSchema = z.object({
  id: z.string().uuid('must be a team id'),
  userId: z.string().uuid('must be a user id').optional(),
  inviteId: z.string().uuid('must be an invitation id').optional(),
});
