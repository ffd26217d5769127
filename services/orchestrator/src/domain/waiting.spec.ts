import { PlanNodeSchema } from '@af/plan';
import type { NodeState } from './run-state.js';
import { approvalTimeoutMs, delayUntil, nextTimer, resolveSubflow, resolveWaiting } from './waiting.js';

const node = (kind: 'approval' | 'delay', params: Record<string, unknown> = {}) => PlanNodeSchema.parse({ id: 'n', kind, params });
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

describe('timers', () => {
  it('reads approval timeouts', () => {
    expect(approvalTimeoutMs({ timeout_minutes: 2 })).toBe(120_000);
    expect(approvalTimeoutMs({ timeout_seconds: '3' })).toBe(3000);
    expect(approvalTimeoutMs({})).toBeNull();
  });

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
