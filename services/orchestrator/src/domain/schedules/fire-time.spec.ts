import { parseCron } from './cron-spec.js';
import { catchUp, firesBetween, nextFire, type Timing } from './fire-time.js';

const at = (iso: string) => new Date(iso);
const iso = (d: Date | null) => d?.toISOString() ?? null;
const hourly: Timing = { kind: 'cron', cron: parseCron('0 * * * *', 'UTC') };
const every10m: Timing = { kind: 'interval', everyMs: 600_000, anchor: at('2026-01-01T00:03:00Z') };

describe('nextFire', () => {
  it('interval: on the anchor grid, strictly after', () => {
    expect(iso(nextFire(every10m, at('2026-01-01T00:03:00Z')))).toBe('2026-01-01T00:13:00.000Z');
    expect(iso(nextFire(every10m, at('2026-01-01T05:00:00Z')))).toBe('2026-01-01T05:03:00.000Z');
  });

  it('interval: the anchor itself when `after` is before it', () => {
    expect(iso(nextFire(every10m, at('2025-12-31T00:00:00Z')))).toBe('2026-01-01T00:03:00.000Z');
  });

  it('once: its time, then nothing', () => {
    const once: Timing = { kind: 'once', at: at('2026-05-01T12:00:00Z') };
    expect(iso(nextFire(once, at('2026-04-01T00:00:00Z')))).toBe('2026-05-01T12:00:00.000Z');
    expect(nextFire(once, at('2026-05-01T12:00:00Z'))).toBeNull();
  });
});

describe('firesBetween', () => {
  it('lists the fires in (from, to], bounded by limit', () => {
    expect(firesBetween(hourly, at('2026-01-01T00:00:00Z'), at('2026-01-01T03:00:00Z'), 10).map(iso)).toEqual([
      '2026-01-01T01:00:00.000Z',
      '2026-01-01T02:00:00.000Z',
      '2026-01-01T03:00:00.000Z',
    ]);
    expect(firesBetween(hourly, at('2026-01-01T00:00:00Z'), at('2026-01-02T00:00:00Z'), 2)).toHaveLength(2);
    expect(firesBetween(hourly, at('2026-01-01T00:10:00Z'), at('2026-01-01T00:50:00Z'), 10)).toEqual([]);
  });
});

describe('catchUp', () => {
  const hour = 3_600_000;

  it('nothing is due before the stored fire', () => {
    expect(catchUp(hourly, at('2026-01-01T05:00:00Z'), at('2026-01-01T04:59:59Z'), hour)).toEqual({ fire: null, missed: 0 });
  });

  it('a fire inside the window is dispatched as it is', () => {
    expect(catchUp(hourly, at('2026-01-01T05:00:00Z'), at('2026-01-01T05:30:00Z'), hour)).toEqual({ fire: at('2026-01-01T05:00:00Z'), missed: 0 });
  });

  it('fires older than the window are missed; the oldest inside it is dispatched', () => {
    // Down from 01:00 to 05:30 with a 2 h window: 01:00, 02:00, 03:00 missed; 04:00 is next (05:00 follows on the next tick).
    const r = catchUp(hourly, at('2026-01-01T01:00:00Z'), at('2026-01-01T05:30:00Z'), 2 * hour);
    expect(r).toEqual({ fire: at('2026-01-01T04:00:00Z'), missed: 3 });
  });

  it('all missed when no fire falls inside the window yet', () => {
    const r = catchUp(hourly, at('2026-01-01T01:00:00Z'), at('2026-01-01T05:30:00Z'), 10 * 60_000);
    expect(r).toEqual({ fire: null, missed: 5 });
  });

  it('counts missed fires only up to the limit and still finds the first in the window', () => {
    const minutely: Timing = { kind: 'cron', cron: parseCron('* * * * *', 'UTC') };
    const r = catchUp(minutely, at('2025-01-01T00:00:00Z'), at('2026-01-01T00:00:30Z'), 60_000, 100);
    expect(r.missed).toBe(100);
    expect(r.fire).toEqual(at('2026-01-01T00:00:00Z'));
  });

  it('a one-off fire past the window is missed and nothing follows', () => {
    const once: Timing = { kind: 'once', at: at('2026-01-01T00:00:00Z') };
    expect(catchUp(once, at('2026-01-01T00:00:00Z'), at('2026-01-03T00:00:00Z'), hour)).toEqual({ fire: null, missed: 1 });
  });
});
