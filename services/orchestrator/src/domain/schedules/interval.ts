/** Durations written `90s`, `15m`, `4h`, `1d` (or a number of seconds), as monitor_config.interval and schedule intervals use them. */

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Milliseconds of `text`, or an error message saying what is accepted. */
export function parseDuration(text: string | number): { ms: number } | { error: string } {
  if (typeof text === 'number') {
    return Number.isInteger(text) && text > 0 ? { ms: text * 1000 } : { error: 'must be a positive whole number of seconds' };
  }
  const m = /^\s*(\d{1,7})\s*([smhd])\s*$/.exec(text);
  if (!m) return { error: `'${text}' is not a duration: write a whole number and a unit s, m, h or d (e.g. 15m)` };
  const ms = Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  if (ms <= 0) return { error: `'${text}' must be longer than zero` };
  return { ms };
}

/** `90000` → `1m30s`: for messages and views. */
export function formatDuration(ms: number): string {
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, size] of [['d', 86_400], ['h', 3_600], ['m', 60], ['s', 1]] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join('') || '0s';
}
