/**
 * Follows `af.capability.>` on the bus and hands each registry event to the
 * in-memory registry and catalog of this replica. The bus replays what it
 * retains on subscribe; events from before this replica started are skipped
 * (its first read loads the database anyway).
 */
import { decodeJson, type Closeable, type EventBus, type Logger, type Subjects } from '@af/service-kit';
import type { CapabilityRegistry } from '../app/capability-registry.service.js';
import type { FacetCatalogStore } from '../app/facet-catalog.store.js';
import { capabilityFilter, parseCapabilityEvent } from './capability-events.js';

export async function followCapabilityEvents(o: { bus: EventBus; subjects: Subjects; log: Logger; registry: CapabilityRegistry; facets: FacetCatalogStore; since: number }): Promise<Closeable> {
  return o.bus.subscribe(capabilityFilter(o.subjects), (m) => {
    let event;
    try {
      event = parseCapabilityEvent(decodeJson(m.data));
    } catch {
      event = undefined;
    }
    if (!event) return o.log.warn({ subject: m.subject }, 'ignored undecodable capability event');
    if (Date.parse(event.at) < o.since) return;
    if (event.kind === 'catalog') {
      o.facets.invalidate();
      return;
    }
    o.registry.apply(event).catch((err) => {
      // A capability deleted meanwhile answers NOT_FOUND on refresh: nothing to keep.
      if ((err as { code?: string }).code !== 'NOT_FOUND') o.log.warn({ err, capabilityId: event.capabilityId }, 'capability event not applied');
    });
  });
}
