import { AppError } from '@af/service-kit';
import { parseNewRequest, type CreateCommand } from './new-request.js';

const defaults = { toolHitlSeconds: 120, humanTaskSeconds: 900 };
const cmd = (over: Partial<CreateCommand> = {}): CreateCommand => ({
  ownerUserId: 'u1',
  kind: 'approval_gate',
  runId: '4b0c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3',
  nodeId: 'confirm',
  runContext: 'interactive',
  operatorPrompt: 'Go ahead?',
  details: {},
  outputSchema: null,
  capabilityId: '',
  teamIds: [],
  allowTeamDecisions: false,
  assigneeUserIds: [],
  timeoutSeconds: 0,
  autoApprove: false,
  idempotencyKey: 'k1',
  ...over,
});

const violations = (over: Partial<CreateCommand>) => {
  try {
    parseNewRequest(cmd(over), defaults);
  } catch (e) {
    const err = e as AppError;
    expect(err.code).toBe('INVALID_ARGUMENT');
    return err.violations.map((v) => v.field);
  }
  throw new Error('expected INVALID_ARGUMENT');
};

describe('parseNewRequest', () => {
  it('fills defaults: interactive runs are not notified, others are', () => {
    const n = parseNewRequest(cmd({ runContext: '' }), defaults);
    expect(n).toMatchObject({ kind: 'approval_gate', runContext: 'interactive', notify: false, timeoutSeconds: null, capabilityId: null, idempotencyKey: 'k1' });
    expect(parseNewRequest(cmd({ runContext: 'background' }), defaults).notify).toBe(true);
    expect(parseNewRequest(cmd({ runContext: 'scheduled', runId: '', nodeId: '' }), defaults)).toMatchObject({ notify: true, runId: null, nodeId: null });
  });

  it('applies the kind default timeout unless one is given', () => {
    expect(parseNewRequest(cmd({ kind: 'tool_hitl' }), defaults).timeoutSeconds).toBe(120);
    expect(parseNewRequest(cmd({ kind: 'tool_hitl', timeoutSeconds: 5 }), defaults).timeoutSeconds).toBe(5);
    expect(parseNewRequest(cmd({ kind: 'human_task', outputSchema: { type: 'object' } }), defaults).timeoutSeconds).toBe(900);
    expect(parseNewRequest(cmd({ timeoutSeconds: 0.5 }), defaults).timeoutSeconds).toBe(0.5);
  });

  it('dedupes team and assignee lists', () => {
    const n = parseNewRequest(cmd({ teamIds: ['t', 't'], allowTeamDecisions: true, assigneeUserIds: ['a', 'a', 'b'] }), defaults);
    expect(n.teamIds).toEqual(['t']);
    expect(n.assigneeUserIds).toEqual(['a', 'b']);
  });

  it('requires an owner', () => {
    expect(() => parseNewRequest(cmd({ ownerUserId: '' }), defaults)).toThrow('principal.user_id is required');
  });

  it.each([
    [{ kind: 'vote' }, ['kind']],
    [{ runContext: 'whenever' }, ['run_context']],
    [{ runId: 'run-1' }, ['run_id']],
    [{ operatorPrompt: '  ' }, ['operator_prompt']],
    [{ operatorPrompt: 'x'.repeat(10_001) }, ['operator_prompt']],
    [{ timeoutSeconds: -1 }, ['timeout_seconds']],
    [{ timeoutSeconds: Number.NaN }, ['timeout_seconds']],
    [{ timeoutSeconds: 31 * 24 * 3600 }, ['timeout_seconds']],
    [{ allowTeamDecisions: true }, ['team_ids']],
    [{ assigneeUserIds: ['a', ''] }, ['assignee_user_ids[1]']],
    [{ kind: 'human_task', autoApprove: true, outputSchema: { type: 'object' } }, ['auto_approve']],
    [{ kind: 'human_task' }, ['output_schema']],
    [{ kind: 'human_task', outputSchema: { type: 'nonsense' } }, ['output_schema']],
    [{ outputSchema: { type: 'object' } }, ['output_schema']],
    [{ kind: 'tool_hitl', details: { tool_names: 'send_email', task_description: 3 } }, ['details.tool_names', 'details.task_description']],
    [{ details: { blob: 'x'.repeat(300 * 1024) } }, ['details']],
    [{ nodeId: 'n'.repeat(501), idempotencyKey: 'k'.repeat(501) }, ['node_id', 'idempotency_key']],
  ] as Array<[Partial<CreateCommand>, string[]]>)('refuses %o naming %p', (over, fields) => {
    expect(violations(over)).toEqual(fields);
  });

  it('reports every problem at once', () => {
    expect(violations({ kind: 'x', runContext: 'y', operatorPrompt: '' })).toEqual(['kind', 'run_context', 'operator_prompt']);
  });
});
