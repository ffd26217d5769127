import { fireIdempotencyKey, fireRunId, uuidV5 } from './fire-run-id.js';
import { dueAt, jitterOffsetMs } from './jitter.js';

const fire = new Date('2026-03-08T13:00:00Z');

describe('fireRunId', () => {
  it('is a UUIDv5 matching the RFC 9562 test vector', () => {
    // RFC 9562 appendix A.4: name "www.example.com" in the DNS namespace.
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('is the same for the same schedule and fire, different otherwise', () => {
    const a = fireRunId('s1', fire);
    expect(fireRunId('s1', new Date(fire.getTime()))).toBe(a);
    expect(fireRunId('s2', fire)).not.toBe(a);
    expect(fireRunId('s1', new Date(fire.getTime() + 1))).not.toBe(a);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('has a matching idempotency key', () => {
    expect(fireIdempotencyKey('s1', fire)).toBe('schedule:s1:2026-03-08T13:00:00.000Z');
  });
});

describe('jitter', () => {
  it('is zero without jitter', () => {
    expect(jitterOffsetMs('s1', fire, 0)).toBe(0);
    expect(dueAt('s1', fire, 0)).toEqual(fire);
  });

  it('is deterministic per (schedule, fire) and inside [0, jitter)', () => {
    const offsets = Array.from({ length: 200 }, (_, i) => jitterOffsetMs(`s${i}`, fire, 60_000));
    expect(offsets.every((o) => o >= 0 && o < 60_000)).toBe(true);
    expect(jitterOffsetMs('s7', fire, 60_000)).toBe(offsets[7]);
    // Spread, not bunched: 200 schedules land in more than half of the 10 six-second buckets.
    expect(new Set(offsets.map((o) => Math.floor(o / 6000))).size).toBeGreaterThan(5);
  });

  it('varies between fires of one schedule', () => {
    const a = jitterOffsetMs('s1', fire, 3_600_000);
    const b = jitterOffsetMs('s1', new Date(fire.getTime() + 3_600_000), 3_600_000);
    expect(a).not.toBe(b);
    expect(dueAt('s1', fire, 3_600_000).getTime()).toBe(fire.getTime() + a);
  });
});
