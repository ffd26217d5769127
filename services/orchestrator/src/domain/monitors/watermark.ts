/**
 * Watermarks (`agent_monitor_watermarks`): what a detection step saw last, so
 * the next cycle reports only what is new. Four kinds:
 *
 * - `timestamp`: an ISO instant; items whose time field is later are new.
 * - `cursor`: an opaque cursor the source hands back; everything it returns
 *   after the cursor is new, and its next cursor is the new watermark.
 * - `hash`: a content hash of the whole listing; a different hash means the
 *   listing changed (all its items are reported).
 * - `offset`: a count of items already seen in an append-only listing.
 *
 * Pure: the detection actions call these with what the source returned.
 */
import { createHash } from 'node:crypto';

export const WATERMARK_KINDS = ['timestamp', 'cursor', 'hash', 'offset'] as const;
export type WatermarkKind = (typeof WATERMARK_KINDS)[number];

export interface Watermark {
  kind: WatermarkKind;
  value: string;
}

/** A problem with a watermark value, or null when it fits its kind. */
export function watermarkProblem(kind: string, value: string): string | null {
  if (!(WATERMARK_KINDS as readonly string[]).includes(kind)) return `watermark_type must be one of ${WATERMARK_KINDS.join(', ')}, got '${kind}'`;
  if (value.length > 4096) return 'watermark_value is longer than 4096 characters';
  switch (kind as WatermarkKind) {
    case 'timestamp':
      return /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value)) ? null : `a timestamp watermark must be an ISO 8601 instant, got '${value}'`;
    case 'offset':
      return /^\d{1,15}$/.test(value) ? null : `an offset watermark must be a whole number ≥ 0, got '${value}'`;
    case 'hash':
      return /^[0-9a-f]{64}$/.test(value) ? null : 'a hash watermark must be a sha256 hex digest (64 hex digits)';
    case 'cursor':
      return value.length > 0 ? null : 'a cursor watermark must not be empty';
  }
}

export interface Detection<T> {
  items: T[];
  count: number;
  /** The watermark to store when the cycle completes (unchanged when nothing is new). */
  next: Watermark;
}

/**
 * New items by a timestamp field. `previous` null (first cycle): everything
 * is new. Items without a parsable time are skipped (never new), so a bad row
 * cannot make every cycle report it again.
 */
export function newSinceTimestamp<T extends Record<string, unknown>>(items: T[], field: string, previous: Watermark | null): Detection<T> {
  const since = previous ? Date.parse(previous.value) : Number.NEGATIVE_INFINITY;
  let latest = previous ? Date.parse(previous.value) : Number.NEGATIVE_INFINITY;
  const fresh: T[] = [];
  for (const item of items) {
    const t = Date.parse(String(item[field] ?? ''));
    if (Number.isNaN(t) || t <= since) continue;
    fresh.push(item);
    if (t > latest) latest = t;
  }
  const next: Watermark = Number.isFinite(latest) ? { kind: 'timestamp', value: new Date(latest).toISOString() } : (previous ?? { kind: 'timestamp', value: new Date(0).toISOString() });
  return { items: fresh, count: fresh.length, next };
}

/** New items of an append-only listing: those past the stored offset. A shorter listing (rewritten source) reports nothing and keeps the offset. */
export function newSinceOffset<T>(items: T[], previous: Watermark | null): Detection<T> {
  const seen = previous ? Number(previous.value) : 0;
  const fresh = items.length > seen ? items.slice(seen) : [];
  return { items: fresh, count: fresh.length, next: { kind: 'offset', value: String(Math.max(seen, items.length)) } };
}

/** Canonical JSON (sorted keys) so equal listings hash equally whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as Record<string, unknown>)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function contentHash(listing: unknown): string {
  return createHash('sha256').update(canonical(listing)).digest('hex');
}

/** The whole listing when its content hash differs from the stored one, else nothing. */
export function changedByHash<T>(items: T[], previous: Watermark | null): Detection<T> {
  const hash = contentHash(items);
  if (previous && previous.value === hash) return { items: [], count: 0, next: previous };
  return { items, count: items.length, next: { kind: 'hash', value: hash } };
}

/** A cursor source already returned only what follows the cursor: all of it is new; its next cursor (if any) is the watermark. */
export function newSinceCursor<T>(items: T[], nextCursor: string | null, previous: Watermark | null): Detection<T> {
  const next = nextCursor ? { kind: 'cursor' as const, value: nextCursor } : (previous ?? { kind: 'cursor' as const, value: '' });
  return { items, count: items.length, next };
}
