/** Answers of the account, team and API-key routes, and of /healthz. */
import { z } from 'zod';
import { SIGNUP_MODES } from '../../domain/signup.js';
import { ASSIGNABLE_ROLES as ROLES } from '../../domain/teams.js';
import { component, nullableTimestamp, timestamp } from './common.js';

export const Registered = z.strictObject({
  user: z.strictObject({ id: z.string(), email: z.string(), name: z.string().nullable(), created_at: timestamp }),
  joined_team: z.strictObject({ id: z.string(), role: z.string() }).optional().meta({ description: 'With invite_token: the team joined' }),
});
export const LoginAnswer = z.strictObject({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().meta({ description: 'Seconds' }),
  user: z.strictObject({ id: z.string(), email: z.string() }),
});
export const SignupAnswer = z.strictObject({ signup: z.enum(SIGNUP_MODES) });
export const StreamTokenAnswer = z.strictObject({
  stream_token: z.string(),
  expires_in: z.number().int(),
  path: z.string(),
  url: z.string().meta({ description: '<path>?stream_token=<token>, ready for EventSource' }),
});

export const TeamMember = component(
  'TeamMember',
  z.strictObject({ user_id: z.string(), email: z.string(), name: z.string().nullable(), role: z.string(), joined_at: timestamp }),
);
const teamSummary = { id: z.string(), name: z.string(), role: z.string().meta({ description: `Your role: ${ROLES.join(', ')}` }), member_count: z.number().int(), created_by: z.string(), created_at: timestamp };
export const TeamSummary = component('TeamSummary', z.strictObject(teamSummary), { description: 'A team you are a member of, with your role' });
export const Team = component('Team', z.strictObject({ ...teamSummary, members: z.array(TeamMember) }), { description: 'A team and its members' });
export const TeamInvite = component(
  'TeamInvite',
  z.strictObject({ id: z.string(), team_id: z.string(), email: z.string(), role: z.string(), created_by: z.string(), created_at: timestamp, expires_at: timestamp }),
);

export const TeamAnswer = z.strictObject({ team: Team });
export const TeamList = z.strictObject({ teams: z.array(TeamSummary) });
export const MemberAnswer = z.strictObject({ member: TeamMember, team: Team });
export const MemberRemoved = z.strictObject({ removed: z.literal(true), team: Team.nullable().meta({ description: 'null when you removed yourself' }) });
export const InviteCreated = z.strictObject({ invite: TeamInvite, invite_token: z.string().meta({ description: 'Shown once' }) });
export const InviteList = z.strictObject({ invites: z.array(TeamInvite) });
export const InviteRevoked = z.strictObject({ revoked: z.literal(true) });

export const ApiKey = component(
  'ApiKey',
  z.strictObject({
    id: z.string(),
    name: z.string(),
    prefix: z.string(),
    team_id: z.string().nullable(),
    created_at: timestamp,
    expires_at: nullableTimestamp,
    revoked_at: nullableTimestamp,
    last_used_at: nullableTimestamp,
  }),
  {
    description: 'An API key\'s listing entry (never the key)',
    examples: [{ id: '5b0c1f9e-2d1a-4c53-9a51-0f3e7c2b9d10', name: 'billing-service', prefix: 'afk_3fQ9', team_id: null, created_at: '2026-01-01T00:00:00.000Z', expires_at: null, revoked_at: null, last_used_at: '2026-01-02T08:00:00.000Z' }],
  },
);
export const ApiKeyCreated = z.strictObject({ key: z.string().meta({ description: 'The key, shown in this answer only' }), api_key: ApiKey });
export const ApiKeyAnswer = z.strictObject({ api_key: ApiKey });
export const ApiKeyList = z.strictObject({ api_keys: z.array(ApiKey) });
export const ServiceToken = z.strictObject({
  token: z.string(),
  token_type: z.literal('principal'),
  metadata_key: z.string().meta({ description: 'The gRPC metadata key to send it as' }),
  expires_in: z.number().int(),
  principal: z.strictObject({ user_id: z.string(), team_ids: z.array(z.string()) }),
});

export const Health = z.strictObject({ status: z.literal('ok') });

/** GET /api/docs/openapi.json: this document (its own schema is OpenAPI 3.1's). */
export const OpenApiDocumentAnswer = z.looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) });
