/**
 * Where a notification stream is: the (created_at, id) of the newest
 * notification sent, carried as the SSE event id so a client reconnecting
 * with `Last-Event-ID` misses nothing and sees nothing twice.
 */
export interface Cursor {
  createdAt: string;
  id: string;
}

export const cursorId = (c: Cursor): string => Buffer.from(`${c.createdAt}|${c.id}`).toString('base64url');

/** The cursor of a Last-Event-ID, undefined when absent; null when it is not one of ours. */
export function parseCursor(text: string | undefined): Cursor | undefined | null {
  if (!text) return undefined;
  const [createdAt, id] = Buffer.from(text, 'base64url').toString('utf8').split('|');
  if (!createdAt || !id || Number.isNaN(Date.parse(createdAt))) return null;
  return { createdAt, id };
}

const after = (a: Cursor, b: Cursor) =>
  a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id);

/** The notifications (newest first, as listed) newer than `cursor`, oldest first: the order they are sent in. */
export function newerThan<T extends Cursor>(newestFirst: T[], cursor: Cursor): T[] {
  return newestFirst.filter((n) => after(n, cursor)).reverse();
}
