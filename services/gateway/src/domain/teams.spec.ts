import { AppError } from '@af/service-kit';
import { planMembershipChange, requireManager, type Membership, type MembershipChange } from './teams.js';

const TEAM = 't1';
const team: Membership[] = [
  { userId: 'olga', role: 'owner' },
  { userId: 'max', role: 'member' },
  { userId: 'vic', role: 'viewer' },
];
const add = (userId: string, role: 'member' | 'owner' = 'member'): MembershipChange => ({ kind: 'add', userId, role, field: 'user_id' });
const remove = (userId: string): MembershipChange => ({ kind: 'remove', userId, field: 'userId' });

function failure(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

describe('planMembershipChange', () => {
  it('lets an owner add, promote, demote and remove members', () => {
    expect(planMembershipChange(TEAM, team, 'olga', add('nina'))).toBe('added');
    expect(planMembershipChange(TEAM, team, 'olga', add('max', 'owner'))).toBe('updated');
    expect(planMembershipChange(TEAM, team, 'olga', add('max', 'member'))).toBe('unchanged');
    expect(planMembershipChange(TEAM, team, 'olga', add('vic', 'member'))).toBe('updated');
    expect(planMembershipChange(TEAM, team, 'olga', remove('max'))).toBe('removed');
  });

  it('hides the team from non-members (404), whatever they try', () => {
    for (const change of [add('nina'), remove('max'), remove('stranger')]) {
      const err = failure(() => planMembershipChange(TEAM, team, 'stranger', change));
      expect(err.code).toBe('NOT_FOUND');
      expect(err.message).toBe('team t1 not found');
    }
  });

  it('refuses changes by members who are not owners (403), but lets them leave', () => {
    const err = failure(() => planMembershipChange(TEAM, team, 'max', add('nina')));
    expect(err.code).toBe('PERMISSION_DENIED');
    expect(err.message).toContain('you are a member');
    expect(failure(() => planMembershipChange(TEAM, team, 'vic', remove('max'))).message).toContain('you are a viewer');
    expect(failure(() => planMembershipChange(TEAM, team, 'max', add('max', 'owner'))).code).toBe('PERMISSION_DENIED');
    expect(planMembershipChange(TEAM, team, 'max', remove('max'))).toBe('removed');
    expect(() => requireManager(TEAM, team, 'olga')).not.toThrow();
    expect(failure(() => requireManager(TEAM, team, 'max')).code).toBe('PERMISSION_DENIED');
    expect(failure(() => requireManager(TEAM, team, 'stranger')).code).toBe('NOT_FOUND');
  });

  it('never leaves a team without an owner', () => {
    const removeLast = failure(() => planMembershipChange(TEAM, team, 'olga', remove('olga')));
    expect(removeLast.code).toBe('FAILED_PRECONDITION');
    expect(removeLast.violations).toEqual([{ field: 'userId', reason: "is the team's last owner and cannot be removed", code: 'last_owner' }]);
    const demote = failure(() => planMembershipChange(TEAM, team, 'olga', add('olga', 'member')));
    expect(demote.code).toBe('FAILED_PRECONDITION');
    expect(demote.violations[0]).toMatchObject({ field: 'role', code: 'last_owner' });
    // With a second owner, either may go or step down.
    const two: Membership[] = [...team, { userId: 'ada', role: 'owner' }];
    expect(planMembershipChange(TEAM, two, 'ada', remove('olga'))).toBe('removed');
    expect(planMembershipChange(TEAM, two, 'olga', remove('olga'))).toBe('removed');
    expect(planMembershipChange(TEAM, two, 'olga', add('olga', 'member'))).toBe('updated');
  });

  it('names the field when the user to remove is not a member', () => {
    const err = failure(() => planMembershipChange(TEAM, team, 'olga', remove('nina')));
    expect(err.code).toBe('NOT_FOUND');
    expect(err.violations).toEqual([{ field: 'userId', reason: 'is not a member of this team' }]);
  });
});
