/**
 * Jitter spreads fires due at the same instant (every schedule at `0 * * * *`)
 * over [0, jitterMs). It is derived from (schedule, fire time), not random,
 * so every replica computes the same due time and tests can predict it.
 */
import { createHash } from 'node:crypto';

export function jitterOffsetMs(scheduleId: string, fireAt: Date, jitterMs: number): number {
  if (jitterMs <= 0) return 0;
  const digest = createHash('sha256').update(`${scheduleId}@${fireAt.toISOString()}`).digest();
  return Math.floor((digest.readUInt32BE(0) / 0x1_0000_0000) * jitterMs);
}

/** When the fire at `fireAt` is due to be dispatched. */
export function dueAt(scheduleId: string, fireAt: Date, jitterMs: number): Date {
  return new Date(fireAt.getTime() + jitterOffsetMs(scheduleId, fireAt, jitterMs));
}
