import { PlanNodeSchema } from '@af/plan';
import type { Decision, NodeState } from './run-state.js';
import { delayUntil, nextTimer, resolveSubflow, resolveWaiting } from './waiting.js';

const node = (kind: 'approval' | 'delay' | 'human' | 'llm', params: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  PlanNodeSchema.parse({ id: 'n', kind, params, ...extra });
const waiting = (extra: Partial<NodeState> = {}): NodeState => ({
  nodeId: 'n',
  status: 'waiting',
  attempt: 1,
  error: null,
  startedAt: null,
  finishedAt: null,
  ...extra,
});
const now = new Date('2026-01-01T00:00:00Z');
const decision = (d: 'approve' | 'reject') => ({ decision: d, instructions: 'go', decidedBy: 'u1', decidedAt: now.toISOString() });

describe('resolveWaiting', () => {
  it('keeps an undecided approval waiting', () => {
    expect(resolveWaiting(node('approval'), waiting(), now)).toBeNull();
    expect(resolveWaiting(node('approval'), waiting({ waitUntil: new Date(now.getTime() + 1) }), now)).toBeNull();
  });

  it('completes an approved gate with the decision', () => {
    expect(resolveWaiting(node('approval'), waiting({ decision: decision('approve') }), now)).toEqual({
      kind: 'complete',
      output: { approved: true, decision: 'approve', instructions: 'go', decided_by: 'u1', decided_at: now.toISOString() },
    });
  });

  it('on reject: stop fails, skip skips', () => {
    expect(resolveWaiting(node('approval'), waiting({ decision: decision('reject') }), now)).toMatchObject({ kind: 'fail' });
    expect(resolveWaiting(node('approval', { on_reject: 'skip' }), waiting({ decision: decision('reject') }), now)).toEqual({
      kind: 'skip',
      reason: 'rejected',
    });
  });

  it('auto-skips an approval whose timeout passed; a decision wins over the timeout', () => {
    const past = new Date(now.getTime() - 1);
    expect(resolveWaiting(node('approval'), waiting({ waitUntil: past }), now)).toEqual({ kind: 'skip', reason: 'timed_out' });
    expect(resolveWaiting(node('approval'), waiting({ waitUntil: past, decision: decision('approve') }), now)).toMatchObject({ kind: 'complete' });
  });

  it('completes a delay once its time came', () => {
    expect(resolveWaiting(node('delay'), waiting({ waitUntil: new Date(now.getTime() + 5) }), now)).toBeNull();
    expect(resolveWaiting(node('delay'), waiting({ waitUntil: now }), now)).toEqual({ kind: 'complete', output: { waited_until: now.toISOString() } });
  });
});

describe('resolveWaiting with approval-service resolutions', () => {
  const resolved = (status: string, extra: Partial<Decision> = {}): Decision => ({ instructions: '', decidedBy: 'u1', decidedAt: now.toISOString(), requestId: 'r1', kind: 'approval_gate', status, ...extra });
  const gate = node('approval', {});
  const tool = node('approval', { tool_names: ['send_email'], agent_id: 'mail_agent_0', on_reject: 'skip' }, { action: 'hitl_approval' });

  it('completes an approved gate with the request id and, for tool HITL, the effective task', () => {
    expect(resolveWaiting(gate, waiting({ decision: resolved('approved', { decision: 'approve', instructions: 'go' }) }), now)).toEqual({
      kind: 'complete',
      output: { approved: true, decision: 'approve', instructions: 'go', decided_by: 'u1', decided_at: now.toISOString(), request_id: 'r1' },
    });
    const d = resolved('approved', { kind: 'tool_hitl', decision: 'approve', instructions: 'also GPUs', intent: 'enhance', effectiveTask: 'T+', automatic: true });
    expect(resolveWaiting(tool, waiting({ decision: d }), now)).toEqual({
      kind: 'complete',
      output: expect.objectContaining({ intent: 'enhance', effective_task: 'T+', agent_id: 'mail_agent_0', tool_names: ['send_email'], automatic: true }),
    });
  });

  it('times out: a playbook gate is skipped; a tool HITL timeout is a rejection under on_reject', () => {
    expect(resolveWaiting(gate, waiting({ decision: resolved('timed_out') }), now)).toEqual({ kind: 'skip', reason: 'timed_out' });
    expect(resolveWaiting(tool, waiting({ decision: resolved('timed_out') }), now)).toEqual({ kind: 'skip', reason: 'timed_out' });
    const stopTool = node('approval', { tool_names: [], on_reject: 'stop' });
    expect(resolveWaiting(stopTool, waiting({ decision: resolved('timed_out') }), now)).toEqual({ kind: 'fail', message: 'approval n timed out (treated as a rejection)' });
  });

  it('rejections name who rejected; expiry and the non-streaming skip are handled', () => {
    expect(resolveWaiting(gate, waiting({ decision: resolved('rejected', { decision: 'reject' }) }), now)).toEqual({ kind: 'fail', message: 'approval n was rejected by u1' });
    expect(resolveWaiting(gate, waiting({ decision: resolved('expired', { reason: 'run ended' }) }), now)).toEqual({ kind: 'fail', message: 'approval n expired: run ended' });
    expect(resolveWaiting(tool, waiting({ decision: resolved('skipped', { kind: 'non_streaming', reasonCode: 'hitl_skipped_non_streaming' }) }), now)).toEqual({
      kind: 'skip',
      reason: 'hitl_skipped_non_streaming',
    });
    expect(resolveWaiting(gate, waiting({ decision: resolved('answered') }), now)).toMatchObject({ kind: 'fail' });
  });

  it('human tasks: submitted output completes; decline fails unless on_decline is skip; a missed SLA fails', () => {
    const human = node('human', {}, { outputSchema: { type: 'object' } });
    const d = (status: string, extra: Partial<Decision> = {}) => resolved(status, { kind: 'human_task', ...extra });
    expect(resolveWaiting(human, waiting(), now)).toBeNull();
    expect(resolveWaiting(human, waiting({ decision: d('submitted', { output: { brief: 'x' } }) }), now)).toEqual({ kind: 'complete', output: { brief: 'x' } });
    expect(resolveWaiting(human, waiting({ decision: d('submitted', { output: [1] }) }), now)).toEqual({ kind: 'complete', output: { value: [1] } });
    expect(resolveWaiting(human, waiting({ decision: d('declined', { reasonCode: 'not_qualified', reason: 'not mine' }) }), now)).toEqual({
      kind: 'fail',
      message: 'human task n was declined by u1 (not_qualified: not mine)',
    });
    expect(resolveWaiting(node('human', { on_decline: 'skip' }), waiting({ decision: d('declined', { reasonCode: 'other' }) }), now)).toEqual({ kind: 'skip', reason: 'declined' });
    expect(resolveWaiting(human, waiting({ decision: d('timed_out') }), now)).toEqual({ kind: 'fail', message: 'human task n missed its SLA: nobody submitted it before it timed out' });
    expect(resolveWaiting(human, waiting({ decision: d('expired', { reason: 'gone' }) }), now)).toEqual({ kind: 'fail', message: 'human task n ended as expired: gone' });
  });

  it('clarifications: an answer re-runs the node (any kind); decline and timeout fail it', () => {
    const d = (status: string, extra: Partial<Decision> = {}) => resolved(status, { kind: 'clarify', ...extra });
    expect(resolveWaiting(node('llm'), waiting({ decision: d('answered', { answer: '2024' }) }), now)).toEqual({ kind: 'rerun' });
    expect(resolveWaiting(node('llm'), waiting({ decision: d('declined', { reasonCode: 'unavailable' }) }), now)).toEqual({
      kind: 'fail',
      message: 'node n: its clarification was declined by u1 (unavailable)',
    });
    expect(resolveWaiting(node('llm'), waiting({ decision: d('timed_out') }), now)).toEqual({ kind: 'fail', message: 'node n: nobody answered its clarification in time' });
    expect(resolveWaiting(node('llm'), waiting({ decision: d('expired') }), now)).toMatchObject({ kind: 'fail' });
    expect(resolveWaiting(node('llm'), waiting(), now)).toBeNull();
  });
});

describe('timers', () => {
  it('reads delays and refuses bad ones', () => {
    expect(delayUntil({ durationMs: 200 }, now)).toEqual(new Date(now.getTime() + 200));
    expect(delayUntil({ seconds: 2 }, now)).toEqual(new Date(now.getTime() + 2000));
    expect(delayUntil({ until: '2026-02-01T00:00:00Z' }, now)).toEqual(new Date('2026-02-01T00:00:00Z'));
    expect(delayUntil({}, now)).toMatch(/needs params.durationMs/);
    expect(delayUntil({ durationMs: -1 }, now)).toMatch(/between 0 and 366 days/);
    expect(delayUntil({ until: 'tomorrow-ish' }, now)).toMatch(/ISO-8601/);
  });

  it('finds the next timer', () => {
    const a = waiting({ nodeId: 'a', waitUntil: new Date(5) });
    const b = waiting({ nodeId: 'b', waitUntil: new Date(3) });
    expect(nextTimer([a, b, waiting({ nodeId: 'c' })])).toEqual(new Date(3));
    expect(nextTimer([{ ...b, status: 'completed' }])).toBeNull();
  });
});

describe('resolveSubflow', () => {
  const sub = PlanNodeSchema.parse({ id: 'sub', kind: 'subflow', params: { playbook_id: 'p' } });
  const at = (iso: string) => new Date(iso);
  const child = (status: string, extra: Record<string, unknown> = {}) => ({
    id: 'c1',
    status,
    error: null,
    outputs: {},
    createdAt: at('2026-01-01T00:00:00Z'),
    updatedAt: at('2026-01-01T00:00:02.500Z'),
    ...extra,
  });
  const state = waiting({ waitUntil: at('2026-01-01T00:05:00Z'), childRunId: 'c1' });

  it('waits while the child runs and time is left', () => {
    expect(resolveSubflow(sub, state, child('running'), now)).toBeNull();
    expect(resolveSubflow(sub, state, child('waiting'), now)).toBeNull();
  });

  it('completes with the spawn_and_await result when the child completed', () => {
    expect(resolveSubflow(sub, state, child('completed', { outputs: { report: { ok: true } } }), now)).toEqual({
      kind: 'complete',
      output: { execution_id: 'c1', status: 'completed', final_output: { report: { ok: true } }, duration_ms: 2500 },
    });
    // A child that completed after the deadline still counts.
    expect(resolveSubflow(sub, state, child('completed'), at('2026-01-01T01:00:00Z'))?.kind).toBe('complete');
  });

  it('fails when the child failed or was cancelled, or is gone', () => {
    expect(resolveSubflow(sub, state, child('failed', { error: 'node x failed: boom' }), now)).toEqual({
      kind: 'fail',
      code: 'FAILED_PRECONDITION',
      message: 'subflow sub: child run c1 failed: node x failed: boom',
      cancelChild: false,
    });
    expect(resolveSubflow(sub, state, child('cancelled'), now)).toMatchObject({ kind: 'fail', message: 'subflow sub: child run c1 was cancelled' });
    expect(resolveSubflow(sub, state, null, now)).toMatchObject({ kind: 'fail', code: 'NOT_FOUND' });
  });

  it('times out: the node fails with DEADLINE_EXCEEDED and a running child is cancelled', () => {
    const late = at('2026-01-01T00:05:00Z');
    expect(resolveSubflow(sub, state, child('running'), late)).toEqual({
      kind: 'fail',
      code: 'DEADLINE_EXCEEDED',
      message: 'subflow sub: child run c1 did not finish by 2026-01-01T00:05:00.000Z',
      cancelChild: true,
    });
    expect(resolveSubflow(sub, state, child('cancelled'), late)).toMatchObject({ code: 'DEADLINE_EXCEEDED', cancelChild: false });
  });
});
