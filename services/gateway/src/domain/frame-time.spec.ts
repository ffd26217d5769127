import { isoTimestamp } from './frame-time.js';

describe('isoTimestamp', () => {
  it('turns PostgreSQL timestamptz text into ISO 8601 UTC', () => {
    expect(isoTimestamp('2026-11-22 09:42:11.383+00')).toBe('2026-11-22T09:42:11.383Z');
    expect(isoTimestamp('2026-11-22 09:42:11.383456+00')).toBe('2026-11-22T09:42:11.383Z');
    expect(isoTimestamp('2026-11-22 09:42:11+00')).toBe('2026-11-22T09:42:11.000Z');
    expect(isoTimestamp('2026-11-22 09:42:11.5+05:30')).toBe('2026-11-22T04:12:11.500Z');
    expect(isoTimestamp('2026-11-22 01:00:00-08')).toBe('2026-11-22T09:00:00.000Z');
    expect(isoTimestamp('1890-01-01 00:00:00+00:53:28')).toBe('1889-12-31T23:07:00.000Z');
  });

  it('keeps ISO timestamps (normalised to UTC with milliseconds)', () => {
    expect(isoTimestamp('2026-11-22T09:42:11.383Z')).toBe('2026-11-22T09:42:11.383Z');
    expect(isoTimestamp('2026-11-22T10:42:11.383+01:00')).toBe('2026-11-22T09:42:11.383Z');
    expect(isoTimestamp('2026-11-22T09:42:11')).toBe('2026-11-22T09:42:11.000Z');
  });

  it('returns text that names no instant as it is', () => {
    expect(isoTimestamp('')).toBe('');
    expect(isoTimestamp('yesterday')).toBe('yesterday');
    expect(isoTimestamp('2026-13-45 99:99:99+00')).toBe('2026-13-45 99:99:99+00');
  });
});
