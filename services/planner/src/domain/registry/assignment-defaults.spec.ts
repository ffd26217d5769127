import { assignmentDefaultsIssues, MAX_ASSIGNEES } from './assignment-defaults.js';

const human = (assignmentDefaults?: Record<string, unknown>) => ({ agentType: 'human' as const, ...(assignmentDefaults ? { assignmentDefaults } : {}) });

describe('assignmentDefaultsIssues', () => {
  it('accepts registrations without holders, and human ones naming user ids', () => {
    expect(assignmentDefaultsIssues(human())).toEqual([]);
    expect(assignmentDefaultsIssues(human({ role: 'director', maxNotifications: 1 }))).toEqual([]);
    expect(assignmentDefaultsIssues(human({ assignees: [] }))).toEqual([]);
    expect(assignmentDefaultsIssues(human({ assignees: ['7d1c2f8e-0000-4000-8000-000000000001', 'ops-lead'], maxNotifications: 1 }))).toEqual([]);
    expect(assignmentDefaultsIssues({ agentType: 'ai', assignmentDefaults: { role: 'writer' } })).toEqual([]);
  });

  it('refuses a list that is not an array, naming the field', () => {
    for (const [value, got] of [
      ['u1', 'string "u1"'],
      [{ u1: true }, 'an object'],
      [null, 'null'],
      [3, 'number 3'],
    ] as const) {
      expect(assignmentDefaultsIssues(human({ assignees: value }))).toEqual([
        { code: 'invalid_field', field: 'assignmentDefaults.assignees', message: `assignmentDefaults.assignees: must be an array of user ids (non-empty strings), got ${got}` },
      ]);
    }
  });

  it('names each bad entry by index', () => {
    const issues = assignmentDefaultsIssues(human({ assignees: ['u1', '', 7, ' u2 ', 'u1', 'x'.repeat(201), ['u3']] }));
    expect(issues.map((i) => [i.field, i.message.replace(/^[^:]+: /, '')])).toEqual([
      ['assignmentDefaults.assignees[1]', 'must be a user id, not an empty string'],
      ['assignmentDefaults.assignees[2]', 'must be a user id (a non-empty string), got number 7'],
      ['assignmentDefaults.assignees[3]', 'must not start or end with whitespace'],
      ['assignmentDefaults.assignees[4]', "user 'u1' is listed twice"],
      ['assignmentDefaults.assignees[5]', 'must be at most 200 characters'],
      ['assignmentDefaults.assignees[6]', 'must be a user id (a non-empty string), got an array'],
    ]);
    expect(issues[2]!.suggestedFix).toBe('u2');
  });

  it('caps the number of holders', () => {
    const many = Array.from({ length: MAX_ASSIGNEES + 1 }, (_, i) => `u${i}`);
    expect(assignmentDefaultsIssues(human({ assignees: many }))[0]!.message).toBe(`assignmentDefaults.assignees: must name at most ${MAX_ASSIGNEES} users, got ${MAX_ASSIGNEES + 1}`);
  });

  it('refuses holders on a capability that is not human', () => {
    expect(assignmentDefaultsIssues({ agentType: 'ai', assignmentDefaults: { assignees: ['u1'] } })).toEqual([
      { code: 'invalid_field', field: 'assignmentDefaults.assignees', message: 'assignmentDefaults.assignees: only human capabilities (agentType "human") have holders; this one is "ai"' },
    ]);
  });
});
