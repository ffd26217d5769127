/**
 * Keyset paging tokens of the list RPCs (runs, schedules): the last row's
 * `created_at` and id, opaque to callers (base64url JSON). A token this API
 * did not issue is INVALID_ARGUMENT naming `page_token`.
 */
import { AppError } from '@af/service-kit';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface PageKey {
  createdAt: string;
  id: string;
}

export function encodePageToken(last: { createdAt: Date; id: string }): string {
  return Buffer.from(JSON.stringify({ c: last.createdAt.toISOString(), i: last.id })).toString('base64url');
}

export function decodePageToken(token: string): PageKey {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { c?: unknown; i?: unknown };
    if (typeof t.c === 'string' && typeof t.i === 'string' && UUID.test(t.i) && !Number.isNaN(Date.parse(t.c))) return { createdAt: t.c, id: t.i };
  } catch {
    // fall through
  }
  throw AppError.invalid('page_token', 'is not a token this API issued');
}
