/**
 * The settings of a team share on the wire (`agent_team_shares` columns):
 * `access_level` (use | edit), `team_file_access`, `team_post_access`,
 * `journal_visibility` (own_only | own_and_scheduled | full), `is_active`.
 * A new share takes the table's defaults for what is not given; an existing
 * one keeps its values.
 */
import { z } from 'zod';
import type { Parsed } from './profile.schema.js';
import { ACCESS_LEVELS, JOURNAL_VISIBILITY, type TeamShare } from './sharing.js';

export const ShareSettingsSchema = z.strictObject({
  access_level: z.enum(ACCESS_LEVELS).optional(),
  team_file_access: z.boolean().optional(),
  team_post_access: z.boolean().optional(),
  journal_visibility: z.enum(JOURNAL_VISIBILITY).optional(),
  is_active: z.boolean().optional(),
});

const DEFAULTS: Omit<TeamShare, 'teamId'> = { accessLevel: 'use', teamFileAccess: false, teamPostAccess: false, journalVisibility: 'own_and_scheduled', isActive: true };

export function parseShareSettings(input: unknown, existing?: Omit<TeamShare, 'teamId'>): Parsed<Omit<TeamShare, 'teamId'>> {
  const r = ShareSettingsSchema.safeParse(input ?? {});
  if (!r.success) {
    return {
      ok: false,
      issues: r.error.issues.map((i) =>
        i.code === 'unrecognized_keys'
          ? { field: i.keys[0]!, reason: `unknown field${i.keys.length > 1 ? 's' : ''} ${i.keys.map((k) => `'${k}'`).join(', ')}`, code: 'unknown_field' }
          : { field: i.path.map(String).join('.') || '(body)', reason: i.message, code: 'invalid_field' },
      ),
    };
  }
  const base = existing ?? DEFAULTS;
  const s = r.data;
  return {
    ok: true,
    value: {
      accessLevel: s.access_level ?? base.accessLevel,
      teamFileAccess: s.team_file_access ?? base.teamFileAccess,
      teamPostAccess: s.team_post_access ?? base.teamPostAccess,
      journalVisibility: s.journal_visibility ?? base.journalVisibility,
      isActive: s.is_active ?? base.isActive,
    },
  };
}
