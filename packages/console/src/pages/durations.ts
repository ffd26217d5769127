/** A stored duration (ms) written back the way the API reads it: `15m`, `2h`, `90s`; a string is already one. */
export function formatDuration(ms: number | string | undefined): string {
  if (typeof ms !== 'number') return ms ?? '';
  if (ms === 0) return '0s';
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000]] as const) if (ms % size === 0) return `${ms / size}${unit}`;
  return `${Math.round(ms / 1000)}s`;
}
