import { approval } from '@af/contracts';
import { noApprovalService, requestView } from './approval.client.js';

const wire = (over: Partial<approval.Request> = {}): approval.Request => ({
  id: 'r1',
  kind: approval.RequestKind.REQUEST_KIND_HUMAN_TASK,
  status: approval.RequestStatus.REQUEST_STATUS_SUBMITTED,
  ownerUserId: 'u1',
  runId: 'run',
  nodeId: 'brief',
  runContext: 'background',
  operatorPrompt: 'Do it',
  details: {},
  outputSchema: undefined,
  capabilityId: '',
  teamIds: [],
  allowTeamDecisions: false,
  assigneeUserIds: [],
  timeoutAt: '',
  resolution: { decidedBy: 'u2', decidedAt: 't', decision: '', instructions: '', intent: '', effectiveTask: '', outputJson: '[1,{"a":2}]', answer: '', reasonCode: '', reason: '', automatic: false },
  createdAt: 't0',
  updatedAt: 't1',
  notify: true,
  ...over,
});

describe('requestView', () => {
  it('maps enums by name, parses the output text and drops empty fields', () => {
    expect(requestView(wire())).toEqual({
      id: 'r1',
      kind: 'human_task',
      status: 'submitted',
      ownerUserId: 'u1',
      runId: 'run',
      nodeId: 'brief',
      timeoutAt: null,
      resolution: { decidedBy: 'u2', decidedAt: 't', output: [1, { a: 2 }] },
    });
  });

  it('keeps decisions, intents and reasons; a pending request has no resolution', () => {
    const r = requestView(
      wire({
        kind: approval.RequestKind.REQUEST_KIND_TOOL_HITL,
        status: approval.RequestStatus.REQUEST_STATUS_APPROVED,
        timeoutAt: '2026-01-01T00:00:00Z',
        resolution: { decidedBy: 'u', decidedAt: 't', decision: 'approve', instructions: 'x', intent: 'override', effectiveTask: 'T', outputJson: '', answer: '', reasonCode: 'r', reason: 'why', automatic: true },
      }),
    );
    expect(r).toMatchObject({ kind: 'tool_hitl', status: 'approved', timeoutAt: '2026-01-01T00:00:00Z', resolution: { decision: 'approve', instructions: 'x', intent: 'override', effectiveTask: 'T', reasonCode: 'r', reason: 'why', automatic: true } });
    expect(requestView(wire({ status: approval.RequestStatus.REQUEST_STATUS_PENDING, resolution: undefined })).resolution).toBeNull();
  });

  it('refuses a kind it does not know', () => {
    expect(() => requestView(wire({ kind: 99 as approval.RequestKind }))).toThrow('unknown request kind 99');
  });
});

describe('noApprovalService', () => {
  it('fails every call naming APPROVAL_URL', async () => {
    await expect(noApprovalService.create({ nodeId: 'gate' } as never)).rejects.toThrow('node gate waits for a person, and no approval service is configured (set APPROVAL_URL)');
    await expect(noApprovalService.get('u', 'r')).rejects.toThrow('APPROVAL_URL');
    await expect(noApprovalService.decide('u', 'r', 'approve', '', '')).rejects.toThrow('APPROVAL_URL');
  });
});
