import { parseShareSettings } from './share-settings.js';

describe('parseShareSettings', () => {
  it('a new share takes the defaults for what is not given', () => {
    expect(parseShareSettings(undefined)).toEqual({ ok: true, value: { accessLevel: 'use', teamFileAccess: false, teamPostAccess: false, journalVisibility: 'own_and_scheduled', isActive: true } });
    expect(parseShareSettings({ access_level: 'edit', team_file_access: true, journal_visibility: 'full' })).toEqual({
      ok: true,
      value: { accessLevel: 'edit', teamFileAccess: true, teamPostAccess: false, journalVisibility: 'full', isActive: true },
    });
  });

  it('an existing share keeps what is not given', () => {
    const existing = { accessLevel: 'edit' as const, teamFileAccess: true, teamPostAccess: true, journalVisibility: 'own_only' as const, isActive: true };
    expect(parseShareSettings({ is_active: false }, existing)).toEqual({ ok: true, value: { ...existing, isActive: false } });
  });

  it('refuses unknown levels, visibilities, types and keys by field', () => {
    expect(parseShareSettings({ access_level: 'admin' })).toMatchObject({ ok: false, issues: [{ field: 'access_level', code: 'invalid_field' }] });
    expect(parseShareSettings({ journal_visibility: 'everyone' })).toMatchObject({ ok: false, issues: [{ field: 'journal_visibility' }] });
    expect(parseShareSettings({ team_post_access: 'yes' })).toMatchObject({ ok: false, issues: [{ field: 'team_post_access' }] });
    expect(parseShareSettings({ team_id: 'x' })).toEqual({ ok: false, issues: [{ field: 'team_id', reason: "unknown field 'team_id'", code: 'unknown_field' }] });
    expect(parseShareSettings([])).toMatchObject({ ok: false, issues: [{ field: '(body)' }] });
  });
});
