import { approval } from '@af/contracts';
import type { ApprovalRequest } from '../domain/request.js';
import { decisionName, kindName, kindToWire, statusName, statusToWire, toWireRequest } from './request.mapper.js';

const r: ApprovalRequest = {
  id: 'r1',
  kind: 'human_task',
  status: 'submitted',
  ownerUserId: 'u1',
  runId: null,
  nodeId: 'brief',
  runContext: 'background',
  operatorPrompt: 'Write the brief',
  details: { contract_summary: { capabilityId: 'cap' } },
  outputSchema: { type: 'array' },
  capabilityId: 'cap',
  teamIds: ['t'],
  allowTeamDecisions: true,
  assigneeUserIds: ['a'],
  timeoutAt: new Date('2026-01-01T00:15:00Z'),
  notify: true,
  resolution: { output: [1, 'two'] },
  resolutionKey: 'k',
  decidedBy: 'a',
  decidedAt: new Date('2026-01-01T00:05:00Z'),
  createdAt: new Date('2026-01-01T00:00:00Z'),
  updatedAt: new Date('2026-01-01T00:05:00Z'),
};

describe('request mapper', () => {
  it('maps kinds and statuses both ways', () => {
    for (const k of ['approval_gate', 'tool_hitl', 'policy_hitl', 'human_task', 'clarify'] as const) expect(kindName(kindToWire(k))).toBe(k);
    for (const s of ['pending', 'approved', 'rejected', 'timed_out', 'expired', 'declined', 'submitted', 'answered'] as const) expect(statusName(statusToWire(s))).toBe(s);
  });

  it('refuses unspecified or unknown enums naming the field', () => {
    expect(() => kindName(approval.RequestKind.REQUEST_KIND_UNSPECIFIED)).toThrow('kind: must be one of');
    expect(() => kindName(99 as approval.RequestKind, 'kinds[2]')).toThrow('kinds[2]');
    expect(() => statusName(approval.RequestStatus.REQUEST_STATUS_UNSPECIFIED)).toThrow('statuses');
    expect(() => statusName(42 as approval.RequestStatus, 'statuses[0]')).toThrow('statuses[0]');
    expect(decisionName(approval.Decision.DECISION_UNSPECIFIED)).toBeNull();
    expect(decisionName(approval.Decision.DECISION_REJECT)).toBe('reject');
  });

  it('carries any JSON output as text and ISO times', () => {
    const w = toWireRequest(r);
    expect(w).toMatchObject({ kind: approval.RequestKind.REQUEST_KIND_HUMAN_TASK, runId: '', timeoutAt: '2026-01-01T00:15:00.000Z', notify: true });
    expect(w.resolution).toMatchObject({ decidedBy: 'a', decidedAt: '2026-01-01T00:05:00.000Z', outputJson: '[1,"two"]', decision: '', automatic: false });
  });

  it('has no resolution while pending', () => {
    expect(toWireRequest({ ...r, status: 'pending', resolution: null, decidedBy: null, decidedAt: null, timeoutAt: null }).resolution).toBeUndefined();
  });
});
