import { formatDuration, parseDuration } from './interval.js';
import { parseScheduleDefinition, runContextOf, timeZoneOf, toTiming } from './schedule-definition.js';
import { nextFire } from './fire-time.js';

const base = { name: 'weekly', spec: { cron: '0 8 * * 1', timezone: 'Europe/Berlin' }, target: { playbook_id: 'pb-1' } };

function violations(raw: unknown) {
  const r = parseScheduleDefinition(raw);
  if (!('violations' in r)) throw new Error('expected violations');
  return r.violations;
}

describe('parseScheduleDefinition', () => {
  it('fills the defaults', () => {
    const r = parseScheduleDefinition(base);
    expect('definition' in r && r.definition).toMatchObject({
      overlap_policy: 'skip',
      approval_policy: 'require',
      catchup_window: 86_400_000,
      jitter: 0,
      max_retries: 2,
      timeout_seconds: 300,
      paused: false,
      query_template: '',
      target: { playbook_id: 'pb-1', playbook_revision: 0, inputs: {} },
    });
  });

  it('parses intervals, jitter and catch-up windows as durations', () => {
    const r = parseScheduleDefinition({ ...base, spec: { interval: '15m' }, jitter: '30s', catchup_window: '2h' });
    expect('definition' in r && [r.definition.spec!.interval, r.definition.jitter, r.definition.catchup_window]).toEqual([900_000, 30_000, 7_200_000]);
    const none = parseScheduleDefinition({ ...base, jitter: '0s' });
    expect('definition' in none && none.definition.jitter).toBe(0);
  });

  it('names an invalid cron field and its position under spec.cron', () => {
    expect(violations({ ...base, spec: { cron: '0 25 * * 1' } })).toEqual([{ field: 'spec.cron', reason: expect.stringContaining("hour '25' at position 3") }]);
  });

  it('names an unknown time zone under spec.timezone', () => {
    expect(violations({ ...base, spec: { cron: '0 8 * * *', timezone: 'Europe/Berln' } })).toEqual([{ field: 'spec.timezone', reason: expect.stringContaining("unknown time zone 'Europe/Berln'") }]);
  });

  it('lists the overlap policies on a typo', () => {
    expect(violations({ ...base, overlap_policy: 'bufer_one' })).toEqual([{ field: 'overlap_policy', reason: expect.stringContaining('skip, buffer_one, buffer_all, cancel_other, terminate_other, allow_all') }]);
  });

  it('requires exactly one of cron, interval, at', () => {
    expect(violations({ ...base, spec: {} })[0]!.reason).toMatch(/exactly one of cron, interval or at/);
    expect(violations({ ...base, spec: { cron: '* * * * *', interval: '1m' } })[0]!.reason).toMatch(/got cron, interval/);
  });

  it('refuses bad durations, placeholders, unknown fields and out-of-range numbers, each by path', () => {
    const v = violations({ ...base, spec: { interval: '5 minutes' }, query_template: 'since {last_run}', max_retries: 11, timeout_seconds: 0, extra: 1, jitter: '2d' });
    expect(v.map((x) => x.field).sort()).toEqual(['', 'jitter', 'max_retries', 'query_template', 'spec.interval', 'timeout_seconds'].map((f) => f || '(definition)').sort());
    expect(v.find((x) => x.field === 'spec.interval')!.reason).toMatch(/'5 minutes' is not a duration/);
    expect(v.find((x) => x.field === 'query_template')!.reason).toMatch(/\{last_run\}/);
  });

  it('refuses an interval below one second and a target with neither playbook nor plan', () => {
    expect(violations({ ...base, spec: { interval: 0 } })[0]!.field).toBe('spec.interval');
    expect(violations({ ...base, target: { inputs: {} } })[0]!.field).toBe('target');
  });

  it('refuses a one-off time that is not an ISO instant', () => {
    expect(violations({ ...base, spec: { at: 'tomorrow' } })).toEqual([{ field: 'spec.at', reason: expect.stringContaining('ISO 8601') }]);
  });
});

