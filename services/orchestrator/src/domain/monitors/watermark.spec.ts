import { changedByHash, contentHash, newSinceCursor, newSinceOffset, newSinceTimestamp, watermarkProblem } from './watermark.js';

const page = [
  { id: 1, updated_at: '2026-01-01T10:00:00Z' },
  { id: 2, updated_at: '2026-01-01T11:00:00Z' },
  { id: 3, updated_at: 'not a date' },
];

describe('timestamp watermarks', () => {
  it('first cycle: everything with a time is new; the watermark is the latest time', () => {
    const d = newSinceTimestamp(page, 'updated_at', null);
    expect(d.items.map((i) => i.id)).toEqual([1, 2]);
    expect(d.next).toEqual({ kind: 'timestamp', value: '2026-01-01T11:00:00.000Z' });
  });

  it('later cycles: only items after the watermark; nothing new keeps it', () => {
    const prev = { kind: 'timestamp' as const, value: '2026-01-01T10:00:00.000Z' };
    expect(newSinceTimestamp(page, 'updated_at', prev).items.map((i) => i.id)).toEqual([2]);
    const none = newSinceTimestamp(page, 'updated_at', { kind: 'timestamp', value: '2026-01-01T11:00:00.000Z' });
    expect([none.count, none.next.value]).toEqual([0, '2026-01-01T11:00:00.000Z']);
  });

  it('an item exactly at the watermark is not new again', () => {
    expect(newSinceTimestamp([{ t: '2026-01-01T10:00:00Z' }], 't', { kind: 'timestamp', value: '2026-01-01T10:00:00.000Z' }).count).toBe(0);
  });
});

describe('offset watermarks', () => {
  it('reports items past the offset and moves it', () => {
    expect(newSinceOffset(['a', 'b', 'c'], { kind: 'offset', value: '1' })).toEqual({ items: ['b', 'c'], count: 2, next: { kind: 'offset', value: '3' } });
    expect(newSinceOffset(['a'], null)).toEqual({ items: ['a'], count: 1, next: { kind: 'offset', value: '1' } });
  });

  it('a shorter listing reports nothing and keeps the offset', () => {
    expect(newSinceOffset(['a'], { kind: 'offset', value: '5' })).toEqual({ items: [], count: 0, next: { kind: 'offset', value: '5' } });
  });
});

describe('hash watermarks', () => {
  it('a changed listing reports all of it; the same listing (any key order) nothing', () => {
    const first = changedByHash([{ a: 1, b: 2 }], null);
    expect(first.count).toBe(1);
    expect(changedByHash([{ b: 2, a: 1 }], first.next)).toEqual({ items: [], count: 0, next: first.next });
    expect(changedByHash([{ a: 1, b: 3 }], first.next).count).toBe(1);
    expect(contentHash([1, 2])).not.toBe(contentHash([2, 1]));
  });
});

describe('cursor watermarks', () => {
  it('everything returned after the cursor is new; the next cursor is kept, or the old one', () => {
    expect(newSinceCursor([1, 2], 'c2', { kind: 'cursor', value: 'c1' })).toEqual({ items: [1, 2], count: 2, next: { kind: 'cursor', value: 'c2' } });
    expect(newSinceCursor([], null, { kind: 'cursor', value: 'c1' })).toEqual({ items: [], count: 0, next: { kind: 'cursor', value: 'c1' } });
  });
});

describe('watermarkProblem', () => {
  it.each([
    ['timestamp', '2026-01-01T00:00:00Z', null],
    ['timestamp', '42', /ISO 8601/],
    ['offset', '12', null],
    ['offset', '-1', /whole number/],
    ['hash', 'a'.repeat(64), null],
    ['hash', 'xyz', /sha256/],
    ['cursor', 'abc', null],
    ['cursor', '', /not be empty/],
    ['etag', 'x', /one of timestamp, cursor, hash, offset/],
  ])('%s %s', (kind, value, problem) => {
    const p = watermarkProblem(kind, value);
    if (problem === null) expect(p).toBeNull();
    else expect(p).toMatch(problem);
  });
});
