import { AppError } from '@af/service-kit';
import { alreadyResolved, defaultTimeoutSeconds, mayAct, resolutionOf, type ApprovalRequest } from './request.js';

const base = { ownerUserId: 'owner', assigneeUserIds: ['assignee'], allowTeamDecisions: false, teamIds: ['team-a'] };

describe('mayAct', () => {
  it('lets the owner and assignees act', () => {
    expect(mayAct(base, { userId: 'owner', teamIds: [] })).toBe(true);
    expect(mayAct(base, { userId: 'assignee', teamIds: [] })).toBe(true);
  });

  it('lets team members act only when the request allows team decisions', () => {
    const member = { userId: 'member', teamIds: ['team-b', 'team-a'] };
    expect(mayAct(base, member)).toBe(false);
    expect(mayAct({ ...base, allowTeamDecisions: true }, member)).toBe(true);
    expect(mayAct({ ...base, allowTeamDecisions: true }, { userId: 'member', teamIds: ['team-b'] })).toBe(false);
  });

  it('refuses strangers and an empty principal', () => {
    expect(mayAct(base, { userId: 'stranger', teamIds: ['x'] })).toBe(false);
    expect(mayAct({ ...base, ownerUserId: '' }, { userId: '', teamIds: [] })).toBe(false);
  });
});

describe('resolutionOf', () => {
  it.each([
    ['approval_gate', { type: 'decide', decision: 'approve', instructions: 'go' }, 'approved'],
    ['tool_hitl', { type: 'decide', decision: 'reject', instructions: '' }, 'rejected'],
    ['policy_hitl', { type: 'decide', decision: 'approve', instructions: '' }, 'approved'],
    ['human_task', { type: 'submit', output: { a: 1 } }, 'submitted'],
    ['human_task', { type: 'decline', reasonCode: 'other', reason: 'no' }, 'declined'],
    ['clarify', { type: 'decline', reasonCode: 'unavailable', reason: '' }, 'declined'],
    ['clarify', { type: 'answer', answer: '2024' }, 'answered'],
    ['human_task', { type: 'timeout' }, 'timed_out'],
    ['approval_gate', { type: 'expire', reason: 'run ended' }, 'expired'],
  ] as const)('%s + %o → %s', (kind, action, status) => {
    expect(resolutionOf(kind, action as never).status).toBe(status);
  });

  it('records what was decided, submitted or answered', () => {
    expect(resolutionOf('tool_hitl', { type: 'decide', decision: 'approve', instructions: 'also GPUs', intent: 'enhance', effectiveTask: 'T' }).resolution).toEqual({
      decision: 'approve',
      instructions: 'also GPUs',
      intent: 'enhance',
      effectiveTask: 'T',
    });
    expect(resolutionOf('human_task', { type: 'submit', output: [1, 2] }).resolution).toEqual({ output: [1, 2] });
    expect(resolutionOf('clarify', { type: 'answer', answer: 'yes' }).resolution).toEqual({ answer: 'yes' });
    expect(resolutionOf('clarify', { type: 'timeout' }).resolution.reasonCode).toBe('timeout');
  });

  it.each([
    ['human_task', 'decide', 'submit its output or decline it'],
    ['clarify', 'submit', 'answer or decline it'],
    ['approval_gate', 'answer', 'approve or reject it'],
    ['tool_hitl', 'decline', 'approve or reject it'],
  ] as const)('refuses %s requests a %s action', (kind, type, how) => {
    const action = { decide: { type, decision: 'approve', instructions: '' }, submit: { type, output: 1 }, answer: { type, answer: 'x' }, decline: { type, reasonCode: 'other', reason: '' } }[type];
    const err = (() => {
      try {
        resolutionOf(kind, action as never);
      } catch (e) {
        return e as AppError;
      }
      throw new Error('no error');
    })();
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations[0]).toMatchObject({ field: 'request_id', code: 'wrong_action' });
    expect(err.message).toContain(how);
  });
});

describe('alreadyResolved', () => {
  it('is FAILED_PRECONDITION naming status, who and when', () => {
    const err = alreadyResolved({ id: 'r1', status: 'approved', decidedBy: 'u1', decidedAt: new Date('2026-01-02T03:04:05Z') } as ApprovalRequest);
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).toBe('request r1 is already approved by u1 at 2026-01-02T03:04:05.000Z');
    expect(err.violations[0]!.code).toBe('already_resolved');
  });
});

describe('defaultTimeoutSeconds', () => {
  const d = { toolHitlSeconds: 120, humanTaskSeconds: 900 };
  it('applies per kind, and 0 means none', () => {
    expect(defaultTimeoutSeconds('tool_hitl', d)).toBe(120);
    expect(defaultTimeoutSeconds('human_task', d)).toBe(900);
    expect(defaultTimeoutSeconds('approval_gate', d)).toBeNull();
    expect(defaultTimeoutSeconds('clarify', d)).toBeNull();
    expect(defaultTimeoutSeconds('tool_hitl', { ...d, toolHitlSeconds: 0 })).toBeNull();
  });
});
