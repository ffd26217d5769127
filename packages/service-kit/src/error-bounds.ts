/**
 * Error text is bounded in one place, so no caller can produce an error that
 * is expensive to build, log or send: a message of 25,000 reference segments,
 * or thousands of violations, once made validation hang and overflowed the
 * gRPC trailer (HTTP/2 header list), which dropped the shared gateway→planner
 * connection for every user on it.
 */

/** Longest error message kept (characters). */
export const MAX_ERROR_MESSAGE = 1_000;
/** Most violations kept on one error, the "… and N more" marker included. */
export const MAX_VIOLATIONS = 100;
/** Longest violation `field` kept. */
export const MAX_VIOLATION_FIELD = 300;
/** Longest violation `reason` / `suggestedFix` kept. */
export const MAX_VIOLATION_REASON = 1_000;
/** Largest serialized error detail sent in the `af-error-bin` trailer (bytes of JSON). */
export const MAX_ERROR_DETAIL_BYTES = 16 * 1024;

/** `text` cut to `max` characters, saying how much was cut. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = ` … (${text.length - max} more characters)`;
  return text.slice(0, Math.max(0, max - marker.length)) + marker;
}

interface ViolationLike {
  field: string;
  reason: string;
  code?: string;
  suggestedFix?: string;
}

/** The marker that stands for the violations left out. */
export function moreViolations(n: number): ViolationLike {
  return { field: '…', reason: `… and ${n} more`, code: 'truncated' };
}

function boundOne<V extends ViolationLike>(v: V): V {
  const out = { ...v, field: truncateText(String(v.field), MAX_VIOLATION_FIELD), reason: truncateText(String(v.reason), MAX_VIOLATION_REASON) };
  if (typeof v.code === 'string') out.code = truncateText(v.code, 100);
  if (typeof v.suggestedFix === 'string') out.suggestedFix = truncateText(v.suggestedFix, MAX_VIOLATION_REASON);
  return out;
}

/** At most {@link MAX_VIOLATIONS} entries (the last one a "… and N more" marker when some were left out), each bounded. */
export function boundViolations<V extends ViolationLike>(list: readonly V[]): V[] {
  if (list.length <= MAX_VIOLATIONS) return list.map(boundOne);
  const kept = list.slice(0, MAX_VIOLATIONS - 1).map(boundOne);
  return [...kept, moreViolations(list.length - kept.length) as V];
}

/**
 * Trim a detail's violations until its JSON fits `maxBytes`; the last entry
 * then says how many were dropped. The message is already bounded.
 */
export function fitDetail<D extends { violations: ViolationLike[] }>(detail: D, maxBytes = MAX_ERROR_DETAIL_BYTES): D {
  const size = (d: D) => Buffer.byteLength(JSON.stringify(d));
  if (size(detail) <= maxBytes) return detail;
  const all = detail.violations;
  // Violations already include a marker when the list was cut before: count what it stood for.
  const last = all.at(-1);
  const earlierDropped = last?.code === 'truncated' ? Number(/and (\d+) more/.exec(last.reason)?.[1] ?? 0) : 0;
  const real = earlierDropped ? all.slice(0, -1) : all;
  let lo = 0;
  let hi = real.length;
  // The most violations that still fit with a marker: binary search on the count kept.
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const candidate = { ...detail, violations: [...real.slice(0, mid), moreViolations(real.length - mid + earlierDropped)] };
    if (size(candidate) <= maxBytes) lo = mid;
    else hi = mid - 1;
  }
  return { ...detail, violations: [...real.slice(0, lo), moreViolations(real.length - lo + earlierDropped)] };
}
