import { AttachPlaybookSchema, ProfileBodySchema, ShareSchema, UpdateShareSchema } from './profiles.schemas.js';
import { parseBody } from './validation.js';

describe('profile request bodies', () => {
  it('a profile body passes every field on to the planner, which checks them', () => {
    expect(parseBody(ProfileBodySchema, { name: 'n', handle: 'h', strategy: 'telepathy', extra: 1 })).toEqual({ name: 'n', handle: 'h', strategy: 'telepathy', extra: 1 });
    expect(parseBody(ProfileBodySchema, undefined)).toEqual({});
  });

  it('a profile body must be an object with the documented types', () => {
    expect(() => parseBody(ProfileBodySchema, [1])).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => parseBody(ProfileBodySchema, { name: 5 })).toThrow(expect.objectContaining({ violations: [expect.objectContaining({ field: 'name' })] }));
  });

  it('attaching needs a playbook id; priority and parameters have defaults', () => {
    expect(parseBody(AttachPlaybookSchema, { playbook_id: 'pb' })).toEqual({ playbook_id: 'pb', priority: 0, parameters: {} });
    expect(() => parseBody(AttachPlaybookSchema, {})).toThrow(expect.objectContaining({ violations: [expect.objectContaining({ field: 'playbook_id', reason: 'is required' })] }));
    expect(() => parseBody(AttachPlaybookSchema, { playbook_id: 'pb', priority: 1.5 })).toThrow(expect.objectContaining({ violations: [expect.objectContaining({ field: 'priority' })] }));
    expect(() => parseBody(AttachPlaybookSchema, { playbook: 'pb' })).toThrow(expect.objectContaining({ violations: expect.arrayContaining([expect.objectContaining({ field: 'playbook', code: 'unknown_field' })]) }));
  });

  it('a share names the team and takes the seed access levels and flags', () => {
    expect(parseBody(ShareSchema, { team_id: 't', access_level: 'edit', team_file_access: true, journal_visibility: 'full' })).toEqual({ team_id: 't', access_level: 'edit', team_file_access: true, journal_visibility: 'full' });
    expect(() => parseBody(ShareSchema, {})).toThrow(expect.objectContaining({ violations: [expect.objectContaining({ field: 'team_id' })] }));
    expect(() => parseBody(ShareSchema, { team_id: 't', access_level: 'root' })).toThrow(expect.objectContaining({ violations: [expect.objectContaining({ field: 'access_level' })] }));
    expect(() => parseBody(UpdateShareSchema, { team_id: 't' })).toThrow(expect.objectContaining({ violations: [expect.objectContaining({ field: 'team_id', code: 'unknown_field' })] }));
    expect(() => parseBody(UpdateShareSchema, { journal_visibility: 'everyone' })).toThrow(expect.objectContaining({ violations: [expect.objectContaining({ field: 'journal_visibility' })] }));
  });
});
