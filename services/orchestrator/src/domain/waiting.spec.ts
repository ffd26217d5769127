import { PlanNodeSchema } from '@af/plan';
import type { NodeState } from './run-state.js';
import { approvalTimeoutMs, delayUntil, nextTimer, resolveWaiting } from './waiting.js';

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
