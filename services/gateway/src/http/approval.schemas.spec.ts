import { HitlResolveSchema, ListApprovalsQuery, ListTasksQuery, RunResumeSchema } from './approval.schemas.js';

describe('approval route schemas', () => {
  it('lists pending approvals (not human tasks) by default; `all` lifts a filter', () => {
    expect(ListApprovalsQuery.parse({})).toMatchObject({ kind: ['approval_gate', 'tool_hitl', 'policy_hitl', 'clarify'], status: ['pending'] });
    expect(ListApprovalsQuery.parse({ kind: 'all', status: 'approved, rejected' })).toMatchObject({ kind: [], status: ['approved', 'rejected'] });
    expect(ListApprovalsQuery.safeParse({ kind: 'vote' }).success).toBe(false);
    expect(ListTasksQuery.parse({ capabilityId: 'HumanAgent.x' })).toMatchObject({ status: ['pending'], capabilityId: 'HumanAgent.x' });
  });

  it('accepts the seeds’ spellings of a decision', () => {
    for (const d of ['approve', 'approved']) expect(HitlResolveSchema.parse({ requestId: 'r', decision: d }).decision).toBe('approve');
    for (const d of ['reject', 'rejected', 'deny', 'denied']) expect(HitlResolveSchema.parse({ requestId: 'r', decision: d }).decision).toBe('reject');
    expect(HitlResolveSchema.safeParse({ requestId: 'r' }).success).toBe(false);
    expect(HitlResolveSchema.safeParse({ requestId: 'r', decision: 'approve', answer: 'x' }).success).toBe(false);
    expect(HitlResolveSchema.parse({ requestId: 'r', answer: '2024' }).answer).toBe('2024');
  });

  it('run.resume needs a run id and takes any JSON output', () => {
    expect(RunResumeSchema.safeParse({ output: {} }).success).toBe(false);
    expect(RunResumeSchema.parse({ runId: '4b0c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3', output: [1, 'x'] }).output).toEqual([1, 'x']);
    expect(RunResumeSchema.safeParse({ runId: '4b0c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3', expectedPlanVersion: 0 }).success).toBe(false);
  });
});
