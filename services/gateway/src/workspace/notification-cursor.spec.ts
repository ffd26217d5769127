import { cursorId, newerThan, parseCursor } from './notification-cursor.js';

const n = (createdAt: string, id: string) => ({ createdAt, id });

describe('notification cursor', () => {
  it('round-trips through the event id', () => {
    const c = n('2026-11-27T10:00:00.000Z', 'b');
    expect(parseCursor(cursorId(c))).toEqual(c);
    expect(parseCursor(undefined)).toBeUndefined();
    expect(parseCursor('garbage')).toBeNull();
  });

  it('keeps what is newer, oldest first, ties broken by id', () => {
    const listed = [
      n('2026-11-27T10:00:02.000Z', 'c'),
      n('2026-11-27T10:00:01.000Z', 'b'),
      n('2026-11-27T10:00:01.000Z', 'a'),
      n('2026-11-27T10:00:00.000Z', 'z'),
    ];
    expect(newerThan(listed, n('2026-11-27T10:00:01.000Z', 'a')).map((x) => x.id)).toEqual(['b', 'c']);
    expect(newerThan(listed, n('2026-11-27T10:00:03.000Z', ''))).toEqual([]);
  });
});
