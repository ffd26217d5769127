import { journalScope, sees } from './visibility.js';

const share = (teamId: string, journalVisibility: 'own_only' | 'own_and_scheduled' | 'full') => ({ teamId, accessLevel: 'use' as const, teamFileAccess: false, teamPostAccess: false, journalVisibility, isActive: true });

describe('journal visibility', () => {
  const own = { invokedBy: 'bob', runContext: 'interactive' };
  const scheduled = { invokedBy: 'alice', runContext: 'scheduled' };
  const other = { invokedBy: 'carol', runContext: 'interactive' };

  it('the owner sees every entry', () => {
    const s = journalScope({ userId: 'alice', teamIds: [] }, 'alice', []);
    expect([own, scheduled, other].every((e) => sees(s, e))).toBe(true);
  });

  it.each([
    ['own_only', [true, false, false]],
    ['own_and_scheduled', [true, true, false]],
    ['full', [true, true, true]],
  ] as const)('a member with %s', (visibility, expected) => {
    const s = journalScope({ userId: 'bob', teamIds: ['t1'] }, 'alice', [share('t1', visibility)]);
    expect([own, scheduled, other].map((e) => sees(s, e))).toEqual(expected);
  });

  it('the widest of several shares wins; no share: nothing', () => {
    expect(sees(journalScope({ userId: 'bob', teamIds: ['t1', 't2'] }, 'alice', [share('t1', 'own_only'), share('t2', 'full')]), other)).toBe(true);
    expect(sees(journalScope({ userId: 'eve', teamIds: ['t9'] }, 'alice', [share('t1', 'full')]), other)).toBe(false);
  });
});
