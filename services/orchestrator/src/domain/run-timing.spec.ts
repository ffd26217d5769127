import { leaseActiveMs, runTimes } from './run-timing.js';

const created = new Date('2026-11-27T10:00:00.000Z');
const at = (iso: string) => new Date(iso).getTime();

describe('runTimes', () => {
  it('durationMs is wall time from the start; activeMs the earlier leases plus the last one', () => {
    // Ran 2 s, parked 10 min waiting on a person, then a last lease of 3 s.
    const leaseStarted = at('2026-11-27T10:10:02.000Z');
    const now = at('2026-11-27T10:10:05.000Z');
    expect(runTimes(created, 2_000, leaseStarted, now)).toEqual({ durationMs: 605_000, activeMs: 5_000 });
  });

  it('a run that never parked: both are the same span', () => {
    const now = at('2026-11-27T10:00:01.500Z');
    expect(runTimes(created, 0, created.getTime(), now)).toEqual({ durationMs: 1_500, activeMs: 1_500 });
    expect(runTimes(created.toISOString(), undefined, created.getTime(), now)).toEqual({ durationMs: 1_500, activeMs: 1_500 });
  });

  it('is never negative, and active time never exceeds wall time, whatever the clocks say', () => {
    const before = at('2026-11-27T09:59:59.000Z');
    expect(runTimes(created, 0, created.getTime(), before)).toEqual({ durationMs: 0, activeMs: 0 });
    expect(runTimes(created, -50, before + 10_000, before)).toEqual({ durationMs: 0, activeMs: 0 });
    expect(runTimes(created, 9_999_999, created.getTime(), at('2026-11-27T10:00:02.000Z'))).toEqual({ durationMs: 2_000, activeMs: 2_000 });
  });

  it('treats an unreadable start or earlier active time as zero', () => {
    const now = at('2026-11-27T10:00:01.000Z');
    expect(runTimes('not a date', 0, now - 200, now)).toEqual({ durationMs: 0, activeMs: 0 });
    expect(runTimes(created, Number.NaN, now - 200, now)).toEqual({ durationMs: 1_000, activeMs: 200 });
  });
});

describe('leaseActiveMs', () => {
  it('is the lease so far, never negative', () => {
    expect(leaseActiveMs(1_000, 4_500)).toBe(3_500);
    expect(leaseActiveMs(5_000, 4_500)).toBe(0);
  });
});
