import { PlanNodeSchema } from '@af/plan';
import {
  approvalKind,
  audience,
  clarifyAsk,
  clarifySchema,
  contractSummary,
  decisionLogPayload,
  decisionOf,
  deniedAgentOutput,
  hitlRequestPayload,
  timeoutSeconds,
  type RequestView,
} from './human-request.js';

const request = (over: Partial<RequestView> = {}): RequestView => ({
  id: 'r1',
  kind: 'tool_hitl',
  status: 'approved',
  ownerUserId: 'u1',
  runId: 'run',
  nodeId: 'gate',
  timeoutAt: null,
  resolution: { decidedBy: 'u2', decidedAt: '2026-01-01T00:00:00.000Z', decision: 'approve', instructions: 'also x', intent: 'enhance', effectiveTask: 'T', automatic: false },
  ...over,
});

describe('human requests', () => {
  it('tells tool HITL gates from playbook gates', () => {
    expect(approvalKind(PlanNodeSchema.parse({ id: 'g', kind: 'approval', action: 'hitl_approval' }))).toBe('tool_hitl');
    expect(approvalKind(PlanNodeSchema.parse({ id: 'g', kind: 'approval', params: { tool_names: [] } }))).toBe('tool_hitl');
    expect(approvalKind(PlanNodeSchema.parse({ id: 'g', kind: 'approval', action: 'approval' }))).toBe('approval_gate');
  });

  it('turns a resolved request into the decision recorded on its node', () => {
    expect(decisionOf(request())).toEqual({
      decision: 'approve',
      instructions: 'also x',
      decidedBy: 'u2',
      decidedAt: '2026-01-01T00:00:00.000Z',
      requestId: 'r1',
      kind: 'tool_hitl',
      status: 'approved',
      intent: 'enhance',
      effectiveTask: 'T',
      automatic: false,
    });
    expect(decisionOf(request({ kind: 'human_task', status: 'submitted', resolution: { decidedBy: 'u', decidedAt: 't', output: null } })).output).toBeNull();
    expect(decisionOf(request({ status: 'timed_out', resolution: null }))).toMatchObject({ decidedBy: '', status: 'timed_out' });
  });

  it('summarises a node contract', () => {
    const node = PlanNodeSchema.parse({
      id: 'brief',
      kind: 'human',
      capabilityId: 'HumanAgent.clarifyBrief',
      description: 'Clarify the brief',
      params: { input_facets: ['post_context'], output_facets: ['creative_brief'], instruction: 'Fill it in' },
      outputSchema: { type: 'object' },
    });
    expect(contractSummary(node, { inputs: { a: 1 } })).toEqual({
      nodeId: 'brief',
      kind: 'human',
      capabilityId: 'HumanAgent.clarifyBrief',
      description: 'Clarify the brief',
      inputFacets: ['post_context'],
      outputFacets: ['creative_brief'],
      outputSchema: { type: 'object' },
      instruction: 'Fill it in',
      inputs: { a: 1 },
    });
  });

  it('reads timeouts and the audience from params', () => {
    expect(timeoutSeconds({ timeout_minutes: 2 })).toBe(120);
    expect(timeoutSeconds({ timeout_seconds: '3' })).toBe(3);
    expect(timeoutSeconds({ timeout_seconds: -5 })).toBe(0);
    expect(timeoutSeconds({})).toBe(0);
    expect(audience({ team_ids: ['t', 3, ''], allow_team_decisions: true, assignees: 'nope' })).toEqual({ teamIds: ['t'], allowTeamDecisions: true, assigneeUserIds: [] });
  });

  it('builds the hitl_request payload: inline for interactive runs, the queue otherwise', () => {
    const p = hitlRequestPayload({ request: { id: 'r1', kind: 'clarify', timeoutAt: '2026-01-01T00:00:00Z' }, nodeId: 'n[0]', operatorPrompt: 'Which year?', contractSummary: { nodeId: 'n' }, runContext: 'interactive', extra: { questionId: 'q' } });
    expect(p).toEqual({ pendingNodeId: 'n[0]', requestId: 'r1', kind: 'clarify', operatorPrompt: 'Which year?', contractSummary: { nodeId: 'n' }, runContext: 'interactive', delivery: 'inline', timeoutAt: '2026-01-01T00:00:00Z', questionId: 'q' });
    expect(hitlRequestPayload({ request: { id: 'r', kind: 'approval_gate', timeoutAt: null }, nodeId: 'g', operatorPrompt: '?', contractSummary: {}, runContext: 'scheduled' }).delivery).toBe('queue');
  });

  it('logs resolutions with the seed event names', () => {
    expect(decisionLogPayload(decisionOf(request()))).toEqual({ event: 'decision', hitlEvent: 'hitl_approved', decision: 'approve', status: 'approved', kind: 'tool_hitl', requestId: 'r1', decidedBy: 'u2' });
    expect(decisionLogPayload({ decision: 'reject', instructions: '', decidedBy: 'u', decidedAt: '' })).toEqual({ event: 'decision', hitlEvent: 'hitl_denied', decision: 'reject', decidedBy: 'u' });
    expect(decisionLogPayload({ instructions: '', decidedBy: 'system:timeout', decidedAt: '', status: 'timed_out', reasonCode: 'timeout' }).hitlEvent).toBe('hitl_timeout');
  });

  it('recognises a clarification answer and widens the schema for it', () => {
    expect(clarifyAsk({ hitl_clarify: { question: ' Which year? ', questionId: 'q1' } })).toEqual({ question: 'Which year?', questionId: 'q1' });
    for (const v of [null, [], 'x', { hitl_clarify: 'x' }, { hitl_clarify: { question: '' } }, { answer: 1 }]) expect(clarifyAsk(v)).toBeNull();
    expect(clarifySchema({ type: 'object', required: ['a'] })).toMatchObject({ type: 'object', anyOf: [{ required: ['a'] }, { required: ['hitl_clarify'] }] });
    expect(clarifySchema({ type: 'array' })).not.toHaveProperty('type');
    expect(clarifySchema(undefined).anyOf).toHaveLength(2);
  });

  it('gives a gated agent the seed synthetic output when it may not run', () => {
    expect(deniedAgentOutput('rejected', ['send_email'])).toEqual({ task_done: false, error: 'denied_by_user', partial_data: { reason: 'denied_by_user', tools: ['send_email'], message: 'The user denied the action.' } });
    expect(deniedAgentOutput('timed_out', undefined)).toMatchObject({ error: 'hitl_timeout', partial_data: { tools: [] } });
    expect(deniedAgentOutput('hitl_skipped_non_streaming', []).partial_data).toMatchObject({ message: 'This agent requires human approval. Use the streaming endpoint.' });
  });
});
