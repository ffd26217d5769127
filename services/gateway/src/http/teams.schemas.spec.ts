import { AppError } from '@af/service-kit';
import { AddMemberSchema, CreateTeamSchema, TeamPathSchema } from './teams.schemas.js';
import { parseBody } from './validation.js';

const ID = '4b0c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3';

function violations(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err.violations;
    throw err;
  }
  throw new Error('expected INVALID_ARGUMENT');
}

describe('team route schemas', () => {
  it('trims team names and refuses empty or long ones', () => {
    expect(parseBody(CreateTeamSchema, { name: '  Research ' })).toEqual({ name: 'Research' });
    expect(violations(() => parseBody(CreateTeamSchema, {}))).toEqual([{ field: 'name', reason: 'is required' }]);
    expect(violations(() => parseBody(CreateTeamSchema, { name: ' ' }))).toEqual([{ field: 'name', reason: 'must not be empty' }]);
    expect(violations(() => parseBody(CreateTeamSchema, { name: 'x'.repeat(201) }))).toEqual([{ field: 'name', reason: 'must be at most 200 characters' }]);
  });

  it('adds a member by exactly one of user_id or email, as member unless told owner', () => {
    expect(parseBody(AddMemberSchema, { user_id: ID })).toEqual({ user_id: ID, role: 'member' });
    expect(parseBody(AddMemberSchema, { email: ' Ann@Example.com ', role: 'owner' })).toEqual({ email: 'ann@example.com', role: 'owner' });
    expect(violations(() => parseBody(AddMemberSchema, {}))).toEqual([{ field: 'user_id', reason: 'give exactly one of user_id or email' }]);
    expect(violations(() => parseBody(AddMemberSchema, { user_id: ID, email: 'a@b.co' }))).toEqual([{ field: 'user_id', reason: 'give exactly one of user_id or email' }]);
    expect(violations(() => parseBody(AddMemberSchema, { user_id: 'ann' }))).toEqual([{ field: 'user_id', reason: 'must be a user id' }]);
    expect(violations(() => parseBody(AddMemberSchema, { email: 'ann' }))).toEqual([{ field: 'email', reason: 'must be an email address' }]);
    expect(violations(() => parseBody(AddMemberSchema, { user_id: ID, role: 'admin' }))).toEqual([{ field: 'role', reason: 'must be one of member, owner' }]);
  });

  it('names a malformed path id', () => {
    expect(parseBody(TeamPathSchema, { id: ID, userId: ID })).toEqual({ id: ID, userId: ID });
    expect(violations(() => parseBody(TeamPathSchema, { id: 'x' }))).toEqual([{ field: 'id', reason: 'must be a team id' }]);
    expect(violations(() => parseBody(TeamPathSchema, { id: ID, userId: 'me' }))).toEqual([{ field: 'userId', reason: 'must be a user id' }]);
  });
});
