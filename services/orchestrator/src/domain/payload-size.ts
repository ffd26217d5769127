/**
 * Size caps on what a run carries: its inputs (checked at StartRun) and each
 * node's output (checked before it is stored). Without them one 1.9 MB input
 * made the run, and its owner's run list, unreadable over gRPC
 * (`Received message larger than max`).
 */

/** Default cap on a run's `inputs` (bytes of JSON). */
export const DEFAULT_RUN_INPUT_MAX_BYTES = 256 * 1024;
/** Default cap on one node's output (bytes of JSON). */
export const DEFAULT_NODE_OUTPUT_MAX_BYTES = 1024 * 1024;

/** UTF-8 bytes of `value` as JSON (`undefined` counts as 0). */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
}

/** What is wrong with a value over `limit` bytes, or undefined when it fits. */
export function oversize(value: unknown, limit: number, setting: string): { bytes: number; reason: string } | undefined {
  const bytes = jsonBytes(value);
  if (bytes <= limit) return undefined;
  return { bytes, reason: `is ${bytes} bytes of JSON; the limit is ${limit} bytes (${setting})` };
}
