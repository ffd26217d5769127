import { accessTo, sharesFor, teamToolGrants, type TeamShare } from './sharing.js';

const share = (teamId: string, over: Partial<TeamShare> = {}): TeamShare => ({ teamId, accessLevel: 'use', teamFileAccess: false, teamPostAccess: false, journalVisibility: 'own_and_scheduled', isActive: true, ...over });
const owner = { userId: 'alice', teamIds: [] };
const member = { userId: 'bob', teamIds: ['t1'] };
const editor = { userId: 'carol', teamIds: ['t2', 't1'] };
const stranger = { userId: 'eve', teamIds: ['t9'] };
const shares = [share('t1'), share('t2', { accessLevel: 'edit' }), share('t3', { isActive: false, accessLevel: 'edit' })];

describe('accessTo', () => {
  it('the owner may do everything', () => {
    for (const a of ['view', 'run', 'edit', 'delete', 'share', 'bind', 'attach'] as const) expect(accessTo(owner, 'alice', [], a)).toEqual({ allowed: true, via: 'owner' });
  });

  it('a member of a sharing team may view, run and bind their connectors, not edit, attach, delete or share', () => {
    for (const a of ['view', 'run', 'bind'] as const) expect(accessTo(member, 'alice', shares, a)).toEqual({ allowed: true, via: 'team', teamId: 't1' });
    for (const a of ['edit', 'attach', 'delete', 'share'] as const) expect(accessTo(member, 'alice', shares, a)).toEqual({ allowed: false, visible: true });
  });

  it('an edit share lets members edit, still not attach, delete or share', () => {
    expect(accessTo(editor, 'alice', shares, 'edit')).toEqual({ allowed: true, via: 'team', teamId: 't2' });
    expect(accessTo(editor, 'alice', shares, 'attach')).toEqual({ allowed: false, visible: true });
    expect(accessTo(editor, 'alice', shares, 'delete')).toEqual({ allowed: false, visible: true });
    expect(accessTo(editor, 'alice', shares, 'share')).toEqual({ allowed: false, visible: true });
  });

  it('others, inactive shares and an empty user id do not see it', () => {
    expect(accessTo(stranger, 'alice', shares, 'view')).toEqual({ allowed: false, visible: false });
    expect(accessTo({ userId: 'dan', teamIds: ['t3'] }, 'alice', shares, 'edit')).toEqual({ allowed: false, visible: false });
    expect(accessTo({ userId: '', teamIds: [] }, '', [], 'view')).toEqual({ allowed: false, visible: false });
  });

  it('sharesFor keeps the caller’s active shares', () => {
    expect(sharesFor(editor, shares).map((s) => s.teamId)).toEqual(['t1', 't2']);
    expect(sharesFor({ userId: 'x', teamIds: ['t3'] }, shares)).toEqual([]);
  });
});

describe('teamToolGrants', () => {
  it('the owner gets what team_config grants', () => {
    expect(teamToolGrants({ team_file_access: true })).toEqual({ files: true, posts: false });
    expect(teamToolGrants({})).toEqual({ files: false, posts: false });
  });

  it('through a share, both the config and the share must grant', () => {
    expect(teamToolGrants({ team_file_access: true, team_post_access: true }, share('t', { teamFileAccess: true }))).toEqual({ files: true, posts: false });
    expect(teamToolGrants({ team_file_access: false }, share('t', { teamFileAccess: true, teamPostAccess: true }))).toEqual({ files: false, posts: false });
  });
});
