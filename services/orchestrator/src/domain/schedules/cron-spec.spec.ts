import { CronSpecError, isTimeZone, parseCron, TimeZoneError } from './cron-spec.js';

const at = (iso: string) => new Date(iso);

describe('parseCron', () => {
  it('fires at local wall-clock times in a non-UTC zone', () => {
    const cron = parseCron('0 8 * * 1', 'Europe/Berlin');
    // Monday 2026-03-09 08:00 CET = 07:00Z
    expect(cron.next(at('2026-03-07T00:00:00Z'))?.toISOString()).toBe('2026-03-09T07:00:00.000Z');
  });

  it('keeps 09:00 local across the spring-forward change in America/New_York (UTC offset -5 → -4)', () => {
    const cron = parseCron('0 9 * * *', 'America/New_York');
    const fires: string[] = [];
    let t = at('2026-03-06T00:00:00Z');
    for (let i = 0; i < 4; i++) {
      t = cron.next(t)!;
      fires.push(t.toISOString());
    }
    expect(fires).toEqual(['2026-03-06T14:00:00.000Z', '2026-03-07T14:00:00.000Z', '2026-03-08T13:00:00.000Z', '2026-03-09T13:00:00.000Z']);
  });

  it('fires once, at the first 01:30, on the fall-back day when 01:30 happens twice', () => {
    const cron = parseCron('30 1 * * *', 'America/New_York');
    const first = cron.next(at('2026-10-31T12:00:00Z'))!;
    expect(first.toISOString()).toBe('2026-11-01T05:30:00.000Z');
    expect(cron.next(first)!.toISOString()).toBe('2026-11-02T06:30:00.000Z');
  });

  it('moves a fire inside the spring-forward gap to the same day, not skipping it', () => {
    const cron = parseCron('30 2 * * *', 'America/New_York');
    const fire = cron.next(at('2026-03-08T00:00:00Z'))!;
    // 02:30 does not exist on 2026-03-08; the fire happens that day (03:30 EDT).
    expect(fire.toISOString()).toBe('2026-03-08T07:30:00.000Z');
  });

  it('is strictly after `after`', () => {
    const cron = parseCron('*/15 * * * *', 'UTC');
    expect(cron.next(at('2026-01-01T00:15:00Z'))?.toISOString()).toBe('2026-01-01T00:30:00.000Z');
  });

  it.each([
    ['0 25 * * *', 'hour', 3, "hour '25' at position 3"],
    ['61 * * * *', 'minute', 1, "minute '61' at position 1"],
    ['0 8 * 13 *', 'month', 7, "month '13' at position 7"],
    ['0 8 * * 8', 'day-of-week', 9, "day-of-week '8' at position 9"],
    ['0  8 x * *', 'day-of-month', 6, "day-of-month 'x' at position 6"],
    ['*/0 * * * *', 'minute', 1, "minute '*/0' at position 1"],
  ])('refuses %s naming the field and its position', (expr, field, position, text) => {
    let error: unknown;
    try {
      parseCron(expr, 'UTC');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CronSpecError);
    expect((error as CronSpecError).field).toBe(field);
    expect((error as CronSpecError).position).toBe(position);
    expect((error as CronSpecError).message).toContain(text);
  });

  it('refuses a wrong number of fields', () => {
    expect(() => parseCron('* * * *', 'UTC')).toThrow(/exactly 5 space-separated fields.*got 4/);
    expect(() => parseCron('0 0 * * * *', 'UTC')).toThrow(/got 6/);
    expect(() => parseCron('   ', 'UTC')).toThrow(CronSpecError);
  });

  it('refuses an expression that never fires', () => {
    expect(() => parseCron('0 0 30 2 *', 'UTC')).toThrow(/never fires/);
  });

  it('refuses an unknown time zone', () => {
    expect(() => parseCron('0 8 * * *', 'Mars/Olympus')).toThrow(TimeZoneError);
    expect(() => parseCron('0 8 * * *', 'Mars/Olympus')).toThrow(/unknown time zone 'Mars\/Olympus'/);
  });
});

describe('isTimeZone', () => {
  it('knows IANA names and UTC, not made-up or empty ones', () => {
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Asia/Kolkata')).toBe(true);
    expect(isTimeZone('Europe/Berln')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });
});
