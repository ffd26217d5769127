import { localDate, renderQueryTemplate, unknownPlaceholders } from './query-template.js';

describe('query_template', () => {
  const createdAt = new Date('2026-01-01T10:00:00Z');

  it('renders {date} and {last_run_date} on the schedule zone calendar', () => {
    // 2026-03-09T03:00Z is still the 8th in New York.
    const text = renderQueryTemplate('news {last_run_date} to {date} at {datetime}', {
      fireAt: new Date('2026-03-09T03:00:00Z'),
      lastRunAt: new Date('2026-03-02T03:00:00Z'),
      createdAt,
      timeZone: 'America/New_York',
    });
    expect(text).toBe('news 2026-03-01 to 2026-03-08 at 2026-03-09T03:00:00.000Z');
  });

  it('uses the creation date for {last_run_date} before the first run', () => {
    expect(renderQueryTemplate('since {last_run_date}', { fireAt: new Date('2026-02-01T00:00:00Z'), lastRunAt: null, createdAt, timeZone: 'UTC' })).toBe('since 2026-01-01');
  });

  it('leaves text without placeholders alone', () => {
    expect(renderQueryTemplate('plain {', { fireAt: createdAt, lastRunAt: null, createdAt, timeZone: 'UTC' })).toBe('plain {');
  });

  it('names unknown placeholders once each', () => {
    expect(unknownPlaceholders('{date} {today} {lastrun} {today} {last_run_date}')).toEqual(['today', 'lastrun']);
    expect(unknownPlaceholders('{ not a placeholder }')).toEqual([]);
  });

  it('formats dates as YYYY-MM-DD', () => {
    expect(localDate(new Date('2026-12-31T23:30:00Z'), 'Asia/Tokyo')).toBe('2027-01-01');
  });
});
