import { parseCron } from './cron-spec.js';
import type { Timing } from './fire-time.js';
import { jitterOffsetMs } from './jitter.js';
import { advanceSchedule, firstFire, startRetryDelayMs } from './schedule-advance.js';

const at = (iso: string) => new Date(iso);
const hourly: Timing = { kind: 'cron', cron: parseCron('0 * * * *', 'UTC') };
const hour = 3_600_000;

describe('advanceSchedule', () => {
  it('records the due fire and moves to the next one', () => {
    const r = advanceSchedule({ id: 's', timing: hourly, nextFireAt: at('2026-01-01T05:00:00Z'), now: at('2026-01-01T05:00:01Z'), catchupWindowMs: hour, jitterMs: 0 });
    expect(r).toEqual({ fires: [at('2026-01-01T05:00:00Z')], missed: 0, nextFireAt: at('2026-01-01T06:00:00Z'), dueAt: at('2026-01-01T06:00:00Z') });
  });

  it('after downtime: fires inside the window in order, older ones missed', () => {
    const r = advanceSchedule({ id: 's', timing: hourly, nextFireAt: at('2026-01-01T01:00:00Z'), now: at('2026-01-01T05:30:00Z'), catchupWindowMs: 2 * hour, jitterMs: 0 });
    expect(r.fires).toEqual([at('2026-01-01T04:00:00Z'), at('2026-01-01T05:00:00Z')]);
    expect(r.missed).toBe(3);
    expect(r.nextFireAt).toEqual(at('2026-01-01T06:00:00Z'));
  });

  it('all missed: nothing fires and the next fire is ahead of now', () => {
    const r = advanceSchedule({ id: 's', timing: hourly, nextFireAt: at('2026-01-01T01:00:00Z'), now: at('2026-01-01T05:30:00Z'), catchupWindowMs: 60_000, jitterMs: 0 });
    expect(r).toMatchObject({ fires: [], missed: 5, nextFireAt: at('2026-01-01T06:00:00Z') });
  });

  it('bounds the fires of one claim; the rest stay due', () => {
    const minutely: Timing = { kind: 'cron', cron: parseCron('* * * * *', 'UTC') };
    const r = advanceSchedule({ id: 's', timing: minutely, nextFireAt: at('2026-01-01T00:00:00Z'), now: at('2026-01-01T01:00:00Z'), catchupWindowMs: 2 * hour, jitterMs: 0, maxFires: 10 });
    expect(r.fires).toHaveLength(10);
    expect(r.nextFireAt).toEqual(at('2026-01-01T00:10:00Z'));
  });

  it('a one-off schedule has no next fire after its fire', () => {
    const once: Timing = { kind: 'once', at: at('2026-01-01T00:00:00Z') };
    const r = advanceSchedule({ id: 's', timing: once, nextFireAt: at('2026-01-01T00:00:00Z'), now: at('2026-01-01T00:00:05Z'), catchupWindowMs: hour, jitterMs: 0 });
    expect(r).toEqual({ fires: [at('2026-01-01T00:00:00Z')], missed: 0, nextFireAt: null, dueAt: null });
  });

  it('adds the schedule jitter to the next due time only', () => {
    const r = advanceSchedule({ id: 's', timing: hourly, nextFireAt: at('2026-01-01T05:00:00Z'), now: at('2026-01-01T05:00:30Z'), catchupWindowMs: hour, jitterMs: 60_000 });
    expect(r.nextFireAt).toEqual(at('2026-01-01T06:00:00Z'));
    expect(r.dueAt!.getTime()).toBe(at('2026-01-01T06:00:00Z').getTime() + jitterOffsetMs('s', at('2026-01-01T06:00:00Z'), 60_000));
  });

  it('DST: a New York 09:00 cron dispatched minute by minute across spring-forward fires at 14:00Z then 13:00Z', () => {
    const nine: Timing = { kind: 'cron', cron: parseCron('0 9 * * *', 'America/New_York') };
    let next: Date | null = at('2026-03-07T14:00:00Z');
    const fired: string[] = [];
    for (let t = at('2026-03-07T00:00:00Z').getTime(); t <= at('2026-03-09T23:00:00Z').getTime(); t += 60_000) {
      if (next && next.getTime() <= t) {
        const r = advanceSchedule({ id: 's', timing: nine, nextFireAt: next, now: new Date(t), catchupWindowMs: hour, jitterMs: 0 });
        fired.push(...r.fires.map((f) => f.toISOString()));
        next = r.nextFireAt;
      }
    }
    expect(fired).toEqual(['2026-03-07T14:00:00.000Z', '2026-03-08T13:00:00.000Z', '2026-03-09T13:00:00.000Z']);
  });
});

describe('firstFire and retries', () => {
  it('the first fire is strictly after creation', () => {
    expect(firstFire('s', hourly, at('2026-01-01T05:00:00Z'), 0)).toEqual({ nextFireAt: at('2026-01-01T06:00:00Z'), dueAt: at('2026-01-01T06:00:00Z') });
    expect(firstFire('s', { kind: 'once', at: at('2025-01-01T00:00:00Z') }, at('2026-01-01T00:00:00Z'), 0)).toEqual({ nextFireAt: null, dueAt: null });
  });

  it('backs off exponentially, capped', () => {
    expect([0, 1, 2, 3].map(startRetryDelayMs)).toEqual([1000, 2000, 4000, 8000]);
    expect(startRetryDelayMs(20)).toBe(300_000);
  });
});
