import { localMinutes, parseHhmm, withinActiveHours } from './active-hours.js';
import { cycleStatus, shouldPoll } from './monitor-cycle.js';

const ny = { start: '08:00', end: '22:00', timezone: 'America/New_York' };

describe('active hours', () => {
  it('is inside from start (inclusive) to end (exclusive) on the zone clock', () => {
    // 2026-01-15 is EST (UTC-5): 08:00 local = 13:00Z.
    expect(withinActiveHours(new Date('2026-01-15T12:59:00Z'), ny)).toBe(false);
    expect(withinActiveHours(new Date('2026-01-15T13:00:00Z'), ny)).toBe(true);
    expect(withinActiveHours(new Date('2026-01-16T02:59:00Z'), ny)).toBe(true);
    expect(withinActiveHours(new Date('2026-01-16T03:00:00Z'), ny)).toBe(false);
  });

  it('follows the zone across a DST change (08:00 EDT = 12:00Z in July)', () => {
    expect(withinActiveHours(new Date('2026-07-15T12:00:00Z'), ny)).toBe(true);
    expect(withinActiveHours(new Date('2026-07-15T11:59:00Z'), ny)).toBe(false);
  });

  it('handles overnight windows and an all-day window', () => {
    const night = { start: '22:00', end: '06:00', timezone: 'UTC' };
    expect(withinActiveHours(new Date('2026-01-01T23:30:00Z'), night)).toBe(true);
    expect(withinActiveHours(new Date('2026-01-01T05:59:00Z'), night)).toBe(true);
    expect(withinActiveHours(new Date('2026-01-01T06:00:00Z'), night)).toBe(false);
    expect(withinActiveHours(new Date('2026-01-01T12:00:00Z'), night)).toBe(false);
    expect(withinActiveHours(new Date('2026-01-01T12:00:00Z'), { start: '00:00', end: '00:00', timezone: 'UTC' })).toBe(true);
  });

  it('parses HH:MM and nothing else', () => {
    expect(parseHhmm('08:30')).toBe(510);
    expect(parseHhmm('23:59')).toBe(1439);
    expect(parseHhmm('24:00')).toBeNull();
    expect(parseHhmm('8:30')).toBeNull();
    expect(() => withinActiveHours(new Date(), { start: '8', end: '22:00', timezone: 'UTC' })).toThrow(/HH:MM/);
  });

  it('reads local minutes in the zone', () => {
    expect(localMinutes(new Date('2026-01-01T00:30:00Z'), 'Asia/Kolkata')).toBe(6 * 60);
  });
});

describe('monitor cycle', () => {
  it('polls always without active hours, else only inside them', () => {
    expect(shouldPoll(new Date('2026-01-15T03:00:00Z'), null)).toBe(true);
    expect(shouldPoll(new Date('2026-01-15T03:00:00Z'), ny)).toBe(false);
  });

  it('is suppressed when suppress_if_empty and no detection step found anything', () => {
    expect(cycleStatus([0, 0], true)).toBe('suppressed');
    expect(cycleStatus([], true)).toBe('suppressed');
    expect(cycleStatus([0, 2], true)).toBe('run');
    expect(cycleStatus([0, 0], false)).toBe('run');
  });
});
