/**
 * Registry events on `af.capability.<capabilityId>.<event>` (DESIGN §3):
 * `registered`, `heartbeat`, `deregistered`, `inactive`, and
 * `facets_updated` for the catalog. Written to the outbox with the state
 * change; every replica follows them to refresh its in-memory registry.
 * Each carries the owner key (`user:<id>`, `team:<id>`, `shared`) of the
 * capability or facets it is about; the id alone is ambiguous across owners.
 * An event without one (from a replica before owners existed) reloads all.
 */
import type { OutboxMessage, Subjects } from '@af/service-kit';

export type CapabilityEvent =
  | { kind: 'capability'; event: 'registered' | 'deregistered'; owner?: string; capabilityId: string; instanceIds: string[]; at: string }
  | { kind: 'capability'; event: 'heartbeat' | 'inactive'; owner?: string; capabilityId: string; instanceId: string; lastSeenAt: string; at: string }
  | { kind: 'catalog'; event: 'facets_updated'; owner?: string; facets: string[]; at: string };

/** Every registry subject under the service's NATS prefix. */
export function capabilityFilter(subjects: Subjects): string {
  return `${subjects.prefix ? `${subjects.prefix}.` : ''}af.capability.>`;
}

export function capabilityMessage(subjects: Subjects, e: CapabilityEvent): OutboxMessage {
  const p = subjects.prefix ? `${subjects.prefix}.` : '';
  const subject = e.kind === 'catalog' ? `${p}af.capability.catalog.${e.event}` : `${p}af.capability.${e.capabilityId}.${e.event}`;
  const who = `${e.owner ?? ''}:${e.kind === 'catalog' ? 'catalog' : `${e.capabilityId}:${'instanceId' in e ? e.instanceId : e.instanceIds.join(',')}`}`;
  return { subject, payload: e, msgId: `capability:${who}:${e.event}:${e.at}` };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads an event payload; undefined for anything that is not one (other publishers may share the subject space). */
export function parseCapabilityEvent(v: unknown): CapabilityEvent | undefined {
  if (!isRecord(v) || typeof v.at !== 'string') return undefined;
  if (v.owner !== undefined && typeof v.owner !== 'string') return undefined;
  if (v.kind === 'catalog' && v.event === 'facets_updated' && Array.isArray(v.facets)) return v as CapabilityEvent;
  if (v.kind !== 'capability' || typeof v.capabilityId !== 'string') return undefined;
  if ((v.event === 'registered' || v.event === 'deregistered') && Array.isArray(v.instanceIds)) return v as CapabilityEvent;
  if ((v.event === 'heartbeat' || v.event === 'inactive') && typeof v.instanceId === 'string' && typeof v.lastSeenAt === 'string') return v as CapabilityEvent;
  return undefined;
}
