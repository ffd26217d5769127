/**
 * The run a fire starts has an id derived from (schedule, fire time) — a
 * UUIDv5 (RFC 9562 §5.5) — so every replica, and every retry of the same
 * dispatch, names the same run: the second attempt finds it instead of
 * starting another.
 */
import { createHash } from 'node:crypto';

/** Namespace of schedule fire run ids (a fixed random UUID). */
export const FIRE_NAMESPACE = '6f1c7d0e-3b8a-4c52-9a57-1d2e8b4f0a93';

export function uuidV5(name: string, namespace: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  const b = hash.subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function fireRunId(scheduleId: string, fireAt: Date): string {
  return uuidV5(`${scheduleId}@${fireAt.toISOString()}`, FIRE_NAMESPACE);
}

/** The idempotency key of that run (unique per owner in the runs table). */
export function fireIdempotencyKey(scheduleId: string, fireAt: Date): string {
  return `schedule:${scheduleId}:${fireAt.toISOString()}`;
}
