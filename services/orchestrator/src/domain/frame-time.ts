/**
 * Frame timestamps are ISO 8601 UTC (`2026-01-02T03:04:05.678Z`), as the
 * seeds' frames are. Frames that reach a stream through the outbox had their
 * timestamp rendered by PostgreSQL (`timestamptz::text`:
 * `2026-01-02 03:04:05.678+00`); they are normalised here. Pure.
 */

const POSTGRES_OR_ISO = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?$/;

/** The instant `value` names, as ISO 8601 UTC with milliseconds; text that names no instant is returned as it is. */
export function isoTimestamp(value: string): string {
  const m = POSTGRES_OR_ISO.exec(value.trim());
  if (!m) return value;
  const [, date, time, fraction = '', zone = 'Z'] = m;
  const ms = fraction ? fraction.slice(0, 4).padEnd(4, '0') : '.000';
  let offset = 'Z';
  if (zone !== 'Z') {
    const digits = zone.slice(1).replace(/:/g, '');
    // Seconds in an offset (historic zones) cannot be written in ISO 8601; they are dropped, as they are below a minute.
    offset = `${zone[0]}${digits.slice(0, 2)}:${digits.slice(2, 4) || '00'}`;
  }
  const instant = new Date(`${date}T${time}${ms}${offset}`);
  return Number.isNaN(instant.getTime()) ? value : instant.toISOString();
}