describe('monitors', () => {
  const monitor = { name: 'm', monitor: { interval: '15m', active_hours: { start: '08:00', end: '22:00', timezone: 'Asia/Tokyo' } }, target: { playbook_id: 'pb' } };

  it('a monitor polls on its interval, auto-approves by default and writes dates in its active-hours zone', () => {
    const r = parseScheduleDefinition(monitor);
    if (!('definition' in r)) throw new Error(JSON.stringify(r.violations));
    expect([r.definition.approval_policy, timeZoneOf(r.definition), runContextOf(r.definition)]).toEqual(['auto_approve', 'Asia/Tokyo', 'monitor']);
    expect(toTiming(r.definition, new Date('2026-01-01T00:00:00Z'))).toEqual({ kind: 'interval', everyMs: 900_000, anchor: new Date('2026-01-01T00:00:00Z') });
  });

  it('a schedule requires approval by default and runs as scheduled', () => {
    const r = parseScheduleDefinition(base);
    if (!('definition' in r)) throw new Error('invalid');
    expect([r.definition.approval_policy, timeZoneOf(r.definition), runContextOf(r.definition)]).toEqual(['require', 'Europe/Berlin', 'scheduled']);
  });

  it('takes exactly one of spec and monitor', () => {
    expect(violations({ ...monitor, spec: { interval: '1m' } })).toEqual([{ field: 'spec', reason: expect.stringContaining('exactly one of spec') }]);
    expect(violations({ name: 'x', target: { playbook_id: 'pb' } })).toEqual([{ field: 'spec', reason: expect.stringContaining('exactly one of spec') }]);
  });

  it('names bad monitor fields', () => {
    expect(violations({ ...monitor, monitor: { interval: '10s' } })).toEqual([{ field: 'monitor.interval', reason: 'must be at least 1m' }]);
  });
});

describe('toTiming', () => {
  const createdAt = new Date('2026-01-01T00:00:07Z');

  it('anchors an interval at creation unless start_at is given', () => {
    const r = parseScheduleDefinition({ ...base, spec: { interval: '1h' } });
    if (!('definition' in r)) throw new Error('invalid');
    expect(nextFire(toTiming(r.definition, createdAt), createdAt)?.toISOString()).toBe('2026-01-01T01:00:07.000Z');
    const s = parseScheduleDefinition({ ...base, spec: { interval: '1h', start_at: '2026-01-01T00:30:00Z' } });
    if (!('definition' in s)) throw new Error('invalid');
    expect(nextFire(toTiming(s.definition, createdAt), createdAt)?.toISOString()).toBe('2026-01-01T00:30:00.000Z');
  });

  it('builds cron and one-off timings', () => {
    const c = parseScheduleDefinition(base);
    if (!('definition' in c)) throw new Error('invalid');
    expect(toTiming(c.definition, createdAt).kind).toBe('cron');
    const o = parseScheduleDefinition({ ...base, spec: { at: '2026-02-01T00:00:00Z' } });
    if (!('definition' in o)) throw new Error('invalid');
    expect(nextFire(toTiming(o.definition, createdAt), createdAt)?.toISOString()).toBe('2026-02-01T00:00:00.000Z');
  });
});

describe('durations', () => {
  it('parses units and whole seconds; formats back', () => {
    expect(parseDuration('90s')).toEqual({ ms: 90_000 });
    expect(parseDuration('4h')).toEqual({ ms: 14_400_000 });
    expect(parseDuration(30)).toEqual({ ms: 30_000 });
    expect(parseDuration(1.5)).toHaveProperty('error');
    expect(parseDuration('0m')).toHaveProperty('error');
    expect(parseDuration('1w')).toHaveProperty('error');
    expect(formatDuration(90_000)).toBe('1m30s');
    expect(formatDuration(0)).toBe('0s');
  });
});
