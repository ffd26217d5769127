/** Domain / store rows → wire messages of agentfactory.entity.v1. */
import type { entity } from '@af/contracts';
import type { DiscoveryRow, EntityView, LogRow, RelationshipView, ReviewRow } from '../app/ports.js';

export const toWireEntity = (v: EntityView): entity.Entity => ({
  id: v.id,
  name: v.name,
  canonicalName: v.canonicalName,
  type: v.type,
  subtype: v.subtype,
  aliases: v.aliases,
  externalIds: v.externalIds,
  confidence: v.confidence,
  mergeCount: v.mergeCount,
  sourceCount: v.sourceCount,
  firstSeen: v.firstSeen,
  lastSeen: v.lastSeen,
  members: v.members,
});

export const toWireRelationship = (r: RelationshipView): entity.Relationship => ({
  sourceId: r.sourceId,
  targetId: r.targetId,
  type: r.type,
  properties: r.properties,
  confidence: r.confidence,
});

export const toWireReview = (r: ReviewRow): entity.ReviewItem => ({ ...r });
export const toWireLog = (r: LogRow): entity.LogEntry => ({ ...r });
export const toWireDiscovery = (d: DiscoveryRow): entity.Discovery => ({ ...d });

const longs = (m: Record<string, number>) =>
  Object.fromEntries(Object.entries(m).map(([k, v]) => [k, String(v)]));
export function toWireStats(s: {
  total: number;
  byType: Record<string, number>;
  byEntityType: Record<string, number>;
  entities: number;
  relationships: number;
  pendingReviews: number;
}): entity.DiscoveryStatsResponse {
  return {
    total: String(s.total),
    byType: longs(s.byType),
    byEntityType: longs(s.byEntityType),
    entities: String(s.entities),
    relationships: String(s.relationships),
    pendingReviews: String(s.pendingReviews),
  };
}
