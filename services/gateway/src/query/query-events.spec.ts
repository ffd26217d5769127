import { queryEventOf, runForComposer } from './query-events.js';

const frame = (type: string, payload: Record<string, unknown>, nodeId?: string) => ({ type, seq: 1, timestamp: '2026-01-01T00:00:00.000Z', payload, ...(nodeId ? { nodeId } : {}) });

describe('query stream events', () => {
  it('names a tool approval hitl_required with the seed payload', () => {
    const e = queryEventOf(frame('hitl_request', { kind: 'tool_hitl', requestId: 'r1', agentId: 'mail_agent_0', agentName: 'mail_agent', toolNames: ['mail__send'], taskDescription: 'send', timeoutAt: '2026-01-01T00:02:00.000Z' }, 'mail_agent_0__approval'));
    expect(e).toEqual({ type: 'hitl_required', nodeId: 'mail_agent_0__approval', payload: { request_id: 'r1', agent_id: 'mail_agent_0', agent_name: 'mail_agent', tool_names: ['mail__send'], task_description: 'send', timeout_seconds: 120 } });
  });

  it('names decisions by the seed event the orchestrator recorded', () => {
    for (const name of ['hitl_approved', 'hitl_denied', 'hitl_timeout']) {
      expect(queryEventOf(frame('log', { event: 'decision', kind: 'tool_hitl', hitlEvent: name, requestId: 'r1' }, 'mail_agent_0__approval'))).toEqual({ type: name, nodeId: 'mail_agent_0__approval', payload: { request_id: 'r1', agent_id: 'mail_agent_0' } });
    }
  });

  it('passes other frames through under their own names', () => {
    expect(queryEventOf(frame('node_complete', { status: 'completed' }, 'rag_agent_0'))).toEqual({ type: 'node_complete', nodeId: 'rag_agent_0', payload: { status: 'completed' } });
    expect(queryEventOf(frame('hitl_request', { kind: 'clarify' })).type).toBe('hitl_request');
    expect(queryEventOf(frame('log', { event: 'decision', kind: 'approval', hitlEvent: 'hitl_approved' })).type).toBe('log');
  });

  it('reads node outputs for the composer', () => {
    expect(runForComposer({ status: 'completed', error: '', nodes: [{ nodeId: 'a', status: 'completed', error: '', outputJson: '{"x":1}' }, { nodeId: 'b', status: 'failed', error: 'e', outputJson: '' }] })).toEqual({
      status: 'completed',
      error: '',
      nodes: [
        { node_id: 'a', status: 'completed', error: '', output: { x: 1 } },
        { node_id: 'b', status: 'failed', error: 'e', output: null },
      ],
    });
  });
});
